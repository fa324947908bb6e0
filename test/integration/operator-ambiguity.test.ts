import { randomUUID } from 'node:crypto';
import { ApiClient, eventually } from '../helpers/http';
import { startStack, type TestStack } from '../helpers/stack';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { directPayinInput, storedDirectPayin } from '../helpers/payin-input';
import { Ledger } from '../../src/ledger';
import { TransactionStore } from '../../src/persistence/transactions';
import { metricsRegistry } from '../../src/infra/metrics';
import { transactionWorkflowId } from '../../src/temporal/workflow-ids';
import type { PayoutWorkflowInput } from '../../workflows/payout/payout-api';

// Ambiguity never moves money (issue 15): with a fault proxy between the worker and the operator
// simulator, answers are lost, late, unreadable or wrong, and every transaction still ends as the
// operator's books say, or stays open and flagged for ops. Each case failed on the code before.

const MIN = 60_000;
const HOUR = 60 * MIN;
// Time skipping is quick, but every skipped poll is a real activity: on a loaded machine, minutes.
const SLOW = 240_000;

describe('operator ambiguity', () => {
  let stack: TestStack;
  let ledger: Ledger;
  let transactions: TransactionStore;
  let merchant: TestMerchant;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack(
      { PAYOUT_EXPIRY: '10m', PAYIN_EXPIRY: '15m' },
      { operatorProxy: true, worker: { maxCachedWorkflows: 0 } },
    );
    ledger = Ledger.on(stack.mongo);
    transactions = TransactionStore.on(stack.mongo);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  beforeEach(async () => {
    stack.proxy!.clear();
    merchant = await createTestMerchant(stack);
    api = new ApiClient(stack.baseUrl, merchant.credentials);
    await fund(1_000_000);
  });
  // Every test: each account touched holds exactly the sum of its entries.
  afterEach(async () => {
    stack.proxy!.clear();
    for (const account of await ledger.listAccounts(merchant.merchantId)) {
      const v = await ledger.verify(account.id);
      expect(v.balance).toBe(v.sumOfEntries);
    }
  });

  const proxy = () => stack.proxy!;
  const sim = (path: string, init?: RequestInit) =>
    fetch(`${stack.simulator.url}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json' },
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const atOperator = (kind: 'collection' | 'disbursement' | 'refund', id: string) =>
    sim(`/_sandbox/transactions/${kind}/${id}`).then((r) => r.body);
  const settleAtOperator = (kind: 'collection' | 'disbursement' | 'refund', id: string, outcome: string) =>
    sim(`/_sandbox/${kind}/${id}/settle`, { method: 'POST', body: JSON.stringify({ outcome }) });
  const mainBalance = async () => (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance;
  async function fund(amount: number) {
    await ledger.transfer({
      sourceRef: `fund:${randomUUID()}`,
      fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF', 'test')).id,
      toAccountId: (await ledger.mainAccount(merchant.merchantId, 'XOF')).id,
      amount,
      reason: 'test funding',
    });
  }
  /** Skips time in steps, so each wake-up's status read (real HTTP) runs between them. */
  async function skip(totalMs: number, stepMs = MIN): Promise<void> {
    for (let done = 0; done < totalMs; done += stepMs) {
      await stack.env.sleep(Math.min(stepMs, totalMs - done));
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const read = (path: string, done: (b: any) => boolean) =>
    eventually(
      () => api.get(path),
      (r) => r.status === 200 && done(r.body),
    );
  const legsOf = (sourceRef: string) =>
    stack.mongo.db!.collection('ledger_entries').countDocuments({ sourceRef });

  async function payin(scenario: 'completed' | 'pending' = 'completed', amount = 10_000) {
    const reference = `amb-${randomUUID().slice(0, 12)}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: scenario,
      payin: { amount, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    return { reference, id: created.body.id as string };
  }
  async function payout(scenario: 'completed' | 'pending' = 'completed') {
    const reference = `amb-po-${randomUUID().slice(0, 12)}`;
    const created = await api.post('/v1/direct/payout', {
      reference,
      sandboxScenario: scenario,
      customerName: 'Koffi',
      payout: { amount: 5_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });
    expect(created.status).toBe(201);
    return { reference, id: created.body.id as string, charged: created.body.chargedAmount as number };
  }

  it(
    'a refund the operator made, whose answers were lost, completes: the merchant is not credited back',
    async () => {
      const p = await payin();
      await read(`/v1/payin/${p.reference}`, (b) => b.status === 'success');
      // The request reaches the operator, which refunds; every answer to it is lost, and the first
      // status reads fail too.
      proxy().add({
        method: 'POST',
        path: /^\/operators\/MTN\/refunds(\?|$)/,
        fault: { kind: 'forward-then-error', status: 503 },
        times: Infinity,
      });
      proxy().add({
        method: 'GET',
        path: '/operators/MTN/refunds/',
        fault: { kind: 'error', status: 503 },
        times: 3,
      });
      const before = await mainBalance();
      const created = await api.post(`/v1/payin/${p.reference}/refund`, {
        amount: 4_000,
        reason: 'returned',
        externalReference: `ext-${randomUUID()}`,
      });
      expect(created.status).toBe(201);
      const refundId = created.body.reference as string;
      await skip(10 * MIN);
      const done = await read(
        `/v1/refunds/${refundId}`,
        (b) => b.status === 'completed' || b.status === 'reversed',
      );
      expect(done.body.status).toBe('completed');
      expect((await atOperator('refund', refundId)).outcome).toBe('completed');
      expect(await mainBalance()).toBe(before - 4_000);
      expect(await legsOf(`${refundId}:refund-reversal`)).toBe(0);
    },
    SLOW,
  );

  it(
    'a refund still pending at its 48 h deadline is cancelled at the operator before the merchant is credited back',
    async () => {
      const p = await payin();
      await read(`/v1/payin/${p.reference}`, (b) => b.status === 'success');
      const before = await mainBalance();
      const created = await api.post(`/v1/payin/${p.reference}/refund`, {
        amount: 3_000,
        reason: 'returned',
        externalReference: `ext-${randomUUID()}`,
        sandboxScenario: 'pending',
      });
      expect(created.status).toBe(201);
      const refundId = created.body.reference as string;
      await skip(49 * HOUR, 7 * HOUR);
      const done = await read(`/v1/refunds/${refundId}`, (b) => b.status === 'reversed');
      expect(done.body.failure?.code).toBe('REFUND_EXPIRED');
      // The operator's books agree: it will never pay this refund.
      const books = await atOperator('refund', refundId);
      expect(books.outcome).toBe('failed');
      expect(books.failure.code).toBe('CANCELLED');
      expect(await mainBalance()).toBe(before);
    },
    SLOW,
  );

  it(
    'a payout the operator paid but reported pending past PAYOUT_EXPIRY completes, never reversed',
    async () => {
      proxy().add({
        method: 'GET',
        path: '/operators/MTN/disbursements/',
        fault: { kind: 'rewrite', patch: { outcome: 'pending', failure: null } },
        times: Infinity,
      });
      const before = await mainBalance();
      const po = await payout();
      await skip(12 * MIN);
      const done = await read(`/v1/direct/payout/${po.reference}`, (b) =>
        ['completed', 'reversed'].includes(b.status),
      );
      expect(done.body.status).toBe('completed');
      expect((await atOperator('disbursement', po.id)).outcome).toBe('completed');
      expect(await mainBalance()).toBe(before - po.charged);
      expect(await legsOf(`${po.id}:payout-reversal`)).toBe(0);
    },
    SLOW,
  );

  it(
    'a transient 404 on a status read after the operator accepted a payout is not a failure',
    async () => {
      proxy().add({
        method: 'GET',
        path: '/operators/MTN/disbursements/',
        fault: { kind: 'error', status: 404 },
        times: 3,
      });
      const before = await mainBalance();
      const po = await payout();
      await skip(3 * MIN, 10_000);
      const done = await read(`/v1/direct/payout/${po.reference}`, (b) =>
        ['completed', 'reversed'].includes(b.status),
      );
      expect(done.body.status).toBe('completed');
      expect(await mainBalance()).toBe(before - po.charged);
    },
    SLOW,
  );

  it(
    'a payin the customer approved while its status was unreadable succeeds at the deadline (cancel too late), credited once',
    async () => {
      proxy().add({
        method: 'GET',
        path: '/operators/MTN/collections/',
        fault: { kind: 'error', status: 503 },
        times: Infinity,
      });
      const before = await mainBalance();
      const p = await payin('pending');
      await eventually(
        () => atOperator('collection', p.id),
        (b) => b?.outcome === 'pending',
      );
      expect((await settleAtOperator('collection', p.id, 'completed')).status).toBe(200);
      await skip(17 * MIN);
      const done = await read(`/v1/payin/${p.reference}`, (b) => b.status !== 'processing');
      expect(done.body.status).toBe('success');
      expect(await legsOf(`${p.id}:payin-credit`)).toBe(2);
      expect(await mainBalance()).toBeGreaterThan(before);
    },
    SLOW,
  );

  it(
    'a payin pending past its deadline is expired only once the operator confirms the cancellation; meanwhile flagged for ops',
    async () => {
      const cancels = { method: 'POST', path: /\/operators\/MTN\/collections\/[^/]+\/cancel/ } as const;
      proxy().add({ ...cancels, fault: { kind: 'error', status: 503 }, times: Infinity });
      proxy().add({
        method: 'GET',
        path: '/operators/MTN/collections/',
        fault: { kind: 'error', status: 503 },
        times: Infinity,
      });
      const p = await payin('pending');
      await skip(20 * MIN);
      const flagged = await eventually(
        () => transactions.findById(p.id),
        (t) => t?.attention != null,
      );
      expect(flagged!.status).toBe('processing');
      expect(flagged!.attention!.reason).toBe('OPERATOR_UNRESOLVED');
      expect(
        String(await metricsRegistry.getSingleMetricAsString('payments_operator_unresolved_total')),
      ).toMatch(/kind="payin"/);
      proxy().clear();
      await skip(2 * HOUR, 10 * MIN);
      const done = await read(`/v1/payin/${p.reference}`, (b) => b.status !== 'processing');
      expect(done.body.status).toBe('expired');
      expect((await atOperator('collection', p.id)).failure.code).toBe('CANCELLED');
      expect((await transactions.findById(p.id))!.attention ?? null).toBeNull();
      expect(await legsOf(`${p.id}:payin-credit`)).toBe(0);
    },
    SLOW,
  );

  it(
    'an operator 4xx refusal is a definitive failure: not retried, no partner check',
    async () => {
      proxy().add({
        method: 'POST',
        path: /^\/operators\/MTN\/collections(\?|$)/,
        fault: { kind: 'error', status: 400, body: { error: 'INVALID_REQUEST', message: 'no' } },
        times: 1,
      });
      const logFrom = proxy().log.length;
      const p = await payin();
      const done = await read(`/v1/payin/${p.reference}`, (b) => b.status !== 'processing');
      expect(done.body.status).toBe('failed');
      expect(done.body.failure.code).toBe('OPERATOR_REJECTED');
      await skip(3 * HOUR, 30 * MIN);
      expect((await api.get(`/v1/payin/${p.reference}`)).body.status).toBe('failed');
      const asked = proxy().log.slice(logFrom);
      expect(
        asked.filter((l) => l.method === 'POST' && /^\/operators\/MTN\/collections(\?|$)/.test(l.path)),
      ).toHaveLength(1);
      expect(asked.some((l) => l.path.includes('partner-check'))).toBe(false);
    },
    SLOW,
  );

  it(
    'a long wait for the operator continues as new, and the payin is credited once when it answers',
    async () => {
      const id = `pr_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      const reference = `amb-can-${randomUUID().slice(0, 8)}`;
      const workflowId = transactionWorkflowId('payin', merchant.merchantId, reference);
      await transactions.insertOrGet(
        storedDirectPayin({ id, merchantId: merchant.merchantId, reference, workflowId }),
      );
      proxy().add({
        method: 'GET',
        path: `/operators/MTN/collections/${id}`,
        fault: { kind: 'rewrite', patch: { outcome: 'pending' } },
        times: Infinity,
      });
      const input = directPayinInput({
        id,
        merchantId: merchant.merchantId,
        reference,
        refundWindowMs: HOUR,
      });
      input.timing.readsPerRun = 2;
      const handle = await stack.env.client.workflow.start('payinWorkflow', {
        taskQueue: stack.taskQueue,
        workflowId,
        args: [input],
      });
      await skip(5 * MIN, 20_000);
      const described = await stack.env.client.workflow.getHandle(workflowId).describe();
      expect(described.runId).not.toBe(handle.firstExecutionRunId);
      proxy().clear();
      await skip(10 * MIN);
      await eventually(
        () => transactions.findById(id),
        (t) => t?.status === 'success',
      );
      expect(await legsOf(`${id}:payin-credit`)).toBe(2);
    },
    SLOW,
  );

  it(
    'a payout workflow cancelled while the operator is pending asks the operator to cancel, then returns the money once',
    async () => {
      const before = await mainBalance();
      const po = await payout('pending');
      await read(`/v1/direct/payout/${po.reference}`, (b) => b.status === 'processed');
      const handle = stack.env.client.workflow.getHandle(
        transactionWorkflowId('payout', merchant.merchantId, po.reference),
      );
      await handle.cancel();
      const done = await read(`/v1/direct/payout/${po.reference}`, (b) => b.status === 'reversed');
      expect(done.body.failure.code).toBe('EXPIRED');
      expect((await atOperator('disbursement', po.id)).failure.code).toBe('CANCELLED');
      expect(await mainBalance()).toBe(before);
      expect(await legsOf(`${po.id}:payout-reversal`)).toBe(2);
    },
    SLOW,
  );

  it(
    'a permanent activity error fails fast with a metric, instead of retrying for ever in silence',
    async () => {
      const input: PayoutWorkflowInput = {
        transactionId: `pr_missing_${randomUUID().slice(0, 8)}`,
        disbursement: {
          transactionId: 'pr_missing',
          operator: 'MTN',
          country: 'CI',
          msisdn: '+2250500000001',
          amount: 100,
          currency: 'XOF',
          sandboxScenario: 'completed',
        },
        timing: { expiryMs: 10 * MIN },
      };
      const handle = await stack.env.client.workflow.start('payoutWorkflow', {
        taskQueue: stack.taskQueue,
        workflowId: `payout:test:${input.transactionId}`,
        args: [input],
      });
      await expect(handle.result()).rejects.toThrow();
      expect(
        String(await metricsRegistry.getSingleMetricAsString('payments_permanent_errors_total')),
      ).toMatch(/type="PermanentError"/);
    },
    SLOW,
  );
});
