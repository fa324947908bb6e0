import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant, fundMerchant } from '../helpers/merchants';
import { Ledger } from '../../src/ledger';
import { MerchantService } from '../../src/merchants';
import { merchantOfScope } from '../../src/domain/modes';

// Issue 19 through HTTP on the real servers: the merchant's metadata on every creation, who pays a
// payin's fee, and GET /v1/transactions (filters, cursor, tenant isolation). Responses are checked
// against the OpenAPI document by the client.

const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };

describe('merchant operations', () => {
  const { stack, merchant, api } = useStack({ merchantPerTest: true });
  let ledger: Ledger;
  beforeAll(() => {
    ledger = Ledger.on(stack.mongo);
  });
  const balance = async () => (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance;
  const ref = (p: string) => `${p}-${randomUUID().slice(0, 8)}`;

  async function directPayin(body: Record<string, unknown> = {}, amount = 1000) {
    const reference = ref('mo');
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'completed',
      customerName: 'Awa Koné',
      payin: { amount, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action,
      ...body,
    });
    expect(created.status).toBe(201);
    return { reference, created };
  }
  const succeeded = (reference: string) =>
    eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );

  describe('metadata', () => {
    it('is kept on payins, sessions, payouts and refunds, and shown in their records and events', async () => {
      await fundMerchant(stack, merchant.merchantId, 100_000);
      const { reference, created } = await directPayin({ metadata: { orderId: '1001', channel: 'web' } });
      expect(created.body.metadata).toEqual({ orderId: '1001', channel: 'web' });
      await succeeded(reference);
      expect((await api.get(`/v1/payin/${reference}`)).body.metadata).toEqual({
        orderId: '1001',
        channel: 'web',
      });

      const session = await api.post('/v1/payin/sessions', {
        reference: ref('ms'),
        amount: 1000,
        msisdn: '+2250700000001',
        country: 'CI',
        action,
        metadata: { cart: 'c-7' },
      });
      expect(session.status).toBe(201);
      expect(session.body.metadata).toEqual({ cart: 'c-7' });

      const direct = await api.post('/v1/direct/payout', {
        reference: ref('dp'),
        customerName: 'Yao',
        payout: { amount: 500, msisdn: '+2250700000002', provider: 'ORANGE', country: 'CI' },
        metadata: { batch: 'b1' },
      });
      expect(direct.status).toBe(201);
      expect(direct.body.metadata).toEqual({ batch: 'b1' });
      const shapeA = await api.post('/v1/payout', {
        reference: ref('pa'),
        amount: 500,
        msisdn: '+2250700000002',
        country: 'CI',
        metadata: { batch: 'b2' },
      });
      expect(shapeA.body.metadata).toEqual({ batch: 'b2' });
      const account = (await api.get('/v1/accounts')).body.data[0].id as string;
      const shapeB = await api.post('/v1/payout', {
        reference: ref('pb'),
        accountId: account,
        amount: 500,
        msisdn: '+2250700000002',
        country: 'CI',
        customerName: 'Yao',
        metadata: { batch: 'b3' },
      });
      expect(shapeB.status).toBe(201);
      expect(shapeB.body.metadata).toEqual({ batch: 'b3' });

      const refund = await api.post(`/v1/payin/${reference}/refund`, {
        amount: 100,
        reason: 'returned',
        externalReference: ref('rf'),
        metadata: { ticket: 'SUP-1' },
      });
      expect(refund.status).toBe(201);
      expect(refund.body.metadata).toEqual({ ticket: 'SUP-1' });
      expect((await api.get(`/v1/refunds/${refund.body.reference}`)).body.metadata).toEqual({
        ticket: 'SUP-1',
      });

      // Events carry the record, metadata included.
      const events = await eventually(
        () => api.get(`/v1/events?reference=${reference}&limit=100`),
        (r) => (r.body.data as { type: string }[]).some((e) => e.type === 'payin.completed'),
      );
      const byType = Object.fromEntries(
        (events.body.data as { type: string; data: { metadata?: unknown } }[]).map((e) => [
          e.type,
          e.data.metadata,
        ]),
      );
      expect(byType['payin.completed']).toEqual({ orderId: '1001', channel: 'web' });
      expect(byType['refund.processing']).toEqual({ ticket: 'SUP-1' });
    });

    it('refuses bad metadata with a 400 at its field', async () => {
      const long = await api.post('/v1/direct/payin', {
        reference: ref('bad'),
        payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        metadata: { orderId: 'x'.repeat(201) },
      });
      expect(long.status).toBe(400);
      expect(long.body.errors.map((e: { path: string }) => e.path)).toContain('metadata.orderId');
      const many = await api.post('/v1/payin/sessions', {
        reference: ref('bad'),
        amount: 1000,
        msisdn: '+2250700000001',
        country: 'CI',
        action,
        metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])),
      });
      expect(many.status).toBe(400);
      expect(many.body.errors.map((e: { path: string }) => e.path)).toContain('metadata');
      const notText = await api.post('/v1/payout', {
        reference: ref('bad'),
        amount: 500,
        msisdn: '+2250700000002',
        country: 'CI',
        metadata: { n: 5 },
      });
      expect(notText.status).toBe(400);
      expect(notText.body.errors.map((e: { path: string }) => e.path)).toContain('metadata.n');
      // A key a query string or a database would read as syntax is refused at its path.
      const oddKey = await api.post('/v1/payout', {
        reference: ref('bad'),
        amount: 500,
        msisdn: '+2250700000002',
        country: 'CI',
        metadata: { $where: '1', 'a.b': 'x' },
      });
      expect(oddKey.status).toBe(400);
      expect(oddKey.body.errors.map((e: { path: string }) => e.path)).toEqual([
        'metadata.$where',
        'metadata.a.b',
      ]);
    });
  });

  describe('who pays the fee', () => {
    it('payFee true (the default): the customer pays amount, the merchant gets amount - fee', async () => {
      const { reference, created } = await directPayin();
      expect(created.body).toMatchObject({ payFee: true, amount: 1000, fee: 15, chargedAmount: 1000 });
      await succeeded(reference);
      expect(await balance()).toBe(985);
    });

    it('payFee false: the customer pays amount + fee, the merchant gets amount; refunds go up to what was paid', async () => {
      const { reference, created } = await directPayin({ payFee: false });
      expect(created.body).toMatchObject({ payFee: false, amount: 1000, fee: 15, chargedAmount: 1015 });
      await succeeded(reference);
      expect(await balance()).toBe(1000);
      await fundMerchant(stack, merchant.merchantId, 15);
      const tooMuch = await api.post(`/v1/payin/${reference}/refund`, {
        amount: 1016,
        reason: 'returned',
        externalReference: ref('rf'),
      });
      expect(tooMuch.status).toBe(400);
      const full = await api.post(`/v1/payin/${reference}/refund`, {
        reason: 'returned',
        externalReference: ref('rf'),
      });
      expect(full.status).toBe(201);
      expect(full.body).toMatchObject({ amount: 1015, refundType: 'full' });
    });

    it("a session takes the request's payFee, else the merchant's setting", async () => {
      const session = (payFee?: boolean) =>
        api.post('/v1/payin/sessions', {
          reference: ref('fs'),
          amount: 2000,
          msisdn: '+2250700000001',
          country: 'CI',
          action,
          ...(payFee === undefined ? {} : { payFee }),
        });
      expect((await session(false)).body).toMatchObject({ payFee: false, chargedAmount: 2030 });
      expect((await session()).body).toMatchObject({ payFee: true, chargedAmount: 2000 });
      // Changed from another process, as the CLI does: the API reads settings again within
      // AUTH_CACHE_TTL (MerchantService.settingsOf), not necessarily at the next request.
      const merchants = MerchantService.on(stack.mongo);
      await merchants.configure(merchantOfScope(merchant.merchantId), { payFee: false });
      const pause = () => new Promise((r) => setTimeout(r, 1_000));
      const changed = await eventually(
        async () => {
          const r = await session();
          if (r.body.payFee !== false) await pause();
          return r;
        },
        (r) => r.body.payFee === false,
        15_000,
      );
      expect(changed.body).toMatchObject({ payFee: false, chargedAmount: 2030 });
      expect((await session(true)).body).toMatchObject({ payFee: true, chargedAmount: 2000 });
    });
  });

  describe('GET /v1/transactions', () => {
    it('lists payins, payouts and refunds newest first, filters them, pages with a cursor', async () => {
      await fundMerchant(stack, merchant.merchantId, 100_000);
      const first = await directPayin({ metadata: { orderId: 'A-1' } });
      await succeeded(first.reference);
      const second = await directPayin({ sandboxScenario: 'failed', metadata: { orderId: 'A-2' } });
      await eventually(
        () => api.get(`/v1/payin/${second.reference}`),
        (r) => r.body.status === 'failed',
      );
      const payout = await api.post('/v1/payout', {
        reference: ref('sp'),
        amount: 500,
        msisdn: '+2250700000002',
        country: 'CI',
        provider: 'ORANGE',
        metadata: { orderId: 'A-1' },
      });
      expect(payout.status).toBe(201);
      const refund = await api.post(`/v1/payin/${first.reference}/refund`, {
        amount: 100,
        reason: 'returned',
        externalReference: ref('rf'),
        metadata: { orderId: 'A-1' },
      });
      expect(refund.status).toBe(201);
      const list = async (query = '') => {
        const r = await api.get(`/v1/transactions${query}`);
        expect(r.status).toBe(200);
        return r.body as {
          data: { type: string; reference: string; status: string }[];
          nextCursor: string | null;
        };
      };
      const refs = (page: { data: { reference: string }[] }) => page.data.map((d) => d.reference);

      const all = await list();
      expect(refs(all)).toEqual([
        refund.body.reference,
        payout.body.reference,
        second.reference,
        first.reference,
      ]);
      expect(all.data[3]).toMatchObject({ type: 'payin', status: 'success' });
      // The payin's item is its status read, refunds included.
      expect((all.data[3] as unknown as { refunds: unknown[] }).refunds).toHaveLength(1);

      expect(refs(await list('?type=payin'))).toEqual([second.reference, first.reference]);
      expect(refs(await list('?type=refund'))).toEqual([refund.body.reference]);
      expect(refs(await list('?status=failed'))).toEqual([second.reference]);
      expect(refs(await list('?provider=ORANGE_CI'))).toEqual([payout.body.reference]);
      expect(refs(await list('?provider=MTN_CI&type=refund'))).toEqual([refund.body.reference]);
      expect(refs(await list('?country=CM'))).toEqual([]);
      expect(refs(await list('?metadata[orderId]=A-1'))).toEqual([
        refund.body.reference,
        payout.body.reference,
        first.reference,
      ]);
      expect(refs(await list('?metadata[orderId]=A-1&type=payout'))).toEqual([payout.body.reference]);
      expect(refs(await list(`?reference=${first.reference}`))).toEqual([first.reference]);
      expect(refs(await list(`?reference=${refund.body.reference}`))).toEqual([refund.body.reference]);
      const future = new Date(Date.now() + 60_000).toISOString();
      expect(refs(await list(`?from=${encodeURIComponent(future)}`))).toEqual([]);
      expect(refs(await list(`?to=${encodeURIComponent(future)}&limit=1`))).toEqual([refund.body.reference]);

      // Pages of two, in order, then done.
      const p1 = await list('?limit=2');
      expect(refs(p1)).toEqual(refs(all).slice(0, 2));
      const p2 = await list(`?limit=2&cursor=${p1.nextCursor}`);
      expect(refs(p2)).toEqual(refs(all).slice(2, 4));
      expect(p2.nextCursor).toBeNull();

      // A cursor belongs to its filters; bad filters are 400s at their parameter.
      const other = await api.get(`/v1/transactions?type=payin&cursor=${p1.nextCursor}`);
      expect(other.status).toBe(400);
      expect(other.body.errors[0].path).toBe('cursor');
      const bad = await api.get('/v1/transactions?limit=101&type=transfer');
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['limit', 'type']);
    });

    it('filters by provider as requests spell it (MTN) and as records do (MTN_CI)', async () => {
      await fundMerchant(stack, merchant.merchantId, 100_000);
      const payin = await directPayin();
      await succeeded(payin.reference);
      const payout = await api.post('/v1/payout', {
        reference: ref('sp'),
        amount: 500,
        msisdn: '+2250700000002',
        country: 'CI',
        provider: 'ORANGE',
      });
      expect(payout.status).toBe(201);
      const refund = await api.post(`/v1/payin/${payin.reference}/refund`, {
        reason: 'returned',
        externalReference: ref('rf'),
      });
      expect(refund.status).toBe(201);
      const refs = async (query: string) => {
        const r = await api.get(`/v1/transactions${query}`);
        expect(r.status).toBe(200);
        return (r.body.data as { reference: string }[]).map((d) => d.reference);
      };
      const mtn = [refund.body.reference, payin.reference];
      expect(await refs('?provider=MTN_CI')).toEqual(mtn);
      // The operator code alone: in every country it serves, or in the country asked for.
      expect(await refs('?provider=MTN')).toEqual(mtn);
      expect(await refs('?provider=MTN&country=CI')).toEqual(mtn);
      expect(await refs('?provider=MTN&country=CM')).toEqual([]);
      expect(await refs('?provider=MTN&type=refund')).toEqual([refund.body.reference]);
      expect(await refs('?provider=ORANGE')).toEqual([payout.body.reference]);
      expect(await refs('?provider=MOOV&country=CM')).toEqual([]);
      const bad = await api.get('/v1/transactions?provider=MTN_XX');
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('provider');
    });

    it("another merchant's transactions are never listed, even by reference", async () => {
      const { reference } = await directPayin({ metadata: { orderId: 'secret' } });
      const other = await createTestMerchant(stack);
      const otherApi = new ApiClient(stack.baseUrl, other.credentials);
      expect((await otherApi.get('/v1/transactions')).body.data).toEqual([]);
      expect((await otherApi.get(`/v1/transactions?reference=${reference}`)).body.data).toEqual([]);
      expect((await otherApi.get('/v1/transactions?metadata[orderId]=secret')).body.data).toEqual([]);
      // The live mode of the same merchant is another scope too.
      const live = new ApiClient(stack.baseUrl, merchant.live.credentials);
      expect((await live.get(`/v1/transactions?reference=${reference}`)).body.data).toEqual([]);
    });
  });
});
