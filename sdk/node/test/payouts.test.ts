import { MomoApiError } from '../src/index';
import { client, eventually, msisdn, ref, stackAvailable } from './helpers';

// The paying-out side through the SDK, against the running stack: payouts in every shape, a bulk
// batch, a cancel, the recipient check, then the reads (transactions with auto-pagination,
// accounts and entries, a statement and its file, providers).

const momo = client();
const describeStack = stackAvailable ? describe : describe.skip;

describeStack('payouts and reads', () => {
  let xof: { id: string };

  beforeAll(async () => {
    const accounts = await momo.accounts.list();
    const found = accounts.data.find((a) => a.currency === 'XOF');
    if (!found) throw new Error('the merchant has no XOF account');
    xof = found;
  });

  test('payouts: direct, standard to a number and from an account; a recipient check; a cancel', async () => {
    const check = await momo.providers.checkRecipient({ msisdn, country: 'CI' });
    expect(check).toMatchObject({ checked: true, active: true });

    const direct = ref('dpayout');
    const standard = ref('payout');
    const fromAccount = ref('apayout');
    // Scenario `failed`: if the cancel comes too late, the payout still ends by itself.
    const held = ref('cancel');
    // The four at once: each takes the stack a second or two to accept.
    await Promise.all([
      momo.payouts.createDirect({
        reference: direct,
        sandboxScenario: 'completed',
        payout: { amount: 1000, msisdn: '+2250700000002', provider: 'ORANGE', country: 'CI' },
      }),
      momo.payouts.create({
        reference: standard,
        sandboxScenario: 'completed',
        amount: 1000,
        msisdn,
        country: 'CI',
      }),
      momo.payouts.create({
        reference: fromAccount,
        sandboxScenario: 'completed',
        accountId: xof.id,
        amount: 1000,
        msisdn,
        country: 'CI',
        customerName: 'Test Recipient',
      }),
      momo.payouts.create({
        reference: held,
        sandboxScenario: 'failed',
        amount: 1000,
        msisdn,
        country: 'CI',
      }),
    ]);
    expect((await momo.payouts.getDirect(direct)).amount).toBe(1000);
    // `processed`: the operator took it; `completed` follows once it confirms.
    const done = (status: string) => status === 'processed' || status === 'completed';
    const completed = eventually(
      'the standard payouts to be processed',
      async () => {
        const [a, b] = await Promise.all([momo.payouts.get(standard), momo.payouts.get(fromAccount)]);
        return done(a.status) && done(b.status) ? true : undefined;
      },
      40_000,
    );
    completed.catch(() => undefined);

    // A payout not yet sent can be cancelled; one already with the operator answers 409: both
    // are answers the sandbox may give, depending on how fast the workflow sends it. A busy
    // worker that cannot take the cancel in time answers 503 (retried once here, then given up).
    try {
      const cancelled = await momo.payouts.cancel(held, { maxRetries: 1 });
      expect(cancelled.status).toBe('reversed');
    } catch (err) {
      expect(err).toBeInstanceOf(MomoApiError);
      if ((err as MomoApiError).status !== 503)
        expect((err as MomoApiError).code).toBe('PAYOUT_NOT_CANCELLABLE');
    }
    await completed;
  });

  test('a bulk payout batch', async () => {
    const batch = await momo.payoutBatches.create({
      items: [
        { reference: ref('bulk1'), sandboxScenario: 'completed', amount: 500, msisdn, country: 'CI' },
        { reference: ref('bulk2'), sandboxScenario: 'completed', amount: 700, msisdn, country: 'CI' },
      ],
    });
    expect(batch.id).toMatch(/^pb_/);
    const read = await momo.payoutBatches.get(batch.id);
    expect(read.id).toBe(batch.id);
  });

  test('transactions: auto-pagination walks several pages without repeats', async () => {
    const first = await momo.transactions.list({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).toBeTruthy();
    const seen = await momo.transactions.list({ limit: 2 }).toArray(7);
    expect(seen).toHaveLength(7);
    const keys = seen.map((t) => `${t.type}:${t.reference}`);
    expect(new Set(keys).size).toBe(keys.length);
    let pages = 0;
    for await (const page of momo.transactions.list({ limit: 3, type: 'payout' }).pages()) {
      expect(page.data.every((t) => t.type === 'payout')).toBe(true);
      if (++pages === 2) break;
    }
    expect(pages).toBe(2);
  });

  test('accounts and their entries', async () => {
    const account = await momo.accounts.get(xof.id);
    expect(account.currency).toBe('XOF');
    const entries = await momo.accounts.listEntries(xof.id, { limit: '2' }).toArray(3);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries[0]?.accountId).toBe(xof.id);
  });

  test('a statement, then its file', async () => {
    const statement = await momo.statements.create({
      accountId: xof.id,
      from: new Date(Date.now() - 86_400_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
      format: 'csv',
    });
    const ready = await eventually('the statement', async () => {
      const s = await momo.statements.get(statement.id);
      return s.status === 'ready' ? s : undefined;
    });
    const file = await momo.statements.download(ready);
    expect(file.split('\n')[0]).toMatch(/,/);
    expect(await momo.statements.download(statement.id)).toBe(file);
  });

  test('providers and the operator of a number', async () => {
    const providers = await momo.providers.list({ country: 'CI' });
    expect(providers.providers.length).toBeGreaterThan(0);
    const predicted = await momo.providers.predict({ msisdn: '+2250700000002' });
    expect(predicted.operator).toBe('ORANGE');
  });
});
