import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant } from '../helpers/merchants';
import { Ledger } from '../../src/ledger';
import { refundRecord } from '../../src/contract/schemas/refund';
import { transactionRecord } from '../../src/contract/schemas/transaction-record';
import { RefundAuditLog } from '../../src/persistence/refund-audit';
import { refundWorkflowId } from '../../src/temporal/workflow-ids';
import { saKind, saMerchantId, saReference, saStatus } from '../../src/temporal/search-attributes';

// Refunds through HTTP, the payin's workflow, the refund workflows, the operator simulator and
// FerretDB: every rule and error code of the interface, partial refunds up to and past the
// original, a failed refund reversed once, and 100 concurrent refunds on one payin. A refund asked
// while the worker is down: refund-decision-wait.test.ts.

describe('refunds', () => {
  const { stack, merchant, api } = useStack({ merchantPerTest: true });
  let ledger: Ledger;
  let seq = 0;

  beforeAll(() => {
    ledger = Ledger.on(stack.mongo);
  });
  // Every test: each account touched holds exactly the sum of its entries.
  afterEach(async () => {
    const accounts = [
      await ledger.mainAccount(merchant.merchantId, 'XOF'),
      await ledger.systemAccount('operator-clearing', 'XOF', 'test'),
      await ledger.systemAccount('fees', 'XOF', 'test'),
    ];
    for (const account of accounts) {
      const v = await ledger.verify(account.id);
      expect(v.balance).toBe(v.sumOfEntries);
    }
  });

  const balance = async () =>
    (await ledger.verify((await ledger.mainAccount(merchant.merchantId, 'XOF')).id)).balance;
  const fund = async (amount: number) =>
    ledger.transfer({
      sourceRef: `fund:${randomUUID()}`,
      fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF', 'test')).id,
      toAccountId: (await ledger.mainAccount(merchant.merchantId, 'XOF')).id,
      amount,
      reason: 'test funding',
    });

  /** A direct payin of `amount` XOF (MTN CI); waits for `success` unless another scenario is asked. */
  async function payin(amount: number, scenario: 'completed' | 'failed' | 'pending' = 'completed') {
    const reference = `rfp-${++seq}-${randomUUID().slice(0, 8)}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: scenario,
      customerName: 'Awa Koné',
      payin: { amount, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    const want = { completed: 'success', failed: 'failed', pending: 'processing' }[scenario];
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === want && (scenario !== 'pending' || r.body.confirmationStatus === 'pending'),
    );
    return reference;
  }
  const refund = (payinRef: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    api.post(`/v1/payin/${payinRef}/refund`, { reason: 'customer returned the goods', ...body }, headers);
  const settled = (rf: string, status: string) =>
    eventually(
      () => api.get(`/v1/refunds/${rf}`),
      (r) => r.body.status === status,
    );
  const eventTypes = async (payinRef: string) =>
    ((await api.get(`/v1/events?reference=${payinRef}&limit=100`)).body.data as { type: string }[]).map(
      (e) => e.type,
    );

  it('refunds a payin in full: processing, then completed; debited once; shown on the payin; events; audit', async () => {
    const ref = await payin(1000);
    await fund(15); // the payin credited 985 (fee 15): the merchant needs 1000
    expect(await balance()).toBe(1000);

    const created = await refund(ref, { externalReference: 'rf-full-1' });
    expect(created.status).toBe(201);
    const record = refundRecord.parse(created.body);
    expect(record).toMatchObject({
      type: 'refund',
      originalReference: ref,
      amount: 1000,
      fee: 0,
      currency: 'XOF',
      status: 'processing',
      refundType: 'full',
      customerMsisdn: '+2250500000001',
      customerName: 'Awa Koné',
      transaction: { status: 'pending', processedAt: null },
    });
    expect(record.reference).toMatch(/^rf_[0-9a-f]{24}$/);
    expect(record.transaction.reference).toMatch(/^tr_[0-9a-f]{24}$/);
    // The merchant is debited when the refund starts.
    expect(await balance()).toBe(0);

    const done = await settled(record.reference, 'completed');
    expect(done.body.transaction).toMatchObject({
      reference: record.transaction.reference,
      status: 'completed',
    });
    expect(Date.parse(done.body.transaction.processedAt)).not.toBeNaN();
    expect(done.body.failure).toBeNull();
    expect(await balance()).toBe(0);

    // Ops find the refund in the Temporal UI by merchant, kind, reference and status. A completion
    // recorded by the status read that found it is shown in the workflow task right after it.
    const child = await eventually(
      () =>
        stack.env.client.workflow
          .getHandle(refundWorkflowId(merchant.merchantId, record.reference))
          .describe(),
      (d) => d.typedSearchAttributes.get(saStatus) === 'completed',
    );
    expect(child.typedSearchAttributes.get(saKind)).toBe('refund');
    expect(child.typedSearchAttributes.get(saMerchantId)).toBe(merchant.merchantId);
    expect(child.typedSearchAttributes.get(saReference)).toBe(record.reference);
    expect(child.typedSearchAttributes.get(saStatus)).toBe('completed');
    expect(child.memo).toMatchObject({ amount: 1000, currency: 'XOF' });

    const read = await api.get(`/v1/payin/${ref}`);
    const payinRecord = transactionRecord.parse(read.body);
    expect(payinRecord).toMatchObject({ status: 'success', refundedAmount: 1000 });
    expect(payinRecord.refunds).toHaveLength(1);
    expect(payinRecord.refunds![0]).toMatchObject({ reference: record.reference, status: 'completed' });

    await eventually(
      () => eventTypes(ref),
      (types) => types.includes('refund.completed'),
    );
    const types = await eventTypes(ref);
    expect(types).toEqual(expect.arrayContaining(['refund.processing', 'refund.completed']));
    expect(types).not.toContain('refund.failed');

    // Fully refunded: nothing more can be refunded.
    await fund(500);
    const again = await refund(ref, { amount: 100, externalReference: 'rf-full-2' });
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ code: 'REFUND_NOT_ALLOWED', title: 'Refund not allowed' });

    // Audit: who (merchant, api key), when, what, from which key, and the workflow's steps.
    const trail = await RefundAuditLog.on(stack.mongo).list(merchant.merchantId, ref);
    const requested = trail.filter((e) => e.action === 'refund.requested');
    expect(requested).toHaveLength(2);
    expect(requested[0]).toMatchObject({
      actor: 'merchant',
      apiKey: merchant.credentials.apiKey,
      refundId: record.reference,
      externalReference: 'rf-full-1',
      outcome: 'accepted',
    });
    expect(requested[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(requested[1]).toMatchObject({ outcome: 'REFUND_NOT_ALLOWED', amount: 100 });
    expect(trail.map((e) => e.action)).toEqual(
      expect.arrayContaining(['refund.debited', 'refund.completed']),
    );
    expect(trail.filter((e) => e.action === 'refund.debited')).toHaveLength(1);
  });

  it('takes several partial refunds up to the original amount, and refuses past it', async () => {
    const ref = await payin(1000);
    await fund(1000);
    const start = await balance();

    const first = await refund(ref, { amount: 300, externalReference: 'p-1' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ amount: 300, refundType: 'partial' });
    const second = await refund(ref, { amount: 300, externalReference: 'p-2' });
    expect(second.status).toBe(201);

    // Above the original amount, or above what remains (400): 400 "Invalid amount".
    const aboveOriginal = await refund(ref, { amount: 1001, externalReference: 'p-x' });
    expect(aboveOriginal.status).toBe(400);
    expect(aboveOriginal.body).toMatchObject({ code: 'INVALID_AMOUNT', title: 'Invalid amount' });
    const aboveRemainder = await refund(ref, { amount: 500, externalReference: 'p-y' });
    expect(aboveRemainder.status).toBe(400);
    expect(aboveRemainder.body.code).toBe('INVALID_AMOUNT');
    // The answer says what remains, in the currency, on the field (issue 44: the dashboard shows it there).
    const remains =
      'At most 400 XOF of this payment can still be refunded: send that amount or less, or leave amount out to refund the rest.';
    expect(aboveRemainder.body).toMatchObject({
      detail: remains,
      errors: [{ path: 'amount', message: remains }],
    });
    expect(aboveOriginal.body.errors).toEqual([{ path: 'amount', message: remains }]);
    const inFrench = await refund(
      ref,
      { amount: 500, externalReference: 'p-z' },
      { 'accept-language': 'fr' },
    );
    expect(inFrench.body.errors).toEqual([
      {
        path: 'amount',
        message:
          'Il reste au plus 400 XOF à rembourser sur ce paiement : envoyez ce montant ou moins, ou omettez amount pour rembourser le reste.',
      },
    ]);

    // No amount: the whole remainder, partial since it is less than the original.
    const rest = await refund(ref, { externalReference: 'p-3' });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ amount: 400, refundType: 'partial' });
    expect(await balance()).toBe(start - 1000);

    const over = await refund(ref, { amount: 1, externalReference: 'p-4' });
    expect(over.status).toBe(403);
    expect(over.body.code).toBe('REFUND_NOT_ALLOWED');

    for (const r of [first, second, rest]) await settled(r.body.reference, 'completed');
    const read = await api.get(`/v1/payin/${ref}`);
    expect(read.body.refundedAmount).toBe(1000);
    expect(read.body.refunds.map((r: { amount: number }) => r.amount)).toEqual([300, 300, 400]);
    expect(await balance()).toBe(start - 1000);
  });

  it('refuses a payin that is not in success (403), an unknown or foreign reference (404), bad credentials (401)', async () => {
    const failed = await payin(1000, 'failed');
    const r1 = await refund(failed, { externalReference: 'nf-1' });
    expect(r1.status).toBe(403);
    expect(r1.body.code).toBe('REFUND_NOT_ALLOWED');
    const pending = await payin(1000, 'pending');
    const r2 = await refund(pending, { amount: 100, externalReference: 'nf-2' });
    expect(r2.status).toBe(403);

    const unknown = await refund('no-such-payin', { externalReference: 'nf-3' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'PAYMENT_NOT_FOUND', title: 'Payment not found' });
    const ok = await payin(500);
    const other = await createTestMerchant(stack, 'Other merchant');
    const foreign = await new ApiClient(stack.baseUrl, other.credentials).post(`/v1/payin/${ok}/refund`, {
      reason: 'not mine',
      externalReference: 'nf-4',
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('PAYMENT_NOT_FOUND');
    expect(
      (await new ApiClient(stack.baseUrl, other.credentials).get('/v1/refunds/rf_000000000000000000000000'))
        .status,
    ).toBe(404);

    const unauthorized = await new ApiClient(stack.baseUrl, {
      apiKey: merchant.credentials.apiKey,
      apiClient: 'sk_test_wrong',
    }).post(`/v1/payin/${ok}/refund`, { reason: 'x', externalReference: 'nf-5' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toMatchObject({ code: 'UNAUTHORIZED', title: 'Unauthorized' });

    const invalid = await api.post(`/v1/payin/${ok}/refund`, { amount: -5, externalReference: 'nf-6' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['amount', 'reason']);

    // French titles follow Accept-Language.
    const fr = await refund(failed, { externalReference: 'nf-7' }, { 'accept-language': 'fr' });
    expect(fr.body.title).toBe('Remboursement non autorisé');
  });

  // docs/decisions/refunds/conflicts-answer-duplicate-refund.md: the interface's one refund conflict,
  // in its two cases, each named by `errors` (the key, or the externalReference) and said in both languages.
  it('answers 409 "Duplicate refund" for a used externalReference or a reused key with another body, and replays a retry', async () => {
    const ref = await payin(1000);
    const key = randomUUID();
    const first = await refund(
      ref,
      { amount: 100, externalReference: 'dup-1' },
      { 'x-idempotency-key': key },
    );
    expect(first.status).toBe(201);

    const replay = await refund(
      ref,
      { amount: 100, externalReference: 'dup-1' },
      { 'x-idempotency-key': key },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.reference).toBe(first.body.reference);

    const sameExternal = await refund(ref, { amount: 50, externalReference: 'dup-1' });
    expect(sameExternal.status).toBe(409);
    expect(sameExternal.body).toMatchObject({
      code: 'DUPLICATE_REFUND',
      title: 'Duplicate refund',
      detail: 'A refund with this externalReference was already attempted for this payment.',
      errors: [{ path: 'externalReference', message: expect.stringContaining('new externalReference') }],
    });
    const sameExternalFr = await refund(
      ref,
      { amount: 50, externalReference: 'dup-1' },
      { 'accept-language': 'fr' },
    );
    expect(sameExternalFr.body).toMatchObject({
      code: 'DUPLICATE_REFUND',
      title: 'Remboursement en double',
      errors: [{ path: 'externalReference', message: expect.stringContaining('nouvelle externalReference') }],
    });

    const reusedKey = await refund(
      ref,
      { amount: 50, externalReference: 'dup-2' },
      { 'x-idempotency-key': key },
    );
    expect(reusedKey.status).toBe(409);
    expect(reusedKey.body).toMatchObject({
      code: 'DUPLICATE_REFUND',
      detail:
        'This X-Idempotency-Key was already used for another refund request; use a different idempotency key.',
      errors: [
        { path: 'headers.x-idempotency-key', message: expect.stringContaining('new X-Idempotency-Key') },
      ],
    });

    await settled(first.body.reference, 'completed');
    expect((await api.get(`/v1/payin/${ref}`)).body.refunds).toHaveLength(1);
  });

  it('refuses a refund the balance cannot cover (403 INSUFFICIENT_BALANCE) and records nothing', async () => {
    const ref = await payin(1000);
    expect(await balance()).toBe(985);
    const refused = await refund(ref, { externalReference: 'ib-1' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await balance()).toBe(985);
    expect((await api.get(`/v1/payin/${ref}`)).body.refunds).toEqual([]);

    // The reservation and the externalReference were released: once funded, the same one goes through.
    await fund(15);
    const ok = await refund(ref, { externalReference: 'ib-1' });
    expect(ok.status).toBe(201);
    expect(ok.body.refundType).toBe('full');
    await settled(ok.body.reference, 'completed');
    expect(await balance()).toBe(0);
  });

  it('reverses a refund the operator refuses exactly once, and releases its amount', async () => {
    const ref = await payin(1000);
    await fund(15);
    const created = await refund(ref, {
      amount: 600,
      externalReference: 'fail-1',
      sandboxScenario: 'failed',
    });
    expect(created.status).toBe(201);
    expect(await balance()).toBe(400);

    const reversed = await settled(created.body.reference, 'reversed');
    expect(reversed.body.transaction.status).toBe('failed');
    expect(reversed.body.transaction.processedAt).not.toBeNull();
    expect(reversed.body.failure).toMatchObject({ code: 'REFUND_REJECTED', provider: 'MTN_CI' });
    expect(await balance()).toBe(1000);
    // One debit, one reversal: the movements of this refund, each once.
    const main = await ledger.mainAccount(merchant.merchantId, 'XOF');
    const entries = (await ledger.entries(main.id, { limit: 200 })).entries.filter(
      (e: { transactionId?: string | null }) => e.transactionId === created.body.reference,
    );
    expect(entries.map((e: { amount: number }) => e.amount).sort((a: number, b: number) => a - b)).toEqual([
      -600, 600,
    ]);

    await eventually(
      () => eventTypes(ref),
      (types) => types.includes('refund.failed'),
    );
    expect(await eventTypes(ref)).not.toContain('refund.completed');
    expect((await api.get(`/v1/payin/${ref}`)).body.refundedAmount).toBe(0);

    // Released: the whole amount is refundable again.
    const full = await refund(ref, { externalReference: 'fail-2' });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ amount: 1000, refundType: 'full' });
    await settled(full.body.reference, 'completed');
    expect(await balance()).toBe(0);
  });

  it('keeps the total refunded within the original under 100 concurrent partial refunds', async () => {
    const ref = await payin(10_000);
    await fund(100_000);
    const start = await balance();
    // As a client does: a 503 DECISION_PENDING (the Update is queued and decided later) is asked
    // again with the same key until it answers the decision, so every debited refund is counted.
    const keys = Array.from({ length: 100 }, () => randomUUID());
    const ask = async (i: number) => {
      for (let attempt = 0; ; attempt++) {
        const a = await refund(
          ref,
          { amount: 700, externalReference: `cc-${i}` },
          { 'x-idempotency-key': keys[i]! },
        );
        if (a.status !== 503 || a.body.code !== 'DECISION_PENDING' || attempt >= 30) return a;
        await new Promise((r) => setTimeout(r, 2_000));
      }
    };
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => ask(i)));
    // A server fault (5xx, e.g. Temporal pushing back under load) is allowed, never anything else.
    // 200: the refund this key asked for, made by its first request's queued decision (a loaded
    // machine answers more of them DECISION_PENDING first); it counts as that key's refund.
    const unexpected = answers.filter((a) => ![200, 201, 400, 403].includes(a.status) && a.status < 500);
    expect(unexpected.map((a) => [a.status, a.body])).toEqual([]);
    const faults = answers.filter((a) => a.status >= 500);
    const accepted = answers.filter((a) => a.status === 201 || a.status === 200);
    // 14 × 700 = 9,800 fits in 10,000; a 15th would not.
    if (faults.length === 0) expect(accepted).toHaveLength(14);
    expect(accepted.length).toBeLessThanOrEqual(14);
    expect(await balance()).toBe(start - accepted.length * 700);
    for (const a of accepted) await settled(a.body.reference, 'completed');
    const read = await api.get(`/v1/payin/${ref}`);
    expect(read.body.refundedAmount).toBe(accepted.length * 700);
    expect(read.body.refundedAmount).toBeLessThanOrEqual(10_000);
    expect(read.body.refunds).toHaveLength(accepted.length);
    expect(await balance()).toBe(start - accepted.length * 700);
  }, 240_000);
});
