import request from 'supertest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { parseKeyRing } from '../../src/security/key-ring';
import {
  decodeHistoryPayloads,
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadCodecError,
} from '../../src/temporal/codec';
import { createCodecServerApp } from '../../src/api/codec-server';
import { failureConverter } from '../../src/temporal/failure-converter';

// The payload codec (src/temporal/codec.ts) and the codec server's app (src/api/codec-server.ts).

const k1 = `k1:${'01'.repeat(32)}`;
const k2 = `k2:${'02'.repeat(32)}`;
const customer = { msisdn: '+2250700000000', customerName: 'Awa Koné' };
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');
const toPayload = (v: unknown): Payload => defaultPayloadConverter.toPayload(v);

describe('payload codec', () => {
  it('seals the whole payload: only the encrypted encoding and the key id are left in clear', async () => {
    const [sealed] = await new EncryptionCodec(parseKeyRing(k1)).encode([toPayload(customer)]);
    expect(Object.keys(sealed!.metadata!).sort()).toEqual([KEY_ID_METADATA, 'encoding'].sort());
    expect(text(sealed!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(sealed!.metadata![KEY_ID_METADATA])).toBe('k1');
    const raw = Buffer.from(sealed!.data!).toString('latin1');
    for (const clear of ['+225', '0700000000', 'Awa', 'json/plain']) expect(raw).not.toContain(clear);
  });

  it('rotation: the newest key seals, an older key of the ring still opens', async () => {
    const before = new EncryptionCodec(parseKeyRing(k1));
    const after = new EncryptionCodec(parseKeyRing(`${k2},${k1}`));
    const old = await before.encode([toPayload(customer)]);
    const [opened] = await after.decode(old);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(customer);

    const fresh = await after.encode([toPayload(customer)]);
    expect(text(fresh[0]!.metadata![KEY_ID_METADATA])).toBe('k2');
    // A process that never got the new key cannot open what it sealed: rotate readers first.
    await expect(before.decode(fresh)).rejects.toThrow(PayloadCodecError);
    // Once k1 is dropped, its payloads no longer open.
    await expect(new EncryptionCodec(parseKeyRing(k2)).decode(old)).rejects.toThrow(/no key "k1"/);
  });

  it('refuses a tampered payload or one whose key id was changed', async () => {
    const codec = new EncryptionCodec(parseKeyRing(`${k2},${k1}`));
    const [sealed] = await codec.encode([toPayload(customer)]);
    const flipped = Buffer.from(sealed!.data!);
    flipped[flipped.length - 20]! ^= 1;
    await expect(codec.decode([{ ...sealed!, data: flipped }])).rejects.toThrow(PayloadCodecError);
    const relabelled = {
      ...sealed!,
      metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('k1') },
    };
    await expect(codec.decode([relabelled])).rejects.toThrow(PayloadCodecError);
    const truncated = { ...sealed!, data: Buffer.from(sealed!.data!).subarray(0, 20) };
    await expect(codec.decode([truncated])).rejects.toThrow(/truncated/);
  });

  it('passes payloads without the encrypted encoding through (histories written before the codec)', async () => {
    const plain = toPayload(customer);
    const [out] = await new EncryptionCodec(parseKeyRing(k1)).decode([plain]);
    expect(out).toBe(plain);
  });

  it('decodes a fetched history in place, failure messages included', async () => {
    const codec = new EncryptionCodec(parseKeyRing(k1));
    const failure = failureConverter.errorToFailure(
      new Error(`operator refused ${customer.msisdn}`),
      defaultPayloadConverter,
    );
    expect(failure.message).toBe('Encoded failure');
    failure.encodedAttributes = (await codec.encode([failure.encodedAttributes!]))[0];
    const history = {
      events: [
        {
          workflowExecutionStartedEventAttributes: {
            input: { payloads: await codec.encode([toPayload(customer)]) },
          },
        },
        { activityTaskFailedEventAttributes: { failure } },
      ],
    };
    expect(JSON.stringify(history)).not.toContain('0700000000');
    await decodeHistoryPayloads(history, [codec]);
    const input = history.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!;
    expect(defaultPayloadConverter.fromPayload(input)).toEqual(customer);
    expect(history.events[1]!.activityTaskFailedEventAttributes!.failure.message).toBe(
      `operator refused ${customer.msisdn}`,
    );
  });
});

describe('codec server', () => {
  const token = 't'.repeat(40);
  const ui = 'https://temporal-ui.example';
  const ring = parseKeyRing(`${k2},${k1}`);
  const codec = new EncryptionCodec(ring);
  const app = (openToLoopback = false) =>
    createCodecServerApp({ codec, tokens: [token, 'u'.repeat(40)], origins: [ui], openToLoopback });
  const asJson = (p: Payload) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
    data: Buffer.from(p.data!).toString('base64'),
  });
  const sealedBody = async () => ({ payloads: (await codec.encode([toPayload(customer)])).map(asJson) });

  it('decodes for a bearer token: the protobuf JSON form in, the clear payload out', async () => {
    const res = await request(app())
      .post('/decode')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Namespace', 'default')
      .send(await sealedBody());
    expect(res.status).toBe(200);
    const [p] = res.body.payloads as { metadata: Record<string, string>; data: string }[];
    expect(Buffer.from(p!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(p!.data, 'base64').toString())).toEqual(customer);
  });

  it('encodes too (the UI encodes what it sends: signals, updates), with the newest key', async () => {
    const res = await request(app())
      .post('/encode')
      .set('Authorization', `bearer ${'u'.repeat(40)}`)
      .send({ payloads: [asJson(toPayload(customer))] });
    expect(res.status).toBe(200);
    expect(Buffer.from(res.body.payloads[0].metadata[KEY_ID_METADATA], 'base64').toString()).toBe('k2');
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', `Bearer ${'x'.repeat(40)}`],
    ['a token prefix', `Bearer ${token.slice(0, 39)}`],
    ['another scheme', `Basic ${token}`],
  ])('answers 401 with %s', async (_label, authorization) => {
    const req = request(app()).post('/decode');
    if (authorization) req.set('Authorization', authorization);
    const res = await req.send(await sealedBody());
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(res.body)).not.toContain('0700000000');
  });

  it('answers the UI origin preflight (X-Namespace, Authorization), not another origin', async () => {
    const ok = await request(app())
      .options('/decode')
      .set('Origin', ui)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-namespace,authorization');
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(ui);
    expect(ok.headers['access-control-allow-headers']).toMatch(/X-Namespace/);
    expect(ok.headers['access-control-allow-headers']).toMatch(/Authorization/);
    const other = await request(app()).options('/decode').set('Origin', 'https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('development (openToLoopback): a loopback caller from the UI origin or no browser needs no token; another origin does', async () => {
    const body = await sealedBody();
    expect((await request(app(true)).post('/decode').set('Origin', ui).send(body)).status).toBe(200);
    expect((await request(app(true)).post('/decode').send(body)).status).toBe(200);
    const foreign = await request(app(true)).post('/decode').set('Origin', 'https://evil.example').send(body);
    expect(foreign.status).toBe(401);
    // Not open: the same loopback caller needs its token.
    expect((await request(app(false)).post('/decode').set('Origin', ui).send(body)).status).toBe(401);
  });

  it('answers 400 for a malformed body or a payload it cannot open, without its content', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    expect((await request(app()).post('/decode').set(auth).send({ payload: [] })).status).toBe(400);
    expect(
      (
        await request(app())
          .post('/decode')
          .set(auth)
          .send({ payloads: [{ data: 'not base64!' }] })
      ).status,
    ).toBe(400);
    const body = await sealedBody();
    body.payloads[0]!.metadata[KEY_ID_METADATA] = Buffer.from('gone').toString('base64');
    const res = await request(app()).post('/decode').set(auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/could not be decoded/);
  });
});
