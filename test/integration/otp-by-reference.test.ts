import type { LoadedDataConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { eventually } from '../helpers/http';
import { testPayinService } from '../helpers/services';
import type { TestStack } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';
import { historyToJson } from '../helpers/history-json';
import type { PayinWorkflowInput, SessionConfirmation } from '../../workflows/payin/payin-api';
import { OtpStore } from '../../src/persistence/otp-store';

// "OTPs never enter history" (issue 16): the API stores an Orange OTP sealed, with a short lifetime,
// and the workflow carries its id only; the activity reads it by id; the workflow deletes it once
// used, or when its lifetime is over even if never used. On the real stack: HTTP, worker, simulator,
// FerretDB, the time-skipping test server.

type Payload = temporal.api.common.v1.IPayload;
type History = temporal.api.history.v1.IHistory;

// 8 digits: no chance of appearing by accident in the hex ids of a history.
const OTP = '73914682';

/** Every payload of a history (inputs, results, Update arguments, failure details), decoded as JSON text. */
async function decodedPayloads(stack: TestStack, history: History): Promise<string[]> {
  const { loadedDataConverter: dc } = stack.env.client.workflow.options as unknown as {
    loadedDataConverter: LoadedDataConverter;
  };
  const found: Payload[] = [];
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || node instanceof Uint8Array) return;
    const o = node as Record<string, unknown>;
    if (o.data instanceof Uint8Array && o.metadata && typeof o.metadata === 'object') found.push(o);
    else for (const v of Object.values(o)) walk(v);
  };
  walk(history);
  const out: string[] = [];
  for (const raw of found) {
    let payloads: Payload[] = [raw];
    for (const codec of [...dc.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    // A void result decodes to undefined.
    out.push(JSON.stringify(dc.payloadConverter.fromPayload(payloads[0]!)) ?? '');
  }
  return out;
}

/** The raw history as Temporal's tools export it, and each payload decoded. */
async function historyOf(stack: TestStack, workflowId: string) {
  const history = await stack.env.client.workflow.getHandle(workflowId).fetchHistory();
  return { raw: historyToJson(history), decoded: await decodedPayloads(stack, history) };
}

const otpDocs = (stack: TestStack) => stack.mongo.db!.collection<{ _id: string }>('otps');

describe('OTPs by reference', () => {
  // The operator behind the fault proxy: one test keeps it from ever answering.
  const { stack, merchant, api, anonymous: customer } = useStack({ operatorProxy: true });

  const direct = (reference: string, msisdn = '+2250700000001') => ({
    reference,
    sandboxScenario: 'completed',
    payin: { amount: 1000, msisdn, provider: 'ORANGE', country: 'CI', otp: OTP },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
  });
  const statusOf = (reference: string, done: (s: string) => boolean) =>
    eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => done(r.body.status),
    );

  it('a direct Orange payin completes; its history holds the OTP id, never the OTP, and the OTP is deleted once used', async () => {
    const created = await api.post('/v1/direct/payin', direct('otp-direct-1'));
    expect(created.status).toBe(201);
    await statusOf('otp-direct-1', (s) => s === 'success');

    const workflowId = `payin:${merchant.merchantId}:otp-direct-1`;
    const { raw, decoded } = await historyOf(stack, workflowId);
    expect(raw).not.toContain(OTP);
    for (const p of decoded) expect(p).not.toContain(OTP);
    const input = JSON.parse(decoded[0]!) as PayinWorkflowInput;
    expect(input.collection).not.toHaveProperty('otp');
    const otpId = input.collection!.otpId!;
    expect(otpId).toMatch(/^otp_[0-9a-f]{32}$/);
    // Deleted by the workflow once the operator acknowledged the request.
    await eventually(
      () => otpDocs(stack).countDocuments({ _id: otpId }),
      (n) => n === 0,
    );
    expect(raw).toContain('forgetOtp');
  });

  it('a session confirmed with an Orange OTP completes; the Update carries the OTP id only', async () => {
    const session = await api.post('/v1/payin/sessions', {
      reference: 'otp-session-1',
      sandboxScenario: 'completed',
      amount: 1000,
      msisdn: '+2250700000001',
      country: 'CI',
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(session.status).toBe(201);
    const confirmed = await customer.request('POST', `/checkout/${session.body.id}/confirm`, {
      provider: 'ORANGE',
      msisdn: '+2250700000001',
      otp: OTP,
    });
    expect(confirmed.status).toBe(200);
    await statusOf('otp-session-1', (s) => s === 'success');

    const { raw, decoded } = await historyOf(stack, `payin:${merchant.merchantId}:otp-session-1`);
    expect(raw).not.toContain(OTP);
    for (const p of decoded) expect(p).not.toContain(OTP);
    const choice = decoded
      .map((p) => (p ? (JSON.parse(p) as unknown) : null))
      .find((v): v is SessionConfirmation => (v as SessionConfirmation | null)?.provider === 'ORANGE')!;
    expect(choice).not.toHaveProperty('otp');
    expect(choice.otpId).toMatch(/^otp_/);
    await eventually(
      () => otpDocs(stack).countDocuments({ _id: choice.otpId! }),
      (n) => n === 0,
    );
  });

  it('a retried creation that finds its workflow started deletes the OTP it stored again', async () => {
    const payins = testPayinService(stack, {
      temporal: stack.env.client,
      otps: OtpStore.on(stack.mongo, stack.config.DATA_ENCRYPTION_KEYS, stack.config.OTP_LIFETIME),
    });
    const body = { ...direct('otp-retried-1'), customerName: 'Awa' } as never;
    await payins.createDirect(merchant.merchantId, body, 'key-otp-retried-1', 'fp-1');
    const before = new Set((await otpDocs(stack).find({}).toArray()).map((d) => d._id));
    // The same request again (its answer lost): the payin and its workflow exist already.
    const again = await payins.createDirect(merchant.merchantId, body, 'key-otp-retried-1', 'fp-1');
    expect(again.created).toBe(false);
    const after = (await otpDocs(stack).find({}).toArray()).map((d) => d._id);
    expect(after.filter((id) => !before.has(id))).toEqual([]);
    await statusOf('otp-retried-1', (st) => st === 'success');
  });

  it('a confirm the session no longer accepts leaves no OTP behind', async () => {
    const session = await api.post('/v1/payin/sessions', {
      reference: 'otp-session-closed',
      amount: 1000,
      msisdn: '+2250700000001',
      country: 'CI',
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    const path = `/checkout/${session.body.id}`;
    expect((await customer.request('POST', `${path}/decline`, {})).status).toBe(200);
    const before = await otpDocs(stack).countDocuments({});
    const late = await customer.request('POST', `${path}/confirm`, {
      provider: 'ORANGE',
      msisdn: '+2250700000001',
      otp: OTP,
    });
    expect(late.status).toBe(409);
    expect(await otpDocs(stack).countDocuments({})).toBe(before);
  });

  it('an OTP never used (the operator never answers) is deleted when its lifetime is over', async () => {
    const msisdn = '+2250700000077';
    // Every collection request for this number fails before the operator: never acknowledged.
    stack.proxy!.add({
      method: 'POST',
      path: '/collections',
      body: msisdn,
      fault: { kind: 'error', status: 503 },
      times: Infinity,
    });
    const created = await api.post('/v1/direct/payin', direct('otp-unused-1', msisdn));
    expect(created.status).toBe(201);
    const workflowId = `payin:${merchant.merchantId}:otp-unused-1`;
    const input = JSON.parse((await historyOf(stack, workflowId)).decoded[0]!) as PayinWorkflowInput;
    const otpId = input.collection!.otpId!;
    // Stored sealed: nothing of the OTP in clear in the database.
    const doc = await otpDocs(stack).findOne({ _id: otpId });
    expect(JSON.stringify(doc)).not.toContain(OTP);

    // OTP_LIFETIME (5 min) passes in workflow time; the payin itself waits until PAYIN_EXPIRY (15 min).
    await stack.env.sleep(4 * 60_000);
    expect(await otpDocs(stack).countDocuments({ _id: otpId })).toBe(1);
    await stack.env.sleep(2 * 60_000);
    await eventually(
      () => otpDocs(stack).countDocuments({ _id: otpId }),
      (n) => n === 0,
    );
    expect((await api.get('/v1/payin/otp-unused-1')).body.status).toBe('processing');
    stack.proxy!.clear();
  });
});

describe('an OTP gone before the operator was asked', () => {
  // Expired by the time the activity reads it.
  const { stack, api } = useStack({ config: { OTP_LIFETIME: '1ms' } });

  it('fails the payin with OTP_EXPIRED, a definitive failure, without asking the operator', async () => {
    const created = await api.post('/v1/direct/payin', {
      reference: 'otp-expired-1',
      sandboxScenario: 'completed',
      payin: { amount: 1000, msisdn: '+2250700000001', provider: 'ORANGE', country: 'CI', otp: OTP },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    const done = await eventually(
      () => api.get('/v1/payin/otp-expired-1'),
      (r) => r.body.status === 'failed',
    );
    expect(done.body.failure).toMatchObject({ code: 'OTP_EXPIRED', provider: 'ORANGE_CI' });
    // Never sent: the operator does not know the collection.
    const known = await fetch(
      `${stack.config.OPERATOR_BASE_URL}/operators/ORANGE/collections/${created.body.id}?country=CI`,
    );
    expect(known.status).toBe(404);
  });
});
