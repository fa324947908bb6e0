import {
  createHash,
  createPublicKey,
  createSign,
  createVerify,
  timingSafeEqual,
  verify as verifyRaw,
  type KeyObject,
} from 'node:crypto';

// The parts of RFC 9421 (HTTP Message Signatures) and RFC 9530 (Digest Fields) that pawaPay uses
// ("Signatures", https://docs.pawapay.io/v2/docs/signatures): a Content-Digest of the body
// (sha-256 or sha-512), a signature base over derived components (@method, @authority, @path) and
// header fields (signature-date, content-digest, content-type, content-length), the `Signature-Input`
// and `Signature` fields under one label, ECDSA P-256 / SHA-256 by default. Hand-written rather than
// a dependency: the subset is small and every line of it is tested against the fake's own signer.

/** `sha-256=:<base64>:` (or sha-512) of a body, as RFC 9530 writes it. */
export function contentDigest(body: Buffer | string, alg: 'sha-256' | 'sha-512' = 'sha-512'): string {
  const hash = createHash(alg === 'sha-256' ? 'sha256' : 'sha512')
    .update(body)
    .digest('base64');
  return `${alg}=:${hash}:`;
}

/**
 * True when the Content-Digest field holds at least one sha-256/sha-512 digest and every such
 * digest matches the body (other algorithms are ignored, as RFC 9530 allows).
 */
export function digestMatches(field: string | undefined, body: Buffer): boolean {
  if (!field) return false;
  let checked = 0;
  for (const part of field.split(',')) {
    const m = /^\s*(sha-256|sha-512)\s*=\s*:([A-Za-z0-9+/=]+):\s*$/.exec(part);
    if (!m) continue;
    const want = Buffer.from(m[2]!, 'base64');
    const got = createHash(m[1] === 'sha-256' ? 'sha256' : 'sha512')
      .update(body)
      .digest();
    if (want.length !== got.length || !timingSafeEqual(want, got)) return false;
    checked++;
  }
  return checked > 0;
}

/** A signature's covered components and parameters, parsed from Signature-Input. */
export interface SignatureParams {
  label: string;
  components: string[];
  /** The serialized inner list and parameters exactly as received: the base's last line. */
  serialized: string;
  created: number | null;
  expires: number | null;
  keyid: string | null;
  alg: string | null;
}

/** Parses `label=("a" "b");created=1;keyid="k";alg="x"` (one or more labels, comma-separated). */
export function parseSignatureInput(field: string | undefined): SignatureParams[] {
  if (!field) return [];
  const out: SignatureParams[] = [];
  const re = /([a-z*][a-z0-9_\-.*]*)=(\((?:\s*"[^"]*")*\s*\)((?:;[a-z*][a-z0-9_\-.*]*=(?:"[^"]*"|-?\d+))*))/g;
  for (const m of field.matchAll(re)) {
    const serialized = m[2]!;
    const components = [...serialized.slice(0, serialized.indexOf(')')).matchAll(/"([^"]*)"/g)].map(
      (c) => c[1]!,
    );
    const params = new Map<string, string>();
    for (const p of (m[3] ?? '').matchAll(/;([a-z*][a-z0-9_\-.*]*)=("([^"]*)"|(-?\d+))/g))
      params.set(p[1]!, p[3] ?? p[4]!);
    const num = (k: string) =>
      params.has(k) && /^-?\d+$/.test(params.get(k)!) ? Number(params.get(k)) : null;
    out.push({
      label: m[1]!,
      components,
      serialized,
      created: num('created'),
      expires: num('expires'),
      keyid: params.get('keyid') ?? null,
      alg: params.get('alg') ?? null,
    });
  }
  return out;
}

/** `label=:<base64>:` entries of the Signature field, by label. */
export function parseSignature(field: string | undefined): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const m of (field ?? '').matchAll(/([a-z*][a-z0-9_\-.*]*)=:([A-Za-z0-9+/=]*):/g))
    out.set(m[1]!, Buffer.from(m[2]!, 'base64'));
  return out;
}

export interface MessageParts {
  method: string;
  /** Host (and port) the message was addressed to. */
  authority: string;
  /** Path and query; @path covers the path only. */
  target: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
}

/** The RFC 9421 signature base, or null when a covered component is absent from the message. */
export function signatureBase(msg: MessageParts, components: string[], serialized: string): string | null {
  const lines: string[] = [];
  for (const c of components) {
    let value: string | undefined;
    if (c === '@method') value = msg.method.toUpperCase();
    else if (c === '@authority') value = msg.authority.toLowerCase();
    else if (c === '@path') value = msg.target.split('?')[0] || '/';
    else if (c === '@query') {
      const q = msg.target.indexOf('?');
      value = q < 0 ? '?' : msg.target.slice(q);
    } else if (c.startsWith('@')) return null;
    else value = msg.headers[c.toLowerCase()]?.trim();
    if (value === undefined) return null;
    lines.push(`"${c}": ${value}`);
  }
  lines.push(`"@signature-params": ${serialized}`);
  return lines.join('\n');
}

/**
 * Verifies `signature` over `base` with the public key and the algorithm named in Signature-Input.
 * The key must be of the kind the algorithm names (an EC key announced as RSA-PSS is refused, not
 * checked as ECDSA over SHA-512). ECDSA signatures are accepted in both encodings: RFC 9421 says
 * r||s (64 bytes), pawaPay's own sample code (signatures-node-example) produces Node's default DER.
 */
export function verifyWith(key: KeyObject, alg: string | null, base: string, signature: Buffer): boolean {
  const data = Buffer.from(base, 'utf8');
  const named = alg ?? defaultAlg(key);
  if (!keyFits(key, named)) return false;
  try {
    switch (named) {
      case 'ecdsa-p256-sha256':
        return signature.length === 64
          ? verifyRaw('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
          : createVerify('SHA256').update(data).verify(key, signature);
      case 'rsa-v1_5-sha256':
        return createVerify('SHA256').update(data).verify(key, signature);
      case 'rsa-pss-sha512':
        return verifyRaw(
          'sha512',
          data,
          { key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 64 },
          signature,
        );
      case 'ed25519':
        return verifyRaw(null, data, key, signature);
      default:
        return false;
    }
  } catch {
    return false;
  }
}

/** True when `key` is of the kind RFC 9421's algorithm `alg` is defined for. */
function keyFits(key: KeyObject, alg: string): boolean {
  switch (alg) {
    case 'ecdsa-p256-sha256':
      return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
    case 'rsa-v1_5-sha256':
      return key.asymmetricKeyType === 'rsa';
    case 'rsa-pss-sha512':
      return key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss';
    case 'ed25519':
      return key.asymmetricKeyType === 'ed25519';
    default:
      return false;
  }
}

function defaultAlg(key: KeyObject): string {
  if (key.asymmetricKeyType === 'ec') return 'ecdsa-p256-sha256';
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  return 'rsa-v1_5-sha256';
}

/** A PEM public key, or null when it does not parse (reported once at build time). */
export function publicKeyOf(pem: string): KeyObject | null {
  try {
    return createPublicKey(pem.replace(/\\n/g, '\n'));
  } catch {
    return null;
  }
}

/** Signs a request (the optional "signed financial requests" of pawaPay): the headers to add. */
export function signRequest(
  msg: MessageParts & { body: string },
  key: { privateKeyPem: string; keyId: string },
  nowMs: number,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-digest': contentDigest(msg.body, 'sha-512'),
    'signature-date': new Date(nowMs).toISOString(),
    'content-type': msg.headers['content-type'] ?? 'application/json',
    'content-length': String(Buffer.byteLength(msg.body)),
  };
  const components = [
    '@method',
    '@authority',
    '@path',
    'signature-date',
    'content-digest',
    'content-type',
    'content-length',
  ];
  const created = Math.floor(nowMs / 1000);
  const serialized = `(${components.map((c) => `"${c}"`).join(' ')});alg="ecdsa-p256-sha256";keyid="${key.keyId}";created=${created};expires=${created + 60}`;
  const base = signatureBase({ ...msg, headers: { ...msg.headers, ...headers } }, components, serialized)!;
  const sig = createSign('SHA256').update(base).sign(key.privateKeyPem.replace(/\\n/g, '\n'), 'base64');
  return { ...headers, 'signature-input': `sig-pp=${serialized}`, signature: `sig-pp=:${sig}:` };
}
