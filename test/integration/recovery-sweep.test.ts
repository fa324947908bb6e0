import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { eventually } from '../helpers/http';
import { testPayinService } from '../helpers/services';
import { useStack } from '../helpers/use-stack';
import { Ledger } from '../../src/ledger';
import { resolveFeeSchedule } from '../../src/domain/fees';
import { TransactionStore } from '../../src/persistence/transactions';
import { WorkflowStartLog } from '../../src/persistence/workflow-starts';
import { PayoutService } from '../../src/services/payout-service';
import { payoutSourceRefs } from '../../src/ledger/postings';
import { buildRecoveryDeps } from '../../src/main/wiring';
import { recoverySweepOf, type RecoveryDeps } from '../../activities/operations/recovery-activities';
import type { RecoverySweepResult } from '../../src/recovery/sweep';

// The recovery sweep on the real stack (FerretDB, time-skipping Temporal, worker, simulator). A crash
// between storing a record and starting its workflow is the API's own code meeting a Temporal client
// whose start fails (as if the process died right there), or a ledger whose debit does: the record
// and its start marker stay, no workflow exists. The sweep must start it exactly as the API would,
// once, however often it runs; and leave alone what needs nothing.
// (Schedules are not supported by the time-skipping server: the schedule is tested on the dev
// server in test/integration/refund-update-limits.test.ts; here the use case and its workflow run directly.)

describe('recovery sweep', () => {
  const { stack, merchant, api } = useStack({ config: { RECOVERY_GRACE_PERIOD: '1s' }, fund: 1_000_000 });
  let ledger: Ledger;
  let transactions: TransactionStore;
  let starts: WorkflowStartLog;
  let deps: RecoveryDeps;
  const warnings: { message: string; fields: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    ledger = Ledger.on(stack.mongo);
    transactions = TransactionStore.on(stack.mongo);
    starts = WorkflowStartLog.on(stack.mongo);
    deps = await buildRecoveryDeps({ mongo: stack.mongo, config: stack.config, transactions, ledger });
  });

  /** The sweep as the activity builds it, on the stack's client, past the grace period. */
  const sweep = (at = new Date(Date.now() + 2_000)): Promise<RecoverySweepResult> =>
    recoverySweepOf(deps, stack.env.client, {
      warn: (message, fields) => warnings.push({ message, fields }),
    }).run(at);
  const ref = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  const exists = async (workflowId: string) => {
    try {
      await stack.env.client.workflow.getHandle(workflowId).describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };

  /** The real client, except that starting a workflow fails: the process "dies" right before it. */
  function crashingOnStart(client: Client): Client {
    const workflow = new Proxy(client.workflow, {
      get(target, prop) {
        if (prop === 'start') return () => Promise.reject(new Error('killed before the workflow started'));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return new Proxy(client, {
      get(target, prop) {
        if (prop === 'workflow') return workflow;
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
  /** The real ledger, except that a transfer fails: the process "dies" before the payout's debit. */
  function crashingOnDebit(real: Ledger): Ledger {
    return new Proxy(real, {
      get(target, prop) {
        if (prop === 'transfer') return () => Promise.reject(new Error('killed before the debit'));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  const payins = (temporal: Client) => testPayinService(stack, { transactions, starts, temporal });
  const payouts = (temporal: Client, withLedger: Ledger = ledger) =>
    new PayoutService({
      transactions,
      starts,
      ledger: withLedger,
      temporal,
      taskQueue: stack.taskQueue,
      payoutExpiryMs: stack.config.PAYOUT_EXPIRY,
      feeSchedule: resolveFeeSchedule(undefined),
    });
  const directPayin = (reference: string, provider = 'MTN', msisdn = '+2250500000001') => ({
    reference,
    customerName: 'Awa Koné',
    payin: {
      amount: 5_000,
      msisdn,
      provider,
      country: 'CI',
      ...(provider === 'ORANGE' ? { otp: '1234' } : {}),
    },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
  });
  const payoutInput = (reference: string) => ({
    shape: 'direct' as const,
    reference,
    customerName: 'Awa Koné',
    amount: 2_000,
    msisdn: '+2250500000001',
    provider: 'MTN' as const,
    country: 'CI' as const,
    pathPrefix: 'payout.',
  });
  const balance = async () => (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance;
  const debits = (id: string) =>
    stack.mongo.collection('ledger_entries').countDocuments({ sourceRef: payoutSourceRefs(id).debit });

  it('starts a direct payin whose workflow never started, once, however often it runs', async () => {
    const reference = ref('rp');
    const workflowId = `payin:${merchant.merchantId}:${reference}`;
    const crashed = payins(crashingOnStart(stack.env.client));
    await expect(
      crashed.createDirect(merchant.merchantId, directPayin(reference) as never, randomUUID()),
    ).rejects.toThrow('killed before the workflow started');
    expect((await transactions.find(merchant.merchantId, 'payin', reference))?.status).toBe('processing');
    expect(await starts.find(workflowId)).not.toBeNull();
    expect(await exists(workflowId)).toBe(false);

    // Within the grace period the request may still be running: left alone.
    expect((await sweep(new Date())).examined).toBe(0);
    expect(await exists(workflowId)).toBe(false);

    const [first, second] = await Promise.all([sweep(), sweep()]);
    expect((first.outcomes.started ?? 0) + (second.outcomes.started ?? 0)).toBe(1);
    expect(await starts.find(workflowId)).toBeNull();
    const done = await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
    expect(done.body.amount).toBe(5_000);
    const runId = (await stack.env.client.workflow.getHandle(workflowId).describe()).runId;
    expect((await sweep()).examined).toBe(0);
    expect((await stack.env.client.workflow.getHandle(workflowId).describe()).runId).toBe(runId);
    expect(warnings.some((w) => w.fields.workflowId === workflowId && w.fields.outcome === 'started')).toBe(
      true,
    );
    // No personal data in its log line.
    expect(JSON.stringify(warnings)).not.toContain('0500000001');
  });

  it('a payout stored but never debited: debited once, then run to completion', async () => {
    const reference = ref('rpo');
    const before = await balance();
    await expect(
      payouts(stack.env.client, crashingOnDebit(ledger)).create(
        merchant.merchantId,
        payoutInput(reference),
        randomUUID(),
      ),
    ).rejects.toThrow('killed before the debit');
    const stored = (await transactions.find(merchant.merchantId, 'payout', reference))!;
    expect(stored.status).toBe('pending');
    expect(await debits(stored.id)).toBe(0);

    expect((await sweep()).outcomes.started).toBe(1);
    await eventually(
      () => api.get(`/v1/direct/payout/${reference}`),
      (r) => r.body.status === 'completed',
    );
    expect(await balance()).toBe(before - stored.chargedAmount);
    expect(await debits(stored.id)).toBe(2); // one transfer: a debit and a credit leg
  });

  it('a payout debited whose workflow never started: started, never debited twice', async () => {
    const reference = ref('rpd');
    const before = await balance();
    await expect(
      payouts(crashingOnStart(stack.env.client)).create(
        merchant.merchantId,
        payoutInput(reference),
        randomUUID(),
      ),
    ).rejects.toThrow('killed before the workflow started');
    const stored = (await transactions.find(merchant.merchantId, 'payout', reference))!;
    expect(await balance()).toBe(before - stored.chargedAmount);

    expect((await sweep()).outcomes.started).toBe(1);
    await eventually(
      () => api.get(`/v1/direct/payout/${reference}`),
      (r) => r.body.status === 'completed',
    );
    expect(await balance()).toBe(before - stored.chargedAmount);
    expect(await debits(stored.id)).toBe(2);
  });

  it('a session payin: started awaiting its customer, as the API starts it', async () => {
    const reference = ref('rs');
    const workflowId = `payin:${merchant.merchantId}:${reference}`;
    await expect(
      payins(crashingOnStart(stack.env.client)).createSession(
        merchant.merchantId,
        {
          reference,
          amount: 5_000,
          msisdn: '+2250500000001',
          country: 'CI',
          action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
        } as never,
        { idempotencyKey: randomUUID(), requestOrigin: 'http://127.0.0.1' },
      ),
    ).rejects.toThrow();
    expect((await sweep()).outcomes.started).toBe(1);
    const description = await stack.env.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('RUNNING');
    const tx = (await transactions.find(merchant.merchantId, 'payin', reference))!;
    const page = await fetch(`${stack.baseUrl}/checkout/${tx.id}/status`).then((r) => r.json());
    expect(page).toMatchObject({ status: 'processing', awaitingCustomer: true });
  });

  it('an Orange direct payin starts without its OTP (never stored): the operator refuses it, OTP_REQUIRED', async () => {
    const reference = ref('ro');
    await expect(
      payins(crashingOnStart(stack.env.client)).createDirect(
        merchant.merchantId,
        directPayin(reference, 'ORANGE', '+2250700000001') as never,
        randomUUID(),
      ),
    ).rejects.toThrow();
    expect((await sweep()).outcomes.started).toBe(1);
    const done = await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'failed',
    );
    expect(done.body.failure).toMatchObject({ code: 'OTP_REQUIRED' });
  });

  it('clears what needs nothing: a final transaction, a running workflow, a record never stored', async () => {
    const finished = ref('rf');
    const running = ref('rr');
    expect((await api.post('/v1/direct/payin', directPayin(finished))).status).toBe(201);
    await eventually(
      () => api.get(`/v1/payin/${finished}`),
      (r) => r.body.status === 'success',
    );
    expect(
      (await api.post('/v1/direct/payin', { ...directPayin(running), sandboxScenario: 'pending' })).status,
    ).toBe(201);
    const finishedId = `payin:${merchant.merchantId}:${finished}`;
    const runningId = `payin:${merchant.merchantId}:${running}`;
    const runIds = await Promise.all(
      [finishedId, runningId].map(
        async (id) => (await stack.env.client.workflow.getHandle(id).describe()).runId,
      ),
    );
    // Markers as a crash of a retry would leave them, and one whose record was never written.
    const neverStored = ref('rn');
    for (const reference of [finished, running, neverStored])
      await starts.mark({
        _id: `payin:${merchant.merchantId}:${reference}`,
        kind: 'payin',
        merchantId: merchant.merchantId,
        reference,
      });

    const result = await sweep();
    expect(result.outcomes).toMatchObject({ final: 1, exists: 1, missing: 1 });
    for (const reference of [finished, running, neverStored])
      expect(await starts.find(`payin:${merchant.merchantId}:${reference}`)).toBeNull();
    expect(await exists(`payin:${merchant.merchantId}:${neverStored}`)).toBe(false);
    const after = await Promise.all(
      [finishedId, runningId].map(
        async (id) => (await stack.env.client.workflow.getHandle(id).describe()).runId,
      ),
    );
    expect(after).toEqual(runIds);
  });

  it('the sweep workflow runs the activity on the worker, as its schedule starts it', async () => {
    const reference = ref('rw');
    await expect(
      payins(crashingOnStart(stack.env.client)).createDirect(
        merchant.merchantId,
        directPayin(reference) as never,
        randomUUID(),
      ),
    ).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 1_200)); // RECOVERY_GRACE_PERIOD is 1 s here
    const result = await stack.env.client.workflow.execute('recoverySweepWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `recovery-sweep-${randomUUID()}`,
    });
    expect((result as RecoverySweepResult).outcomes.started).toBeGreaterThanOrEqual(1);
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
  });

  // The API answers without waiting for the removal (answerFirst): gone just after the answer.
  it('API requests leave no marker behind', async () => {
    const reference = ref('ra');
    expect((await api.post('/v1/direct/payin', directPayin(reference))).status).toBe(201);
    await eventually(
      () => starts.find(`payin:${merchant.merchantId}:${reference}`),
      (m) => m === null,
    );
    const payout = ref('rap');
    const res = await api.post('/v1/direct/payout', {
      reference: payout,
      payout: { amount: 1_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    });
    expect(res.status).toBe(201);
    await eventually(
      () => starts.find(`payout:${merchant.merchantId}:${payout}`),
      (m) => m === null,
    );
  });
});
