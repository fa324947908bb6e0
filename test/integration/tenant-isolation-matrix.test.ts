import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant, fundMerchant } from '../helpers/merchants';
import { useStack } from '../helpers/use-stack';
import { routeKeys, routeTable, splitRouteKey, type RouteRule } from '../../src/contract/access/routes';

// The public API's tenant isolation (OWASP API1, API5), generated from the route table: every /v1
// route with an id in its path, merchant A's keys (test and live) on merchant B's real objects
// answer 404, as for an id that does not exist. A new route with an id needs an object of B here
// (`idFor` throws otherwise), so it cannot ship unchecked.

jest.setTimeout(300_000);

const { stack, merchant: a } = useStack({ config: { RATE_LIMIT_PER_MINUTE: '0' } });

const ref = (p: string) => `${p}-${randomUUID().slice(0, 8)}`;

describe('tenant isolation of the public API', () => {
  it("merchant A's keys, both modes, on every route with an id of merchant B's objects: 404", async () => {
    const b = await createTestMerchant(stack, 'Merchant Bee');
    await fundMerchant(stack, b.merchantId, 100_000);
    const bApi = new ApiClient(stack.baseUrl, b.credentials);

    const payinRef = ref('b-payin');
    expect(
      (
        await bApi.post('/v1/direct/payin', {
          reference: payinRef,
          customerName: 'Awa Koné',
          payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
          action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
          sandboxScenario: 'completed',
        })
      ).status,
    ).toBe(201);
    await eventually(
      () => bApi.get(`/v1/payin/${payinRef}`),
      (r) => r.body.status === 'success',
    );
    const refund = await bApi.post(`/v1/payin/${payinRef}/refund`, {
      reason: 'customer returned the goods',
      externalReference: ref('ext'),
    });
    expect(refund.status).toBe(201);
    const payoutRef = ref('b-payout');
    const payout = await bApi.post('/v1/direct/payout', {
      reference: payoutRef,
      customerName: 'Awa Koné',
      payout: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });
    expect(payout.status).toBe(201);
    const payout2Ref = ref('b-payout2');
    const payout2 = await bApi.post('/v1/payout', {
      reference: payout2Ref,
      amount: 1000,
      msisdn: '+2250700000001',
      country: 'CI',
      sandboxScenario: 'failed',
    });
    expect(payout2.status).toBe(201);
    const batch = await bApi.post('/v1/payouts/bulk', {
      items: [{ reference: ref('b-bulk'), amount: 1000, msisdn: '+2250700000002', country: 'CI' }],
    });
    expect(batch.status).toBe(201);
    const accounts = await bApi.get('/v1/accounts');
    const accountId = (accounts.body.data as { id: string }[])[0]!.id;
    const statement = await bApi.post('/v1/statements', {
      accountId,
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
      format: 'csv',
    });
    expect(statement.status).toBe(202);
    const webhook = await bApi.post('/v1/webhooks', { url: 'https://bee.example/hook' });
    expect(webhook.status).toBe(201);
    const link = await bApi.post('/v1/payment-links', {
      title: 'B link',
      amount: { type: 'fixed', value: 1000 },
      currency: 'XOF',
      countries: ['CI'],
    });
    expect(link.status).toBe(201);
    const events = await eventually(
      () => bApi.get(`/v1/events?reference=${payinRef}&limit=10`),
      (r) => r.body.data.length > 0,
    );

    const b_ = {
      payin: payinRef,
      refund: refund.body.reference as string,
      payout: payoutRef,
      payout2: payout2Ref,
      batch: batch.body.id as string,
      account: accountId,
      statement: statement.body.id as string,
      webhook: webhook.body.id as string,
      link: link.body.id as string,
      event: (events.body.data as { id: string }[])[0]!.id,
    };
    const idFor = (path: string): string => {
      if (/^\/v1\/(sandbox\/)?payins?\//.test(path)) return b_.payin;
      if (/^\/v1\/(sandbox\/)?refunds\//.test(path)) return b_.refund;
      if (/^\/v1\/payouts\/bulk\//.test(path)) return b_.batch;
      if (path.startsWith('/v1/payout/')) return b_.payout2;
      if (/^\/v1\/(direct\/payout|sandbox\/payouts)\//.test(path)) return b_.payout;
      if (path.startsWith('/v1/accounts/')) return b_.account;
      if (path.startsWith('/v1/statements/')) return b_.statement;
      if (path.startsWith('/v1/webhooks/')) return b_.webhook;
      if (path.startsWith('/v1/events/')) return b_.event;
      if (path.startsWith('/v1/payment-links/')) return b_.link;
      throw new Error(`no object of merchant B for ${path}: add one to this test`);
    };

    const rows = routeKeys.filter((k) => {
      const rule = routeTable[k] as RouteRule;
      return rule.access === 'merchant' && splitRouteKey(k)[1].includes('/:');
    });
    expect(rows.length).toBeGreaterThan(20);
    // A valid body, so the answer is the lookup's, not the validation's.
    const bodyFor = (pattern: string): unknown => {
      if (pattern.endsWith('/refund')) return { reason: 'not yours', externalReference: ref('ext') };
      if (pattern.endsWith('/replay'))
        return {
          from: new Date(Date.now() - 3_600_000).toISOString(),
          to: new Date().toISOString(),
          dryRun: true,
        };
      if (/^\/v1\/sandbox\/.*\/settle$/.test(pattern)) return { outcome: 'failed' };
      // A change names at least one field (PATCH /v1/webhooks/:id).
      if (pattern === '/v1/webhooks/:id') return { description: 'not yours' };
      if (pattern === '/v1/payment-links/:id') return { title: 'not yours' };
      return {};
    };
    const leaks: string[] = [];
    for (const key of rows) {
      const [method, pattern] = splitRouteKey(key);
      const path = pattern.replace(/:[A-Za-z]+/g, encodeURIComponent(idFor(pattern)));
      // B's own key reads each object (the ids are real).
      if (method === 'GET') {
        const own = await bApi.get(path);
        if (own.status !== 200) leaks.push(`B's own ${method} ${path}: ${own.status}`);
      }
      for (const [mode, credentials] of [
        ['test', a.credentials],
        ['live', a.live.credentials],
      ] as const) {
        const res = await new ApiClient(stack.baseUrl, credentials).request(
          method,
          path,
          method === 'GET' || method === 'DELETE' ? undefined : bodyFor(pattern),
        );
        // A live key never reaches a test helper (refused before any lookup).
        const sandboxRefusal = mode === 'live' && pattern.startsWith('/v1/sandbox/') && res.status === 403;
        if (res.status !== 404 && !sandboxRefusal)
          leaks.push(`A (${mode}) ${method} ${path}: ${res.status} ${String(res.body?.code)}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
