import { createHmac } from 'node:crypto';
import {
  InvalidWebhookSecretError,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '../src/index';

// The official Standard Webhooks test vectors, from standard-webhooks/standard-webhooks,
// libraries/javascript/src/webhook.test.ts (the same secret, message id, payload and expected
// signature are in libraries/python/tests/test_webhooks.py): each case of that file, run against
// this SDK's verifier.

const defaultMsgID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const defaultPayload = `{"test": 2432232314}`;
const defaultSecret = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const toleranceMs = 5 * 60 * 1000;

function testPayload(timestampMs = Date.now()) {
  const timestamp = Math.floor(timestampMs / 1000);
  const signature = signWebhook(defaultSecret, defaultMsgID, timestamp, defaultPayload);
  return {
    payload: defaultPayload,
    header: {
      'webhook-id': defaultMsgID,
      'webhook-signature': signature,
      'webhook-timestamp': String(timestamp),
    } as Record<string, string>,
  };
}

const verify = (
  p: { payload: string; header: Record<string, string> },
  secret: string | Uint8Array | (string | Uint8Array)[] = defaultSecret,
) => verifyWebhook(p.payload, p.header, secret);

describe('Standard Webhooks official vectors', () => {
  test('sign function works (the fixed vector)', () => {
    expect(
      signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', defaultMsgID, 1614265330, defaultPayload),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('the fixed vector verifies at its own time', () => {
    const header = {
      'webhook-id': defaultMsgID,
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    expect(verifyWebhook(defaultPayload, header, `whsec_${defaultSecret}`, { now: 1614265330 })).toEqual({
      test: 2432232314,
    });
  });

  test('empty key raises error', () => {
    expect(() => verify(testPayload(), '')).toThrow(InvalidWebhookSecretError);
    expect(() => verify(testPayload(), [])).toThrow(InvalidWebhookSecretError);
  });

  test.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('missing %s raises error', (name) => {
    const p = testPayload();
    delete p.header[name];
    expect(() => verify(p)).toThrow(WebhookVerificationError);
  });

  test('invalid timestamp throws error', () => {
    const p = testPayload();
    p.header['webhook-timestamp'] = 'hello';
    expect(() => verify(p)).toThrow(WebhookVerificationError);
  });

  test('invalid signature throws error', () => {
    const p = testPayload();
    p.header['webhook-signature'] = 'v1,dawfeoifkpqwoekfpqoekf';
    expect(() => verify(p)).toThrow(WebhookVerificationError);
  });

  test('partial signature throws error', () => {
    const p = testPayload();
    p.header['webhook-signature'] = (p.header['webhook-signature'] as string).slice(0, 8);
    expect(() => verify(p)).toThrow(WebhookVerificationError);
    p.header['webhook-signature'] = 'v1,';
    expect(() => verify(p)).toThrow(WebhookVerificationError);
  });

  test('valid signature is valid and returns valid json', () => {
    expect(verify(testPayload())).toEqual({ test: 2432232314 });
  });

  test('old timestamp fails', () => {
    expect(() => verify(testPayload(Date.now() - toleranceMs - 1000))).toThrow('Message timestamp too old');
  });

  test('new timestamp fails', () => {
    expect(() => verify(testPayload(Date.now() + toleranceMs + 1000))).toThrow('Message timestamp too new');
  });

  test('multi sig payload is valid', () => {
    const p = testPayload();
    p.header['webhook-signature'] = [
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      p.header['webhook-signature'],
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
    ].join(' ');
    expect(verify(p)).toEqual({ test: 2432232314 });
  });

  test('verification works with and without signature prefix', () => {
    expect(verify(testPayload(), defaultSecret)).toBeDefined();
    expect(verify(testPayload(), `whsec_${defaultSecret}`)).toBeDefined();
  });
});

describe('several secrets (rotation) and tolerance', () => {
  const other = `whsec_${Buffer.from('another secret of 24 bytes!').toString('base64')}`;

  test('any one of the secrets matching is enough', () => {
    expect(verify(testPayload(), [other, `whsec_${defaultSecret}`])).toEqual({ test: 2432232314 });
  });

  test('no secret matching fails', () => {
    expect(() => verify(testPayload(), [other])).toThrow('No matching signature found');
  });

  test('a tolerance of its own', () => {
    const p = testPayload(Date.now() - 60_000);
    expect(() => verifyWebhook(p.payload, p.header, defaultSecret, { toleranceSeconds: 30 })).toThrow(
      'too old',
    );
    expect(verifyWebhook(p.payload, p.header, defaultSecret, { toleranceSeconds: 120 })).toBeDefined();
  });

  test('headers as a Headers object (fetch, undici)', () => {
    const p = testPayload();
    expect(verifyWebhook(p.payload, new Headers(p.header), defaultSecret)).toBeDefined();
  });

  test('a body changed by one byte fails', () => {
    const p = testPayload();
    expect(() => verifyWebhook(p.payload.replace('2', '3'), p.header, defaultSecret)).toThrow(
      WebhookVerificationError,
    );
  });
});

// The same secrets are refused by the three SDKs, before any request is looked at, with the same
// InvalidWebhookSecretError (docs/decisions/sdks/webhook-secret-refused-unless-24-to-64-bytes.md).
describe('a secret that is empty or malformed is refused', () => {
  const bytes = (n: number) => Buffer.alloc(n, 7).toString('base64');
  // A request signed with an empty HMAC key: what a forger sends when the secret is empty.
  const forged = () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const mac = createHmac('sha256', Buffer.alloc(0))
      .update(`${defaultMsgID}.${timestamp}.${defaultPayload}`)
      .digest('base64');
    return {
      payload: defaultPayload,
      header: {
        'webhook-id': defaultMsgID,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${mac}`,
      } as Record<string, string>,
    };
  };

  test.each([
    ['empty', ''],
    ['whsec_ with nothing after', 'whsec_'],
    ['not base64', 'whsec_not*base64!'],
    ['base64 without its padding', `whsec_${bytes(25).replace(/=+$/, '')}`],
    ['base64url', `whsec_${Buffer.alloc(27, 0xfb).toString('base64url')}`],
    ['base64 with a space', `whsec_ ${bytes(24)}`],
    ['base64 with a line break', `whsec_${bytes(24)}\n`],
    ['padding alone', 'whsec_===='],
    ['decoding to 23 bytes', `whsec_${bytes(23)}`],
    ['decoding to 65 bytes', `whsec_${bytes(65)}`],
  ])('%s', (_name, secret) => {
    expect(() => verify(forged(), secret)).toThrow(InvalidWebhookSecretError);
    expect(() => verify(forged(), [`whsec_${defaultSecret}`, secret])).toThrow(InvalidWebhookSecretError);
    expect(() => signWebhook(secret, defaultMsgID, 1614265330, defaultPayload)).toThrow(
      InvalidWebhookSecretError,
    );
  });

  test('raw keys of fewer than 24 bytes are refused too', () => {
    expect(() => verify(forged(), new Uint8Array(0))).toThrow(InvalidWebhookSecretError);
    expect(() => verify(forged(), new Uint8Array(16))).toThrow(InvalidWebhookSecretError);
  });

  test('the secret is checked before the request, and never quoted', () => {
    const secret = `whsec_${bytes(10)}`;
    const err = (() => {
      try {
        verifyWebhook('{}', {}, secret);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(InvalidWebhookSecretError);
    expect(err).not.toBeInstanceOf(WebhookVerificationError);
    expect(err?.message).toContain('24 to 64 bytes');
    expect(err?.message).not.toContain(bytes(10));
  });

  test('24 and 64 bytes, with or without whsec_, are accepted', () => {
    for (const secret of [`whsec_${bytes(24)}`, bytes(24), `whsec_${bytes(64)}`]) {
      const p = forged();
      expect(() => verify(p, secret)).toThrow('No matching signature found');
    }
  });
});
