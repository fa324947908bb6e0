import { randomUUID } from 'node:crypto';
import { auditQueries, type AuditedCommand } from '../helpers/query-audit';
import { eventually } from '../helpers/http';
import { fundMerchant } from '../helpers/merchants';
import { useWebhookStack } from '../helpers/webhooks';

// Issue 31 item 1: the store commands of one whole life per kind in test mode (creation, the
// worker's activities, the callback, the webhook delivery), against a budget. The API and the worker
// run in this process, so the audit sees all of their commands.
//
// Two parts per kind: event recording and webhook delivery (collections `events`, `event_*`,
// `webhook*`: issue 31 item 2, helper s1) and the rest (item 1, helper s2). The rest is held to its
// own budget here; the totals' budgets hold once both parts are merged.

/** Commands of event recording and webhook delivery. */
const isEventWork = (c: AuditedCommand) => /^(events|event_|webhook)/.test(c.collection ?? '');

// Measured before issue 31 (total / without events): direct payin 106 / 51, payout 294 / 80, refund
// 181 / 73 (the session payin was not counted then). The totals' budgets are the issue's 45 for a
// direct payin and the same 0.42 of before for the others; a session's is a direct payin's plus what
// its confirmation adds (3 reads). Without events: what item 1 leaves, plus 1 or 2 for the hint
// writes one append in eight makes (src/reconciliation/operator-asks.ts).
const budgets = {
  'direct payin': { total: 45, withoutEvents: 40 },
  'session payin': { total: 48, withoutEvents: 46 },
  payout: { total: 125, withoutEvents: 64 },
  refund: { total: 75, withoutEvents: 62 },
} as const;
type Kind = keyof typeof budgets;

/**
 * A direct payin's creation: store round trips in sequence before the 201: at most 3 (the kept answer is stored as it is sent).
 * Measured by holding every command ROUND_TRIP_MS before it is sent: the request then lasts that
 * many times its round trips in sequence (parallel ones wait together), plus its own work and the
 * workflow's start, well under one more.
 */
const CREATION_ROUND_TRIPS = 3;
const ROUND_TRIP_MS = 150;

describe('store commands per kind', () => {
  const { stack, api, anonymous: customer, merchant, register, at } = useWebhookStack();
  const figures: Partial<Record<Kind, { total: number; withoutEvents: number }>> = {};
  const byCollection: Record<string, Record<string, number>> = {};
  let creationRoundTrips = 0;
  afterAll(() =>
    console.log(
      `store commands per whole life (total: all; withoutEvents: without event recording and webhook delivery):\n${JSON.stringify(
        { figures, budgets, creationRoundTrips },
        null,
        2,
      )}\n${JSON.stringify(byCollection)}`,
    ),
  );

  const life = async (kind: Kind, run: () => Promise<void>) => {
    const audit = await auditQueries(stack.mongo, async () => {
      await run();
      // The webhook's delivery records its attempt after the receiver answered.
      await new Promise((r) => setTimeout(r, 1_000));
    });
    // Not the transaction's: the provider-health timer, and the API's credential cache when its
    // entry happens to expire during the life being counted.
    const total = audit.commands.filter(
      (c) => !['provider_health', 'api_credentials', 'merchants'].includes(c.collection ?? ''),
    );
    figures[kind] = { total: total.length, withoutEvents: total.filter((c) => !isEventWork(c)).length };
    const counts: Record<string, number> = {};
    for (const c of total)
      counts[`${c.name} ${c.collection}`] = (counts[`${c.name} ${c.collection}`] ?? 0) + 1;
    byCollection[kind] = counts;
  };

  /** Creation alone, every command held ROUND_TRIP_MS: its round trips in sequence. */
  const timedCreation = async <T>(create: () => Promise<T>): Promise<T> => {
    const startedAt = performance.now();
    const { result } = await auditQueries(stack.mongo, create, { delayMs: ROUND_TRIP_MS });
    creationRoundTrips = Math.floor((performance.now() - startedAt) / ROUND_TRIP_MS);
    return result;
  };

  const delivered = (reference: string, type: string) =>
    eventually(at('/count'), (r) =>
      r.some((w) => JSON.stringify(w.body).includes(reference) && JSON.stringify(w.body).includes(type)),
    );

  it('counts a direct payin, a session payin, a payout and a refund, each with its webhooks', async () => {
    await register(api, '/count');
    const payin = async (reference: string, measureCreation = false) => {
      const create = () =>
        api.post('/v1/direct/payin', {
          reference,
          sandboxScenario: 'completed',
          payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
          action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
        });
      const res = measureCreation ? await timedCreation(create) : await create();
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
      await delivered(reference, 'payin.completed');
    };
    // A warm-up of each kind first, so caches are as a steady stream of them finds them.
    await payin(`warm-${randomUUID()}`);
    const payinRef = `count-${randomUUID()}`;
    await life('direct payin', () => payin(payinRef, true));

    const session = async (reference: string) => {
      const res = await api.post('/v1/payin/sessions', {
        reference,
        sandboxScenario: 'completed',
        amount: 5000,
        msisdn: '+2250500000001',
        country: 'CI',
        action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
      });
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
      const confirmed = await customer.request('POST', `/checkout/${String(res.body.id)}/confirm`, {
        provider: 'MTN',
        msisdn: '+2250500000001',
      });
      expect(confirmed.status).toBe(200);
      await delivered(reference, 'payin.completed');
    };
    await session(`warm-s-${randomUUID()}`);
    await life('session payin', () => session(`count-s-${randomUUID()}`));

    await fundMerchant(stack, merchant.merchantId, 1_000_000);
    const payout = async (reference: string) => {
      const res = await api.post('/v1/direct/payout', {
        reference,
        sandboxScenario: 'completed',
        customerName: 'Kouassi Yao',
        payout: { amount: 5000, msisdn: '+2250500002001', provider: 'MTN', country: 'CI' },
      });
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
      await delivered(reference, 'payout.completed');
    };
    await payout(`warm-po-${randomUUID()}`);
    await life('payout', () => payout(`count-po-${randomUUID()}`));

    const refund = async (externalReference: string) => {
      const res = await api.post(`/v1/payin/${payinRef}/refund`, {
        amount: 100,
        reason: 'count',
        externalReference,
        sandboxScenario: 'completed',
      });
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
      await delivered(String(res.body.reference), 'completed');
    };
    await refund(`warm-rf-${randomUUID().slice(0, 8)}`);
    await life('refund', () => refund(`count-rf-${randomUUID().slice(0, 8)}`));

    // Item 1's part, met on its own.
    for (const kind of Object.keys(budgets) as Kind[]) {
      const { withoutEvents } = figures[kind]!;
      const budget = budgets[kind].withoutEvents;
      expect({ kind, withoutEvents, budget, within: withoutEvents <= budget }).toEqual({
        kind,
        withoutEvents,
        budget,
        within: true,
      });
    }
    expect(creationRoundTrips).toBeGreaterThan(0);
    expect(creationRoundTrips).toBeLessThanOrEqual(CREATION_ROUND_TRIPS);
  }, 180_000);

  // The whole budget: event recording and webhook delivery included. Holds once issue 31 item 2
  // (one dispatcher per endpoint, helper s1) is merged with item 1; fails on either branch alone.
  it('keeps each whole life within its total budget (items 1 and 2 together)', () => {
    for (const kind of Object.keys(budgets) as Kind[]) {
      const total = figures[kind]?.total ?? Infinity;
      const budget = budgets[kind].total;
      expect({ kind, total, budget, within: total <= budget }).toEqual({ kind, total, budget, within: true });
    }
  });
});
