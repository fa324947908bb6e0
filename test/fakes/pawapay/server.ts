import {
  createHash,
  createPublicKey,
  createSign,
  createVerify,
  generateKeyPairSync,
  randomUUID,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { undocumented } from '../../../src/operators/connectors/pawapay/wire';

// A fake of pawaPay's Merchant API v2 (https://docs.pawapay.io/v2/api-reference), written from its
// documentation, not from our connector: its routes (/v2/deposits, /v2/payouts, /v2/refunds,
// GET /v2/{deposits|payouts|refunds}/{id}, /v2/payouts/fail-enqueued/{id}, /v2/predict-provider,
// /v2/availability, /v2/active-conf, /v2/public-key/http), its Bearer token, its answers
// (ACCEPTED | REJECTED | DUPLICATE_IGNORED with failureReason; FOUND | NOT_FOUND), its statuses
// (ACCEPTED, PROCESSING, ENQUEUED, COMPLETED, FAILED) and its failure codes, and its callbacks,
// signed as pawaPay signs them (RFC 9421: label sig-pp over @method @authority @path
// signature-date content-digest content-type content-length, ECDSA P-256 SHA-256 in Node's DER
// encoding as pawaPay's sample code does, Content-Digest sha-512).
//
// Outcomes by the phone number's last three digits (like pawaPay's sandbox numbers):
//   | ends | deposit                               | payout                              |
//   | 039  | FAILED PAYMENT_NOT_APPROVED           | FAILED RECIPIENT_NOT_FOUND          |
//   | 049  | FAILED INSUFFICIENT_BALANCE           | FAILED INSUFFICIENT_BALANCE         |
//   | 129  | stays PROCESSING, no callback         | stays ENQUEUED (cancellable)        |
//   | else | COMPLETED after settleMs (100 ms)     | COMPLETED after settleMs            |
// A refund completes after settleMs, or stays PROCESSING when its deposit's number ends in 129.
// Amounts outside 100..1 000 000 are REJECTED with AMOUNT_OUT_OF_BOUNDS.
//
// Controls (no auth), for the contract tests:
//   POST /__fake/fail       {count, status}   the next `count` API requests answer `status` (500, 429…)
//   POST /__fake/hang       {count}           the next `count` API requests are processed, then never answered
//   POST /__fake/drop-callbacks {count}       the next `count` callbacks are not sent
//   POST /__fake/revoke-token / restore-token the API token is refused (403 AUTHENTICATION_ERROR) / accepted
//   POST /__fake/availability {provider, operationType, status}  OPERATIONAL | DELAYED | CLOSED
//   POST /__fake/read-lag   {count}           the next `count` status reads of known ids answer NOT_FOUND
//   POST /__fake/settle     {kind, id, status, failureCode?}  finishes a payment in flight (deposit|payout|refund, UUID)
//   GET  /__fake/books                        every payment held, as the status checks show them
//   GET  /__fake/received                     API requests received: method, path, body, signature headers present
//   GET  /__fake/undocumented                 requests refused (400) for a field or endpoint the reference does not document
//   GET  /__fake/callbacks                    callbacks sent: url, headers, body (as sent)

export interface PawapayFakeOptions {
  port?: number;
  apiToken: string;
  /** Private key (PEM) signing callbacks; generated when absent (its public key at /v2/public-key/http). */
  signingPrivateKeyPem?: string;
  keyId?: string;
  callbackUrl: string | null;
  settleMs?: number;
  /** When set, financial requests must be signed with the matching private key (HTTP_SIGNATURE_ERROR otherwise). */
  merchantPublicKeyPem?: string | null;
}

type Kind = 'deposit' | 'payout' | 'refund';
interface Payment {
  kind: Kind;
  id: string;
  status: 'ACCEPTED' | 'PROCESSING' | 'ENQUEUED' | 'COMPLETED' | 'FAILED';
  amount: string;
  currency: string;
  country: string;
  provider: string;
  phoneNumber: string;
  depositId?: string;
  clientReferenceId?: string;
  created: string;
  providerTransactionId?: string;
  failureCode?: string;
}

const providers: Record<string, { country: string; currency: string; prefix: string }> = {
  MTN_MOMO_CIV: { country: 'CIV', currency: 'XOF', prefix: '225' },
  ORANGE_CIV: { country: 'CIV', currency: 'XOF', prefix: '225' },
  MOOV_CIV: { country: 'CIV', currency: 'XOF', prefix: '225' },
  WAVE_CIV: { country: 'CIV', currency: 'XOF', prefix: '225' },
  MTN_MOMO_CMR: { country: 'CMR', currency: 'XAF', prefix: '237' },
  ORANGE_CMR: { country: 'CMR', currency: 'XAF', prefix: '237' },
};
const operations = ['DEPOSIT', 'PAYOUT', 'REFUND'] as const;
const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const amountRe = /^([1-9]\d{0,17}|0)(\.\d{1,2})?$/;
const MIN = 100;
const MAX = 1_000_000;

/** Signs a callback as pawaPay does: the headers to send with `body` to `url`. */
export function signPawapayCallback(
  url: string,
  body: string,
  privateKeyPem: string,
  keyId: string,
  nowMs = Date.now(),
  /** Node's DER by default, as pawaPay's sample; `ieee-p1363` is RFC 9421's r||s. */
  dsaEncoding: 'der' | 'ieee-p1363' = 'der',
): Record<string, string> {
  const u = new URL(url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'content-digest': `sha-512=:${createHash('sha512').update(body).digest('base64')}:`,
    'signature-date': new Date(nowMs).toISOString(),
  };
  const covered = [
    '@method',
    '@authority',
    '@path',
    'signature-date',
    'content-digest',
    'content-type',
    'content-length',
  ];
  const created = Math.floor(nowMs / 1000);
  const params = `(${covered.map((c) => `"${c}"`).join(' ')});alg="ecdsa-p256-sha256";keyid="${keyId}";created=${created};expires=${created + 300}`;
  const values: Record<string, string> = {
    '@method': 'POST',
    '@authority': u.host,
    '@path': u.pathname,
    ...headers,
  };
  const base = [...covered.map((c) => `"${c}": ${values[c]}`), `"@signature-params": ${params}`].join('\n');
  const signature = createSign('SHA256').update(base).sign({ key: privateKeyPem, dsaEncoding }, 'base64');
  return { ...headers, 'signature-input': `sig-pp=${params}`, signature: `sig-pp=:${signature}:` };
}

/** Checks a signed financial request (the merchant's signature) the way pawaPay describes it. */
function requestSignatureValid(req: IncomingMessage, raw: Buffer, publicKeyPem: string): boolean {
  const h = (n: string) => {
    const v = req.headers[n];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const digest = /^sha-(256|512)=:([A-Za-z0-9+/=]+):$/.exec(h('content-digest') ?? '');
  if (!digest) return false;
  const want = createHash(`sha${digest[1]}`).update(raw).digest('base64');
  if (want !== digest[2]) return false;
  const input = /^([a-z0-9_-]+)=(\(([^)]*)\).*)$/.exec(h('signature-input') ?? '');
  const sig = /^([a-z0-9_-]+)=:([A-Za-z0-9+/=]+):$/.exec(h('signature') ?? '');
  if (!input || !sig || input[1] !== sig[1]) return false;
  const covered = [...input[3]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  if (!covered.includes('content-digest')) return false;
  const lines: string[] = [];
  for (const c of covered) {
    const v =
      c === '@method'
        ? req.method
        : c === '@authority'
          ? h('host')
          : c === '@path'
            ? (req.url ?? '/').split('?')[0]
            : h(c);
    if (v === undefined) return false;
    lines.push(`"${c}": ${v}`);
  }
  lines.push(`"@signature-params": ${input[2]}`);
  try {
    return createVerify('SHA256').update(lines.join('\n')).verify(publicKeyPem, sig[2]!, 'base64');
  } catch {
    return false;
  }
}

export async function startPawapayFake(opts: PawapayFakeOptions): Promise<{
  url: string;
  publicKeyPem: string;
  close(): Promise<void>;
}> {
  const keyId = opts.keyId ?? 'PAWAPAY_FAKE_KEY';
  let privateKeyPem = opts.signingPrivateKeyPem;
  let publicKeyPem: string;
  if (privateKeyPem) {
    publicKeyPem = createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
  } else {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    privateKeyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }
  const settleMs = opts.settleMs ?? 100;
  const store = new Map<string, Payment>(); // key `${kind}:${id}`
  const availability = new Map<string, string>(); // `${provider}:${op}` → status
  const received: Array<{ method: string; path: string; body: unknown; signed: boolean }> = [];
  const undocumentedRequests: string[] = [];
  const callbacks: Array<{ url: string; headers: Record<string, string>; body: string }> = [];
  const control = { fail: { count: 0, status: 500 }, hang: 0, dropCallbacks: 0, revoked: false, readLag: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const hung = new Set<ServerResponse>();

  const statusOf = (provider: string, op: string) => availability.get(`${provider}:${op}`) ?? 'OPERATIONAL';
  const later = (ms: number, f: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };

  const view = (p: Payment) => {
    const party = { type: 'MMO', accountDetails: { phoneNumber: p.phoneNumber, provider: p.provider } };
    return {
      [`${p.kind}Id`]: p.id,
      status: p.status,
      amount: p.amount,
      currency: p.currency,
      country: p.country,
      ...(p.kind === 'deposit' ? { payer: party } : p.kind === 'payout' ? { recipient: party } : {}),
      ...(p.kind === 'refund' ? { depositId: p.depositId, recipient: party } : {}),
      ...(p.clientReferenceId ? { clientReferenceId: p.clientReferenceId } : {}),
      created: p.created,
      ...(p.providerTransactionId ? { providerTransactionId: p.providerTransactionId } : {}),
      ...(p.failureCode
        ? { failureReason: { failureCode: p.failureCode, failureMessage: 'Payment failed' } }
        : {}),
      // Wave authorises by redirecting the customer: the deposit shows where, until it is final.
      ...(p.kind === 'deposit' &&
      p.provider === 'WAVE_CIV' &&
      p.status !== 'COMPLETED' &&
      p.status !== 'FAILED'
        ? { authorizationUrl: `https://pay.wave.example/c/${p.id}` }
        : {}),
    };
  };

  const sendCallback = (p: Payment) => {
    if (!opts.callbackUrl) return;
    if (control.dropCallbacks > 0) {
      control.dropCallbacks--;
      return;
    }
    const body = JSON.stringify(view(p));
    const headers = signPawapayCallback(opts.callbackUrl, body, privateKeyPem, keyId);
    callbacks.push({ url: opts.callbackUrl, headers, body });
    void fetch(opts.callbackUrl, { method: 'POST', headers, body }).catch(() => undefined);
  };

  const finish = (p: Payment, status: 'COMPLETED' | 'FAILED', failureCode?: string) => {
    p.status = status;
    if (status === 'COMPLETED')
      p.providerTransactionId = `PT${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;
    if (failureCode) p.failureCode = failureCode;
    sendCallback(p);
  };

  const schedule = (p: Payment) => {
    const end = p.phoneNumber.slice(-3);
    if (p.kind === 'refund') {
      const dep = store.get(`deposit:${p.depositId}`);
      if (dep?.phoneNumber.endsWith('129')) return;
      later(settleMs, () => finish(p, 'COMPLETED'));
      return;
    }
    if (end === '129' || (p.kind === 'payout' && statusOf(p.provider, 'PAYOUT') === 'DELAYED')) {
      if (p.kind === 'payout') p.status = 'ENQUEUED';
      else p.status = 'PROCESSING';
      return;
    }
    p.status = 'PROCESSING';
    if (end === '039')
      later(settleMs, () =>
        finish(p, 'FAILED', p.kind === 'deposit' ? 'PAYMENT_NOT_APPROVED' : 'RECIPIENT_NOT_FOUND'),
      );
    else if (end === '049') later(settleMs, () => finish(p, 'FAILED', 'INSUFFICIENT_BALANCE'));
    else later(settleMs, () => finish(p, 'COMPLETED'));
  };

  type Reply = { status: number; body: unknown };
  const rejected = (idName: string, id: unknown, failureCode: string, failureMessage: string): Reply => ({
    status: 200,
    body: { [idName]: id, status: 'REJECTED', failureReason: { failureCode, failureMessage } },
  });
  const invalid = (failureCode: string, failureMessage: string, status = 400): Reply => ({
    status,
    body: { status: 'REJECTED', failureReason: { failureCode, failureMessage } },
  });

  const initiate = (kind: Kind, b: Record<string, unknown>): Reply => {
    const idName = `${kind}Id`;
    const id = b[idName];
    if (typeof id !== 'string' || !uuidRe.test(id))
      return invalid('INVALID_PARAMETER', `${idName} must be a UUID`);
    if (typeof b.amount !== 'string' || !amountRe.test(b.amount))
      return invalid('INVALID_PARAMETER', 'amount');
    if (typeof b.currency !== 'string') return invalid('MISSING_PARAMETER', 'currency');
    // customerMessage (optional): 4 to 22 letters, digits or spaces, as the API reference states.
    if (
      b.customerMessage !== undefined &&
      (typeof b.customerMessage !== 'string' || !/^[A-Za-z0-9 ]{4,22}$/.test(b.customerMessage))
    )
      return invalid('INVALID_PARAMETER', 'customerMessage');
    const existing = store.get(`${kind}:${id}`);
    // Duplication logic relies upon the id alone (the documentation says so).
    if (existing)
      return { status: 200, body: { [idName]: id, status: 'DUPLICATE_IGNORED', created: existing.created } };
    let provider: string;
    let phoneNumber: string;
    let depositId: string | undefined;
    if (kind === 'refund') {
      if (typeof b.depositId !== 'string') return invalid('MISSING_PARAMETER', 'depositId');
      const dep = store.get(`deposit:${b.depositId}`);
      if (!dep) return rejected(idName, id, 'DEPOSIT_NOT_FOUND', 'Deposit not found');
      if (dep.status !== 'COMPLETED')
        return rejected(idName, id, 'DEPOSIT_NOT_COMPLETED', 'Deposit not completed');
      const refunded = [...store.values()]
        .filter((p) => p.kind === 'refund' && p.depositId === dep.id && p.status !== 'FAILED')
        .reduce((s, p) => s + Number(p.amount), 0);
      if (b.currency !== dep.currency) return rejected(idName, id, 'INVALID_CURRENCY', 'Currency');
      if (refunded + Number(b.amount) > Number(dep.amount))
        return rejected(idName, id, 'AMOUNT_OUT_OF_BOUNDS', 'More than the deposit');
      provider = dep.provider;
      phoneNumber = dep.phoneNumber;
      depositId = dep.id;
    } else {
      const party = (kind === 'deposit' ? b.payer : b.recipient) as
        { type?: unknown; accountDetails?: { phoneNumber?: unknown; provider?: unknown } } | undefined;
      if (!party || party.type !== 'MMO' || !party.accountDetails)
        return invalid('MISSING_PARAMETER', kind === 'deposit' ? 'payer' : 'recipient');
      const { phoneNumber: ph, provider: pv } = party.accountDetails;
      if (typeof pv !== 'string' || !providers[pv])
        return rejected(idName, id, 'INVALID_PROVIDER', 'Provider');
      if (typeof ph !== 'string' || !/^\d{8,15}$/.test(ph) || !ph.startsWith(providers[pv].prefix))
        return rejected(idName, id, 'INVALID_PHONE_NUMBER', 'Phone number');
      if (b.currency !== providers[pv].currency) return rejected(idName, id, 'INVALID_CURRENCY', 'Currency');
      provider = pv;
      phoneNumber = ph;
    }
    const op = kind.toUpperCase();
    if (statusOf(provider, op) === 'CLOSED')
      return rejected(idName, id, 'PROVIDER_TEMPORARILY_UNAVAILABLE', 'Provider closed');
    const amount = Number(b.amount);
    if (amount < MIN || amount > MAX) return rejected(idName, id, 'AMOUNT_OUT_OF_BOUNDS', 'Limits');
    const p: Payment = {
      kind,
      id,
      status: 'ACCEPTED',
      amount: b.amount,
      currency: b.currency,
      country: providers[provider]!.country,
      provider,
      phoneNumber,
      ...(depositId ? { depositId } : {}),
      ...(typeof b.clientReferenceId === 'string' ? { clientReferenceId: b.clientReferenceId } : {}),
      created: new Date().toISOString(),
    };
    store.set(`${kind}:${id}`, p);
    schedule(p);
    return {
      status: 200,
      body: {
        [idName]: id,
        status: 'ACCEPTED',
        created: p.created,
        ...(kind === 'deposit' && provider === 'WAVE_CIV'
          ? { nextStep: 'REDIRECT_TO_AUTH_URL', authorizationUrl: `https://pay.wave.example/c/${id}` }
          : {}),
      },
    };
  };

  const predict = (phone: unknown): Reply => {
    const d = typeof phone === 'string' ? phone.replace(/\D/g, '') : '';
    const m = /^225(0[157])\d{8}$/.exec(d);
    if (m)
      return {
        status: 200,
        body: {
          country: 'CIV',
          provider: { '07': 'ORANGE_CIV', '05': 'MTN_MOMO_CIV', '01': 'MOOV_CIV' }[m[1]!],
          phoneNumber: d,
        },
      };
    const c = /^2376(\d{2})\d{6}$/.exec(d);
    if (c) {
      const two = Number(c[1]);
      const provider = two >= 90 || (two >= 55 && two <= 59) ? 'ORANGE_CMR' : 'MTN_MOMO_CMR';
      return { status: 200, body: { country: 'CMR', provider, phoneNumber: d } };
    }
    return invalid('INVALID_PHONE_NUMBER', 'Not a phone number of a supported country');
  };

  const activeConf = () => {
    const byCountry = new Map<string, unknown[]>();
    for (const [provider, info] of Object.entries(providers)) {
      const list = byCountry.get(info.country) ?? [];
      list.push({
        provider,
        displayName: provider,
        currencies: [
          {
            currency: info.currency,
            operationTypes: operations.map((op) => ({
              operationType: op,
              minTransactionLimit: String(MIN),
              maxTransactionLimit: String(MAX),
              decimalsInAmount: 'NONE',
              status: statusOf(provider, op),
              callbackUrl: opts.callbackUrl,
            })),
          },
        ],
      });
      byCountry.set(info.country, list);
    }
    return {
      companyName: 'Fake Merchant',
      signatureConfiguration: { signedRequestsOnly: !!opts.merchantPublicKeyPem, signedCallbacks: true },
      countries: [...byCountry].map(([country, ps]) => ({
        country,
        prefix: country === 'CIV' ? '225' : '237',
        providers: ps,
      })),
    };
  };

  const api = (method: string, path: string, body: Record<string, unknown>): Reply => {
    let m: RegExpExecArray | null;
    if (method === 'POST' && (m = /^\/v2\/(deposits|payouts|refunds)$/.exec(path)))
      return initiate(m[1]!.slice(0, -1) as Kind, body);
    if (method === 'GET' && (m = /^\/v2\/(deposits|payouts|refunds)\/([^/]+)$/.exec(path))) {
      const p = store.get(`${m[1]!.slice(0, -1)}:${m[2]}`);
      // A read side lagging its write side: found payments answer NOT_FOUND for a while.
      if (p && control.readLag > 0) {
        control.readLag--;
        return { status: 200, body: { status: 'NOT_FOUND' } };
      }
      return { status: 200, body: p ? { status: 'FOUND', data: view(p) } : { status: 'NOT_FOUND' } };
    }
    if (method === 'POST' && (m = /^\/v2\/payouts\/fail-enqueued\/([^/]+)$/.exec(path))) {
      const p = store.get(`payout:${m[1]}`);
      if (!p) return rejected('payoutId', m[1], 'NOT_FOUND', 'Payout not found');
      if (p.status !== 'ENQUEUED')
        return rejected('payoutId', m[1], 'INVALID_STATE', 'Payout is not enqueued');
      finish(p, 'FAILED', 'MANUALLY_CANCELLED');
      return { status: 200, body: { payoutId: p.id, status: 'ACCEPTED' } };
    }
    if (method === 'POST' && path === '/v2/predict-provider') return predict(body.phoneNumber);
    if (method === 'GET' && path === '/v2/availability')
      return {
        status: 200,
        body: [...new Set(Object.values(providers).map((p) => p.country))].map((country) => ({
          country,
          providers: Object.entries(providers)
            .filter(([, i]) => i.country === country)
            .map(([provider]) => ({
              provider,
              operationTypes: operations.map((op) => ({ operationType: op, status: statusOf(provider, op) })),
            })),
        })),
      };
    if (method === 'GET' && path === '/v2/active-conf') return { status: 200, body: activeConf() };
    return {
      status: 404,
      body: {
        status: 'REJECTED',
        failureReason: { failureCode: 'NOT_FOUND', failureMessage: 'No such route' },
      },
    };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0]!;
      const method = req.method ?? 'GET';
      const send = (status: number, body: unknown) => {
        const text = body === undefined ? '' : JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(text);
      };
      let body: Record<string, unknown> = {};
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        } catch {
          if (!path.startsWith('/__fake/'))
            return send(400, {
              status: 'REJECTED',
              failureReason: { failureCode: 'INVALID_INPUT', failureMessage: 'Unparseable' },
            });
        }
      }
      if (path.startsWith('/__fake/')) {
        switch (`${method} ${path}`) {
          case 'POST /__fake/fail':
            control.fail = { count: Number(body.count ?? 1), status: Number(body.status ?? 500) };
            return send(200, { ok: true });
          case 'POST /__fake/hang':
            control.hang = Number(body.count ?? 1);
            return send(200, { ok: true });
          case 'POST /__fake/drop-callbacks':
            control.dropCallbacks = Number(body.count ?? 1);
            return send(200, { ok: true });
          case 'POST /__fake/revoke-token':
            control.revoked = true;
            return send(200, { ok: true });
          case 'POST /__fake/restore-token':
            control.revoked = false;
            return send(200, { ok: true });
          case 'POST /__fake/availability':
            availability.set(`${String(body.provider)}:${String(body.operationType)}`, String(body.status));
            return send(200, { ok: true });
          case 'POST /__fake/read-lag':
            control.readLag = Number(body.count ?? 1);
            return send(200, { ok: true });
          case 'POST /__fake/settle': {
            // The provider's late word on a payment still in flight (after our deadline, say).
            const p = store.get(`${String(body.kind)}:${String(body.id)}`);
            if (!p || p.status === 'COMPLETED' || p.status === 'FAILED')
              return send(409, { error: 'not in flight' });
            finish(
              p,
              body.status === 'FAILED' ? 'FAILED' : 'COMPLETED',
              typeof body.failureCode === 'string'
                ? body.failureCode
                : body.status === 'FAILED'
                  ? 'UNKNOWN_ERROR'
                  : undefined,
            );
            return send(200, view(p));
          }
          case 'GET /__fake/books':
            // The provider's books: every payment it holds, as its status checks show them.
            return send(
              200,
              [...store.values()].map((p) => ({ kind: p.kind, ...view(p) })),
            );
          case 'GET /__fake/received':
            return send(200, received);
          case 'GET /__fake/undocumented':
            // Every request refused for a field or an endpoint the reference does not document.
            return send(200, undocumentedRequests);
          case 'GET /__fake/callbacks':
            return send(200, callbacks);
          default:
            return send(404, { error: 'no such control' });
        }
      }
      // The public keys of callbacks, as GET /v2/public-key/http lists them.
      if (method === 'GET' && path === '/v2/public-key/http')
        return send(200, [{ id: keyId, key: publicKeyPem }]);
      received.push({ method, path, body, signed: typeof req.headers.signature === 'string' });
      if (control.fail.count > 0) {
        control.fail.count--;
        return send(
          control.fail.status,
          control.fail.status === 429
            ? {
                status: 'REJECTED',
                failureReason: { failureCode: 'TOO_MANY_REQUESTS', failureMessage: 'Slow down' },
              }
            : undefined,
        );
      }
      // No token, a wrong one, or a revoked one: pawaPay's technical failure codes.
      const auth = req.headers.authorization;
      if (!auth)
        return send(401, {
          status: 'REJECTED',
          failureReason: { failureCode: 'NO_AUTHENTICATION', failureMessage: 'No token' },
        });
      if (auth !== `Bearer ${opts.apiToken}` || control.revoked)
        return send(403, {
          status: 'REJECTED',
          failureReason: { failureCode: 'AUTHENTICATION_ERROR', failureMessage: 'Invalid token' },
        });
      const financial = method === 'POST' && /^\/v2\/(deposits|payouts|refunds)$/.test(path);
      if (
        financial &&
        opts.merchantPublicKeyPem &&
        !requestSignatureValid(req, raw, opts.merchantPublicKeyPem)
      )
        return send(403, {
          status: 'REJECTED',
          failureReason: { failureCode: 'HTTP_SIGNATURE_ERROR', failureMessage: 'Bad signature' },
        });
      // Only what the reference documents for the endpoint (src/operators/connectors/pawapay/wire.ts):
      // pawaPay refuses the rest, and the refusal is kept for the connector's conformance test.
      const departure = undocumented(method, path, body);
      if (departure) {
        undocumentedRequests.push(departure);
        return send(400, {
          status: 'REJECTED',
          failureReason: { failureCode: 'INVALID_PARAMETER', failureMessage: departure },
        });
      }
      const reply = api(method, path, body);
      if (control.hang > 0) {
        // Processed, answer lost: the caller times out, its retry meets DUPLICATE_IGNORED.
        control.hang--;
        hung.add(res);
        return;
      }
      send(reply.status, reply.body);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    publicKeyPem,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const r of hung) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
