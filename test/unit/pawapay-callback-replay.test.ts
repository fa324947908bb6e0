import { createSign, generateKeyPairSync, sign as signRaw } from 'node:crypto';
import { buildPawapayConnector } from '../../src/operators/connectors/pawapay/config';
import type { IncomingCallback } from '../../src/operators/connectors/connector';
import { newId } from '../../src/domain/ids';
import { toProviderUuid } from '../../src/operators/provider-ids';
import { signPawapayCallback } from '../fakes/pawapay/server';

// pawaPay's callbacks are deduplicated by what was signed (the callback door keeps a receipt of
// `signed.content`), not by the bytes of the Signature field: an ECDSA signature has several
// encodings (DER, RFC 9421's r||s) and a second valid value for the same message (s and n − s), so
// the same signed callback re-encoded must name the same signed content, to be a replay.
// And a signature verifies only with the algorithm its key is for: an EC key announced as RSA-PSS
// is refused, not checked as ECDSA over SHA-512.

const KEY_ID = 'PAWAPAY_REPLAY_KEY';
const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PRIVATE = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PUBLIC = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const URL_ = 'https://pay.example/provider-callbacks/pawapay';
/** The order of the P-256 group. */
const N = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

function connector() {
  return buildPawapayConnector(
    {
      PAWAPAY_BASE_URL: 'http://127.0.0.1:9',
      PAWAPAY_API_TOKEN: 'token',
      PAWAPAY_CALLBACK_PUBLIC_KEY: PUBLIC,
      PAWAPAY_CALLBACK_KEY_ID: KEY_ID,
    },
    { timeoutMs: 1000 },
  )!;
}

function callback(headers: Record<string, string>, body: string): IncomingCallback {
  return {
    method: 'POST',
    path: '/provider-callbacks/pawapay',
    headers: { host: 'pay.example', ...headers },
    rawBody: Buffer.from(body),
  };
}

/** The signature of `headers` (DER or r||s) re-written as r||s, or with s replaced by n − s. */
function reencode(headers: Record<string, string>, how: 'p1363' | 'flip-s'): Record<string, string> {
  const sig = Buffer.from(/=:([A-Za-z0-9+/=]+):/.exec(headers.signature!)![1]!, 'base64');
  const int = (b: Buffer) => BigInt(`0x${b.toString('hex')}`);
  let r: bigint;
  let s: bigint;
  if (sig.length === 64) {
    r = int(sig.subarray(0, 32));
    s = int(sig.subarray(32));
  } else {
    // SEQUENCE { INTEGER r, INTEGER s }, short lengths (P-256).
    const rLen = sig[3]!;
    r = int(sig.subarray(4, 4 + rLen));
    s = int(sig.subarray(6 + rLen, 6 + rLen + sig[5 + rLen]!));
  }
  const hex = (v: bigint) => v.toString(16).padStart(64, '0');
  const raw = Buffer.from(hex(r) + hex(how === 'flip-s' ? N - s : s), 'hex');
  return { ...headers, signature: `sig-pp=:${raw.toString('base64')}:` };
}

function body(): string {
  return JSON.stringify({ depositId: toProviderUuid(newId('pr')), status: 'COMPLETED' });
}

/** What the callback door keeps a receipt of: the content the signature covers. */
async function signedContent(cb: IncomingCallback): Promise<string> {
  const verified = await connector().verifyCallback(cb);
  expect(verified).not.toBeNull();
  return String(verified!.signed.content);
}

describe('pawaPay callback replays', () => {
  it('names the same signed content for the same callback re-encoded (DER to r||s)', async () => {
    const b = body();
    const signed = signPawapayCallback(URL_, b, PRIVATE, KEY_ID);
    const raw = reencode(signed, 'p1363');
    expect(await signedContent(callback(raw, b))).toBe(await signedContent(callback(signed, b)));
  });

  it('names the same signed content for the same callback with s flipped to n − s', async () => {
    const b = body();
    const signed = signPawapayCallback(URL_, b, PRIVATE, KEY_ID, Date.now(), 'ieee-p1363');
    const flipped = reencode(signed, 'flip-s');
    // n − s is a valid signature of the same message: accepted, and the same signed content.
    expect(await signedContent(callback(flipped, b))).toBe(await signedContent(callback(signed, b)));
  });

  it('names another signed content for another signing of the same body (a resend pawaPay signed anew)', async () => {
    const b = body();
    const first = signPawapayCallback(URL_, b, PRIVATE, KEY_ID, Date.now() - 2000);
    const resent = signPawapayCallback(URL_, b, PRIVATE, KEY_ID);
    expect(await signedContent(callback(first, b))).not.toBe(await signedContent(callback(resent, b)));
  });

  it('refuses a signature whose announced algorithm is not the one of the key', async () => {
    const pawapay = connector();
    const b = body();
    const signed = signPawapayCallback(URL_, b, PRIVATE, KEY_ID);
    // The same message announced as RSA-PSS / SHA-512 and signed by the EC key over SHA-512.
    const input = signed['signature-input']!.replace('alg="ecdsa-p256-sha256"', 'alg="rsa-pss-sha512"');
    const params = input.slice('sig-pp='.length);
    const u = new URL(URL_);
    const base = [
      `"@method": POST`,
      `"@authority": ${u.host}`,
      `"@path": ${u.pathname}`,
      `"signature-date": ${signed['signature-date']}`,
      `"content-digest": ${signed['content-digest']}`,
      `"content-type": ${signed['content-type']}`,
      `"content-length": ${signed['content-length']}`,
      `"@signature-params": ${params}`,
    ].join('\n');
    for (const sig of [
      createSign('SHA512').update(base).sign(PRIVATE),
      signRaw('sha512', Buffer.from(base), { key: PRIVATE, dsaEncoding: 'ieee-p1363' }),
    ]) {
      const headers = {
        ...signed,
        'signature-input': input,
        signature: `sig-pp=:${sig.toString('base64')}:`,
      };
      await expect(pawapay.verifyCallback(callback(headers, b))).resolves.toBeNull();
    }
  });
});
