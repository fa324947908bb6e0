import fc from 'fast-check';
import { interleaving } from '../helpers/interleave';
import { testPayinService } from '../helpers/services';
import { useStack } from '../helpers/use-stack';
import { PaymentLinkStore } from '../../src/persistence/payment-links';
import { TransactionStore } from '../../src/persistence/transactions';
import { ABANDONED_CLAIM_MS, PaymentLinkService } from '../../src/services/payment-link-service';
import { paymentLinkRecord } from '../../src/contract/schemas/payment-links';

// Customers submitting one single-use link at once (docs/decisions/payment-links/single-use-claim.md),
// interleaved by fast-check's scheduler over the real FerretDB and Temporal test server: each call
// of the link store, each read of a payin and each payin opened is one step the scheduler places.
// Whatever the order, the link has at most one payin, and a customer who gets none is told a payment
// is under way. A claim whose payin is not stored yet belongs to a customer still on their way to
// it: freeing it let a second customer open a second payin (two payments of a single-use link).

/** Schedules per CI run. */
const RUNS = 15;

describe('a single-use link submitted by customers at once (fast-check scheduler)', () => {
  const { stack, merchant, api } = useStack({ merchant: 'Boutique Wax' });
  let links: PaymentLinkStore;
  let transactions: TransactionStore;

  beforeAll(() => {
    links = PaymentLinkStore.on(stack.mongo);
    transactions = TransactionStore.on(stack.mongo);
  });

  const singleUseLink = async () => {
    const res = await api.post('/v1/payment-links', {
      title: 'Pagne wax',
      amount: { type: 'fixed', value: 15_000 },
      currency: 'XOF',
      countries: ['CI'],
      usage: 'single',
    });
    expect(res.status).toBe(201);
    return (await links.get(merchant.merchantId, paymentLinkRecord.parse(res.body).id))!;
  };

  it('opens at most one payin; the others are told it is under way', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 3 }), async (s, customers) => {
        const link = await singleUseLink();
        const step = interleaving(s);
        const payins = testPayinService(stack, { temporal: stack.env.client });
        const service = new PaymentLinkService({
          links: step.gated(links, 'links'),
          transactions: step.gated(transactions, 'transactions'),
          payins: step.gated(payins, 'payins'),
        });
        const submit = (i: number) =>
          service.pay(
            link,
            {
              token: `form-${String(run)}-${String(i)}-0123456789`,
              msisdn: `05000000${String(10 + i)}`,
              name: 'Awa',
            },
            stack.baseUrl,
          );
        run++;
        const outcomes = await step.run(Promise.all(Array.from({ length: customers }, (_, i) => submit(i))));
        const opened = outcomes.filter((o) => 'transaction' in o);
        expect(opened.length).toBeLessThanOrEqual(1);
        for (const o of outcomes) if (!('transaction' in o)) expect(o).toEqual({ refused: 'busy' });
        expect(await links.allPayinsOf(link.id)).toHaveLength(opened.length);
      }),
      { numRuns: RUNS },
    );
  }, 180_000);

  it('frees a claim left without its payin once it is older than any submission', async () => {
    const link = await singleUseLink();
    const service = new PaymentLinkService({
      links,
      transactions,
      payins: testPayinService(stack, { temporal: stack.env.client }),
    });
    // A submission that crashed between its claim and its payin, long enough ago.
    expect(await links.claim(link.id, 'WAX-crashed')).toEqual({ claimed: true });
    await stack.mongo
      .db!.collection('payment_link_claims')
      .updateOne(
        { _id: link.id as never },
        { $set: { claimedAt: new Date(Date.now() - ABANDONED_CLAIM_MS - 1_000) } },
      );
    const paid = await service.pay(
      link,
      { token: 'form-after-crash-0123456789', msisdn: '0500000021', name: 'Awa' },
      stack.baseUrl,
    );
    expect('transaction' in paid).toBe(true);
  });
});
