import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { Ledger } from '../../src/ledger';

// Direct payins through HTTP, the worker, the operator simulator and FerretDB: every operator and
// country, every scenario, expiry, and the 48-hour correction, with time skipping for the long waits.
const HOUR = 3_600_000;

describe('direct payin lifecycle', () => {
  const { stack, merchant, api } = useStack({ config: { PAYIN_EXPIRY: '10m' } });
  let ledger: Ledger;

  beforeAll(() => {
    ledger = Ledger.on(stack.mongo);
  });

  let seq = 0;
  const payin = (
    p: { provider: string; country: string; msisdn: string; amount?: number; otp?: string },
    scenario?: string,
  ) => ({
    reference: `pay-${++seq}`,
    ...(scenario ? { sandboxScenario: scenario } : {}),
    customerName: 'Awa Koné',
    payin: {
      amount: p.amount ?? 1000,
      msisdn: p.msisdn,
      provider: p.provider,
      country: p.country,
      ...(p.otp ? { otp: p.otp } : {}),
    },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
  });
  const statusOf = (reference: string, done: (s: string) => boolean, timeoutMs?: number) =>
    eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => done(r.body.status),
      timeoutMs,
    );
  const balance = async (currency: 'XOF' | 'XAF') =>
    (await ledger.verify((await ledger.mainAccount(merchant.merchantId, currency)).id)).balance;

  const operators = [
    { provider: 'ORANGE', country: 'CI', msisdn: '+2250700000001', otp: '1234', currency: 'XOF' as const },
    { provider: 'MTN', country: 'CI', msisdn: '+2250500000001', currency: 'XOF' as const },
    { provider: 'MOOV', country: 'CI', msisdn: '+2250100000001', currency: 'XOF' as const },
    { provider: 'WAVE', country: 'CI', msisdn: '+2250700000002', currency: 'XOF' as const },
    { provider: 'ORANGE', country: 'CM', msisdn: '+237690000001', otp: '1234', currency: 'XAF' as const },
    { provider: 'MTN', country: 'CM', msisdn: '+237670000001', currency: 'XAF' as const },
  ];

  it.each(operators)('$provider in $country: completes, and credits the merchant once', async (op) => {
    const before = await balance(op.currency);
    const body = payin(op);
    const created = await api.post('/v1/direct/payin', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'processing',
      confirmationStatus: 'none',
      confirmationRequired: true,
      currency: op.currency,
      mobileMoney: { provider: { name: `${op.provider}_${op.country}` } },
    });
    // WAVE: the redirect to Wave's page is in the creation answer; MTN/MOOV CI: the USSD fallback.
    if (op.provider === 'WAVE') expect(created.body.paymentUrl).toMatch(/\/wave\/checkout\//);
    else expect(created.body.paymentUrl).toBeNull();
    const ussd = ({ MTN_CI: '*133#', MOOV_CI: '*155#' } as Record<string, string>)[
      `${op.provider}_${op.country}`
    ];
    expect(created.body.ussdCode).toBe(ussd);
    const done = await statusOf(body.reference, (s) => s === 'success');
    expect(done.body).toMatchObject({ confirmationStatus: 'accepted', failure: null });
    if (op.provider === 'WAVE') expect(done.body.paymentUrl).toMatch(/^http/);
    const net = created.body.payFee ? created.body.amount - created.body.fee : created.body.amount;
    await eventually(
      () => balance(op.currency),
      (b) => b === before + net,
    );
  });

  it('a declined payin fails with details, is never credited, and is not re-checked', async () => {
    const before = await balance('XOF');
    const body = payin(operators[1]!, 'failed');
    await api.post('/v1/direct/payin', body);
    const done = await statusOf(body.reference, (s) => s === 'failed');
    expect(done.body.failure).toEqual({
      code: 'PAYER_DECLINED',
      message: expect.any(String),
      provider: 'MTN_CI',
    });
    expect(done.body.confirmationStatus).toBe('declined');
    await stack.env.sleep(49 * HOUR);
    expect((await api.get(`/v1/payin/${body.reference}`)).body.status).toBe('failed');
    expect(await balance('XOF')).toBe(before);
  });

  it('a wrong Orange OTP fails the payin', async () => {
    const body = payin({ ...operators[0]!, otp: '000000' });
    await api.post('/v1/direct/payin', body);
    const done = await statusOf(body.reference, (s) => s === 'failed');
    expect(done.body.failure).toMatchObject({ code: 'OTP_INVALID', provider: 'ORANGE_CI' });
  });

  it('a payin nobody answers expires after PAYIN_EXPIRY', async () => {
    const body = payin(operators[2]!, 'pending');
    await api.post('/v1/direct/payin', body);
    await eventually(
      () => api.get(`/v1/payin/${body.reference}`),
      (r) => r.body.confirmationStatus === 'pending',
    );
    await stack.env.sleep(11 * 60_000);
    const done = await statusOf(body.reference, (s) => s !== 'processing');
    expect(done.body.status).toBe('expired');
    expect(done.body.failure).toMatchObject({ code: 'EXPIRED' });
  });

  it('finds the result by polling when the operator never calls back', async () => {
    const body = payin({ ...operators[1]!, msisdn: '+2250500009903' });
    await api.post('/v1/direct/payin', body);
    await stack.env.sleep(60_000); // the first polls are 5 s and 10 s apart
    await statusOf(body.reference, (s) => s === 'success');
  });

  it('corrects a failed payin to success when the partner confirms at hour 30, before hour 48', async () => {
    const before = await balance('XOF');
    const body = payin({ ...operators[1]!, msisdn: '+2250500009901', amount: 2500 });
    const created = await api.post('/v1/direct/payin', body);
    const failed = await statusOf(body.reference, (s) => s === 'failed');
    expect(failed.body.failure).toMatchObject({ code: 'OPERATOR_TIMEOUT' });
    const failedAt = await stack.env.currentTimeMs();

    await stack.env.sleep(30 * HOUR);
    expect((await api.get(`/v1/payin/${body.reference}`)).body.status).toBe('failed');
    const mark = await fetch(`${stack.simulator.url}/_sandbox/collections/${created.body.id}/collected`, {
      method: 'POST',
    });
    expect(mark.ok).toBe(true);

    await stack.env.sleep(3 * HOUR); // partner checks are at most 2 hours apart
    const corrected = await statusOf(body.reference, (s) => s === 'success');
    expect(corrected.body).toMatchObject({ failure: null, confirmationStatus: 'accepted' });
    expect((await stack.env.currentTimeMs()) - failedAt).toBeLessThan(48 * HOUR);
    const net = created.body.payFee ? created.body.amount - created.body.fee : created.body.amount;
    await eventually(
      () => balance('XOF'),
      (b) => b === before + net,
    );
    // Credited exactly once, however long the workflow lives on.
    await stack.env.sleep(24 * HOUR);
    expect(await balance('XOF')).toBe(before + net);
  });

  it('leaves a failed payin failed, with no credit, when the partner never confirms within 48 hours', async () => {
    const before = await balance('XOF');
    const body = payin({ ...operators[1]!, msisdn: '+2250500009901' });
    await api.post('/v1/direct/payin', body);
    await statusOf(body.reference, (s) => s === 'failed');
    await stack.env.sleep(49 * HOUR);
    const after = await api.get(`/v1/payin/${body.reference}`);
    expect(after.body.status).toBe('failed');
    expect(await balance('XOF')).toBe(before);
    const handle = stack.env.client.workflow.getHandle(`payin:${merchant.merchantId}:${body.reference}`);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });
});

describe('a WAVE payin whose operator is slow to give its redirect', () => {
  // The 9904 number's first answer takes 1.5 s (past the gateway's 1 s): the redirect comes later.
  const { api } = useStack({ config: { OPERATOR_ANSWER_WAIT: '300ms' } });

  it('is created without waiting past OPERATOR_ANSWER_WAIT; the paymentUrl appears in GET', async () => {
    const created = await api.post('/v1/direct/payin', {
      reference: 'wave-slow',
      customerName: 'Awa Koné',
      payin: { amount: 1000, msisdn: '+2250100009904', provider: 'WAVE', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    // Without the bound the request would have waited for the retried operator call and carried it.
    expect(created.body.paymentUrl).toBeNull();
    const later = await eventually(
      () => api.get('/v1/payin/wave-slow'),
      (r) => typeof r.body.paymentUrl === 'string',
    );
    expect(later.body.paymentUrl).toMatch(/\/wave\/checkout\//);
  });
});
