import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { freePort, startStack, type TestStack } from '../helpers/stack';
import type { FakeProcess } from '../fakes/spawn';
import { startLiveFakes, type LiveFakes } from '../helpers/live-fakes';
import { RouteBookStore } from '../../src/operators/routes/book';
import { toProviderUuid } from '../../src/operators/provider-ids';
import { renderTimeline, transactionTimeline } from '../../src/cli/timeline';

// Issue 43 §3 over the real servers: MTN CI has two live routes, pawaPay first and MTN MoMo
// second. pawaPay closes MTN CI (it answers REJECTED PROVIDER_TEMPORARILY_UNAVAILABLE and keeps no
// such id) while the worker still holds its published "operational": the payin and the payout
// complete at MTN MoMo, once, after the fence, and pawaPay's books hold neither. The payin's
// refund goes through the route that collected it.

const msisdn = '+2250500000101';

describe('live failover from pawaPay to MTN MoMo for MTN CI', () => {
  let fakes: LiveFakes;
  let stack: TestStack;
  let live: ApiClient;
  let pawapay: FakeProcess;
  let mtn: FakeProcess;
  let merchantId = '';

  beforeAll(async () => {
    const port = await freePort();
    fakes = await startLiveFakes(`http://127.0.0.1:${port}`);
    ({ pawapay, mtn } = fakes);
    stack = await startStack({
      PORT: String(port),
      OPERATOR_ROUTES: JSON.stringify({ '*': 'pawapay', MTN_CI: ['pawapay', 'mtn'] }),
      OPERATOR_FAILOVER_FENCE: '3s',
      // No exploration: a 3 % draw would send a transaction to MTN MoMo first, with no failover.
      OPERATOR_ROUTE_EXPLORATION: '0',
      ...fakes.settings(),
    });
    const merchant = await createTestMerchant(stack, 'Boutique Deux Routes');
    merchantId = merchant.live.merchantId;
    live = new ApiClient(stack.baseUrl, merchant.live.credentials);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await fakes?.stop();
  });

  const settled = (path: string) =>
    eventually(
      () => live.get(path),
      (r) => !['pending', 'processing', 'processed'].includes(r.body.status as string),
      60_000,
    );

  it('a payin, its refund and a payout complete at the second route, once, and at the first never', async () => {
    const direct = (reference: string, amount: number) =>
      live.post('/v1/direct/payin', {
        reference,
        payin: { amount, msisdn, provider: 'MTN', country: 'CI' },
        action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
      });
    // While pawaPay is open, a payin goes to it (ranked first) and funds the payout below; the
    // worker keeps pawaPay's published word for 30 s.
    const funding = `funding-${randomUUID()}`;
    expect((await direct(funding, 50_000)).status).toBe(201);
    expect((await settled(`/v1/payin/${funding}`)).body.status).toBe('success');
    // pawaPay closes MTN CI: it answers REJECTED PROVIDER_TEMPORARILY_UNAVAILABLE and keeps no id.
    // Within the 30 s, the ranking still asks it first: the refusal is what moves the next two.
    for (const operationType of ['DEPOSIT', 'PAYOUT'])
      await fetch(`${pawapay.url}/__fake/availability`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'MTN_MOMO_CIV', operationType, status: 'CLOSED' }),
      });
    const ref = `failover-${randomUUID()}`;
    const payoutRef = `failover-po-${randomUUID()}`;
    const [created, payout] = await Promise.all([
      direct(ref, 20_000),
      live.post('/v1/direct/payout', {
        reference: payoutRef,
        customerName: 'Awa Koné',
        payout: { amount: 1_000, msisdn, provider: 'MTN', country: 'CI' },
      }),
    ]);
    expect([created.status, payout.status]).toEqual([201, 201]);
    expect((await settled(`/v1/payin/${ref}`)).body.status).toBe('success');
    expect((await settled(`/v1/direct/payout/${payoutRef}`)).body.status).toBe('completed');

    const refund = await live.post(`/v1/payin/${ref}/refund`, {
      reason: 'returned',
      amount: 5_000,
      externalReference: `rf-${ref}`,
    });
    expect({ status: refund.status, code: refund.body.code }).toEqual({ status: 201, code: undefined });
    expect((await settled(`/v1/refunds/${refund.body.reference}`)).body.status).toBe('completed');

    // The route book: pawaPay asked first, MTN MoMo took both after the fence, verdicts `go`.
    const book = new RouteBookStore(stack.mongo);
    for (const [kind, id] of [
      ['collection', created.body.id],
      ['disbursement', payout.body.id],
    ] as const) {
      const { entries, verdicts } = await book.read(kind, id as string);
      expect(entries.map((e) => [e.connector, e.reason])).toEqual([
        ['pawapay', 'ranked-first'],
        ['mtn', 'failover'],
      ]);
      expect(entries[1]!.after?.answer).toMatch(/PROVIDER_TEMPORARILY_UNAVAILABLE/);
      expect(verdicts).toEqual([expect.objectContaining({ verdict: 'go', answer: 'unknown' })]);
    }
    // The providers' books: pawaPay holds nothing of ours, MTN MoMo one collection, one refund
    // (to the customer), and one transfer (the payout).
    const pawapayBooks = (await (await fetch(`${pawapay.url}/__fake/books`)).json()) as Array<{
      depositId?: string;
      payoutId?: string;
    }>;
    const ours = new Set([created.body.id, payout.body.id].map((id) => toProviderUuid(String(id))));
    expect(pawapayBooks.filter((b) => ours.has(b.depositId ?? b.payoutId ?? ''))).toEqual([]);
    expect(pawapayBooks).toHaveLength(1);
    const mtnPosts = (
      (await (await fetch(`${mtn.url}/__fake/requests`)).json()) as Array<{ method: string; path: string }>
    )
      .filter((r) => r.method === 'POST' && !r.path.endsWith('/token/'))
      .map((r) => r.path.replace(/^\/(collection|disbursement)\/v[^/]+\//, '$1/'));
    expect(mtnPosts.sort()).toEqual(
      ['collection/requesttopay', 'disbursement/refund', 'disbursement/transfer'].sort(),
    );
    expect((await (await fetch(`${mtn.url}/__fake/undocumented`)).json()) as unknown[]).toEqual([]);

    // GET /v1/providers (the dashboard's routes table) lists both live routes of MTN CI, measured:
    // MTN MoMo answered, pawaPay's refusals are technical failures (a rate needs 20 outcomes).
    type Providers = {
      providers: Array<{
        name: string;
        health: { payin: { routes: Array<{ connector: string; answerSeconds: number | null }> } };
      }>;
    };
    const routesOf = (body: unknown, name: string) =>
      (body as Providers).providers.find((p) => p.name === name)!.health.payin.routes;
    // Measures reach the store from the worker's buckets, then the API's cached snapshot: eventually.
    const listed = await eventually(
      () => live.get('/v1/providers?country=CI'),
      (r) => typeof routesOf(r.body, 'MTN_CI')[1]?.answerSeconds === 'number',
      30_000,
    );
    expect(routesOf(listed.body, 'MTN_CI').map((r) => r.connector)).toEqual(['pawapay', 'mtn']);
    expect(routesOf(listed.body, 'ORANGE_CI').map((r) => r.connector)).toEqual(['pawapay']);

    // The payin's timeline (payments transactions show) says which route took it, and why.
    const timeline = await transactionTimeline({
      temporal: stack.env.client,
      mongo: stack.mongo,
      merchantId,
      reference: ref,
      kind: 'payin',
    });
    expect(timeline.routes.map((r) => [r.connector, r.reason])).toEqual([
      ['pawapay', 'ranked-first'],
      ['mtn', 'failover'],
    ]);
    expect(renderTimeline(timeline)).toMatch(
      /mtn {2}failover {2}after pawapay: .*PROVIDER_TEMPORARILY_UNAVAILABLE; pawapay then said unknown: go/,
    );

    // Each route of the pair is on /metrics, as the ranking sees it (not eliminated by two refusals).
    const metrics = await (await fetch(`${stack.baseUrl}/metrics`)).text();
    for (const connector of ['pawapay', 'mtn'])
      expect(metrics).toContain(
        `payments_route_eliminated{provider="MTN_CI",operation="payin",connector="${connector}"} 0`,
      );
  }, 150_000);
});
