import { merchantOfScope } from '../../src/domain/modes';
import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { Ledger } from '../../src/ledger';

// The refund window is the payin workflow's durable timer: time skipping moves the clock by days
// (env.sleep; awaiting an Update alone would not skip time).
const DAY = 86_400_000;

describe('refund window', () => {
  const { stack } = useStack({ merchant: false });
  let ledger: Ledger;

  beforeAll(() => {
    ledger = Ledger.on(stack.mongo);
  });

  async function paidPayin(m: TestMerchant): Promise<{ api: ApiClient; reference: string }> {
    const api = new ApiClient(stack.baseUrl, m.credentials);
    const reference = `win-${randomUUID().slice(0, 8)}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
    return { api, reference };
  }
  const expectConsistent = async (m: TestMerchant) => {
    const v = await ledger.verify((await ledger.mainAccount(m.merchantId, 'XOF')).id);
    expect(v.balance).toBe(v.sumOfEntries);
  };

  it('accepts a refund on day 6 and refuses one on day 8 (default 7 days)', async () => {
    const merchant = await createTestMerchant(stack);
    const { api, reference } = await paidPayin(merchant);

    await stack.env.sleep(6 * DAY);
    const day6 = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 200,
      reason: 'late return',
      externalReference: 'day-6',
    });
    expect(day6.status).toBe(201);
    await eventually(
      () => api.get(`/v1/refunds/${day6.body.reference}`),
      (r) => r.body.status === 'completed',
    );

    await stack.env.sleep(2 * DAY);
    const day8 = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 200,
      reason: 'too late',
      externalReference: 'day-8',
    });
    expect(day8.status).toBe(403);
    expect(day8.body.code).toBe('REFUND_NOT_ALLOWED');
    const read = await api.get(`/v1/payin/${reference}`);
    expect(read.body).toMatchObject({ status: 'success', refundedAmount: 200 });
    await expectConsistent(merchant);
  });

  it("follows the merchant's own window (settings.refundWindowDays)", async () => {
    const merchant = await createTestMerchant(stack, 'Two-day window');
    await stack.mongo
      .collection('merchants')
      // The merchant's own document (shared by its test and live modes), not its test scope.
      .updateOne({ id: merchantOfScope(merchant.merchantId) }, { $set: { 'settings.refundWindowDays': 2 } });
    const { api, reference } = await paidPayin(merchant);

    await stack.env.sleep(DAY);
    const day1 = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 100,
      reason: 'return',
      externalReference: 'd-1',
    });
    expect(day1.status).toBe(201);
    await eventually(
      () => api.get(`/v1/refunds/${day1.body.reference}`),
      (r) => r.body.status === 'completed',
    );

    await stack.env.sleep(2 * DAY);
    const day3 = await api.post(`/v1/payin/${reference}/refund`, {
      amount: 100,
      reason: 'return',
      externalReference: 'd-3',
    });
    expect(day3.status).toBe(403);
    expect(day3.body.code).toBe('REFUND_NOT_ALLOWED');
    await expectConsistent(merchant);
  });
});
