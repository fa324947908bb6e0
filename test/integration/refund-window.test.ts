import { merchantOfScope } from '../../src/domain/modes';
import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { moveRefundWindow } from '../helpers/refund-window';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { Ledger } from '../../src/ledger';

// The refund window is a date on the payin's record (`refundableUntil`), written with its success
// from the window in force (REFUND_WINDOW, or the merchant's own); the API and the payin's refund
// desk refuse a refund past it. The tests move that date, as time passing would (the time-skipping
// server moves workflow time, not the wall clock the window is checked with).
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
  const payins = () => stack.mongo.collection('transactions');
  /** The window's end as written with the success, and a setter that moves it (as days passing would). */
  const windowOf = async (m: TestMerchant, reference: string) => {
    const doc = await payins().findOne({ merchantId: m.merchantId, kind: 'payin', reference });
    const id = String(doc?.id);
    const until = new Date(doc!.refundableUntil as Date);
    return {
      length: until.getTime() - new Date(doc!.createdAt as Date).getTime(),
      // Past days: the end moves that much closer (the document and its state versions alike).
      pass: (ms: number) => moveRefundWindow(stack.mongo, id, new Date(until.getTime() - ms)),
    };
  };
  const expectConsistent = async (m: TestMerchant) => {
    const v = await ledger.verify((await ledger.mainAccount(m.merchantId, 'XOF')).id);
    expect(v.balance).toBe(v.sumOfEntries);
  };

  it('accepts a refund on day 6 and refuses one on day 8 (default 7 days)', async () => {
    const merchant = await createTestMerchant(stack);
    const { api, reference } = await paidPayin(merchant);
    const window = await windowOf(merchant, reference);
    expect(Math.abs(window.length - 7 * DAY)).toBeLessThan(60_000);

    await window.pass(6 * DAY);
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

    await window.pass(8 * DAY);
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
    const window = await windowOf(merchant, reference);
    expect(Math.abs(window.length - 2 * DAY)).toBeLessThan(60_000);

    await window.pass(DAY);
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

    await window.pass(3 * DAY);
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
