import { randomUUID } from 'node:crypto';
import { auditQueries } from '../helpers/query-audit';
import { eventually } from '../helpers/http';
import { fundMerchant } from '../helpers/merchants';
import { useWebhookStack } from '../helpers/webhooks';

// Issue 31 item 1, measurement only: the store commands of one whole life per kind in test mode
// (creation, the worker's activities, the webhook delivery), printed as a table. The worker runs in
// this process, so the audit sees its commands too. Budgets come with the optimisations.
describe('store commands per kind', () => {
  const { stack, api, merchant, register, at } = useWebhookStack();
  const figures: Record<string, number> = {};
  const byCollection: Record<string, Record<string, number>> = {};
  afterAll(() =>
    console.log(
      `store commands per whole life:\n${JSON.stringify(figures, null, 2)}\n${JSON.stringify(byCollection)}`,
    ),
  );

  const life = async (kind: string, run: () => Promise<void>) => {
    // A warm-up of the same kind first, so caches are as a steady stream of them finds them.
    const audit = await auditQueries(stack.mongo, async () => {
      await run();
      await new Promise((r) => setTimeout(r, 1_000));
    });
    figures[kind] = audit.commands.length;
    const counts: Record<string, number> = {};
    for (const c of audit.commands)
      counts[`${c.name} ${c.collection}`] = (counts[`${c.name} ${c.collection}`] ?? 0) + 1;
    byCollection[kind] = counts;
    expect(audit.commands.length).toBeGreaterThan(0);
  };

  it('counts a direct payin, a payout and a refund, each with its webhook', async () => {
    await register(api, '/count');
    const payin = async (reference: string) => {
      const res = await api.post('/v1/direct/payin', {
        reference,
        sandboxScenario: 'completed',
        payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
      });
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
      await eventually(at('/count'), (r) => r.some((w) => JSON.stringify(w.body).includes(reference)));
    };
    await payin(`warm-${randomUUID()}`);
    const payinRef = `count-${randomUUID()}`;
    await life('direct payin', () => payin(payinRef));

    await fundMerchant(stack, merchant.merchantId, 1_000_000);
    const payout = async (reference: string) => {
      const res = await api.post('/v1/direct/payout', {
        reference,
        sandboxScenario: 'completed',
        customerName: 'Kouassi Yao',
        payout: { amount: 5000, msisdn: '+2250500002001', provider: 'MTN', country: 'CI' },
      });
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
      await eventually(at('/count'), (r) =>
        r.some(
          (w) =>
            JSON.stringify(w.body).includes(reference) && JSON.stringify(w.body).includes('payout.completed'),
        ),
      );
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
      const ref = String(res.body.reference);
      await eventually(at('/count'), (r) =>
        r.some((w) => JSON.stringify(w.body).includes(ref) && JSON.stringify(w.body).includes('completed')),
      );
    };
    await refund(`warm-rf-${randomUUID().slice(0, 8)}`);
    await life('refund', () => refund(`count-rf-${randomUUID().slice(0, 8)}`));
  }, 180_000);
});
