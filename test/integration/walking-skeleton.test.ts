import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { transactionRecord } from '../../src/contract/schemas/transaction-record';

// One payin through every layer: HTTP -> MongoDB -> Temporal workflow -> activity -> operator -> read.
describe('walking skeleton: a direct payin end to end', () => {
  const { stack, merchant, api } = useStack();

  const payin = (reference: string, sandboxScenario = 'completed') => ({
    reference,
    sandboxScenario,
    customerName: 'Awa Koné',
    payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  });

  it('creates a payin, runs its workflow to success, and reads it back', async () => {
    const created = await api.post('/v1/direct/payin', payin('order-1001'));
    expect(created.status).toBe(201);
    expect(transactionRecord.parse(created.body)).toMatchObject({
      type: 'payin',
      reference: 'order-1001',
      status: 'processing',
      confirmationRequired: true,
      confirmationStatus: 'none',
      amount: 5000,
      currency: 'XOF',
      mobileMoney: { provider: { name: 'MTN_CI' } },
      failure: null,
    });
    expect(created.body.id).toMatch(/^pr_/);
    expect(created.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await eventually(
      () => api.get('/v1/payin/order-1001'),
      (r) => r.body.status === 'success',
    );
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);

    // The workflow is visible to ops, with its search attributes, and ends after the refund window.
    const handle = stack.env.client.workflow.getHandle(`payin:${merchant.merchantId}:order-1001`);
    const description = await handle.describe();
    expect(
      description.typedSearchAttributes.get(
        (await import('../../workflows/shared/search-attributes')).saReference,
      ),
    ).toBe('order-1001');
    expect(description.memo).toMatchObject({ amount: 5000, currency: 'XOF' });
    await expect(handle.result()).resolves.toMatchObject({ status: 'success' });
  });

  it('records a failed payin with its failure details', async () => {
    await api.post('/v1/direct/payin', payin('order-1002', 'failed'));
    const read = await eventually(
      () => api.get('/v1/payin/order-1002'),
      (r) => r.body.status === 'failed',
    );
    expect(read.body.failure).toEqual({
      code: 'PAYER_DECLINED',
      message: expect.any(String),
      provider: 'MTN_CI',
    });
  });

  it('answers 404 problem+json for an unknown reference', async () => {
    const res = await api.get('/v1/payin/nope', { 'accept-language': 'fr' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'PAYMENT_NOT_FOUND', title: 'Paiement introuvable' });
  });

  it('rejects bad input with 400, never a 500', async () => {
    const bad = await api.post('/v1/direct/payin', { ...payin('order-1003'), payin: { amount: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['payin.amount', 'payin.msisdn', 'payin.provider', 'payin.country']),
    );
    const malformed = await api.post('/v1/direct/payin', '{"reference":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('MALFORMED_JSON');
  });

  it('serves health checks', async () => {
    const ready = await api.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { mongo: true, temporal: true } });
  });
});
