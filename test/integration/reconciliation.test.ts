import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ApiClient, eventually } from '../helpers/http';
import { startStack, type TestStack } from '../helpers/stack';
import { createTestMerchant, type TestMerchant } from '../helpers/merchants';
import { Ledger } from '../../src/ledger';
import { EventStore } from '../../src/events/event-store';
import { HttpOperatorGateway } from '../../src/operators/http-gateway';
import {
  OperatorAskIndex,
  ReconciliationReportStore,
  type ReconciliationReport,
} from '../../src/reconciliation';
import type { ReconciliationWorkflowResult } from '../../workflows/operations/reconciliation';

// Reconciliation on the real stack: the operator simulator's books (statements, test controls that
// move the operator's side after ours ended), our records and ledger on FerretDB, the workflow on
// the time-skipping server, and the real CLI as a child process. Each test works with its own
// operator, so each operator's statement of the day holds only that test's transactions.

const bin = join(__dirname, '../../bin/payments.js');
const MIN = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('reconciliation against the operator books', () => {
  let stack: TestStack;
  let merchant: TestMerchant;
  let api: ApiClient;
  let ledger: Ledger;
  let gateway: HttpOperatorGateway;
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    stack = await startStack({ PAYIN_EXPIRY: '10m', PAYOUT_EXPIRY: '10m' });
    merchant = await createTestMerchant(stack);
    api = new ApiClient(stack.baseUrl, merchant.credentials);
    ledger = Ledger.on(stack.mongo);
    gateway = new HttpOperatorGateway({ baseUrl: stack.simulator.url, timeoutMs: 5_000 });
    const funding = await ledger.systemAccount('sandbox-funding', 'XOF', 'test');
    await ledger.transfer({
      sourceRef: `fund:${randomUUID()}`,
      fromAccountId: funding.id,
      toAccountId: await ledger.mainAccountId(merchant.merchantId, 'XOF'),
      amount: 100_000,
      reason: 'test funding',
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** The real CLI on this stack's database, operator endpoint and Temporal server. */
  const cli = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [bin, ...args],
        {
          env: {
            ...process.env,
            NODE_ENV: 'test',
            LOG_LEVEL: 'silent',
            MONGODB_URI: `${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`,
            OPERATOR_BASE_URL: stack.simulator.url,
            TEMPORAL_ADDRESS: stack.env.address,
            TEMPORAL_TASK_QUEUE: stack.taskQueue,
          },
          timeout: 90_000,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
    });

  const payinBody = (
    p: { provider: string; msisdn: string; amount?: number; otp?: string },
    scenario = 'completed',
  ) => ({
    reference: `rec-${randomUUID().slice(0, 12)}`,
    sandboxScenario: scenario,
    payin: {
      amount: p.amount ?? 5_000,
      msisdn: p.msisdn,
      provider: p.provider,
      country: 'CI',
      ...(p.otp ? { otp: p.otp } : {}),
    },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
  });
  const payinUntil = async (body: ReturnType<typeof payinBody>, done: (b: any) => boolean) => {
    const created = await api.post('/v1/direct/payin', body);
    expect(created.status).toBe(201);
    return (
      await eventually(
        () => api.get(`/v1/payin/${body.reference}`),
        (r) => done(r.body),
      )
    ).body;
  };
  const sandbox = async (path: string, body?: unknown, method = 'POST') => {
    const res = await fetch(`${stack.simulator.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    expect(res.status).toBeLessThan(300);
  };
  const mainBalance = async () => (await ledger.mainAccount(merchant.merchantId, 'XOF')).balance;
  const reconcileByWorkflow = (operator: string) =>
    stack.env.client.workflow.execute('reconciliationWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `reconciliation-test-${randomUUID()}`,
      args: [{ date: today(), operators: [operator] }],
    }) as Promise<ReconciliationWorkflowResult>;
  const cliReport = async (operator: string): Promise<{ run: Run; report: ReconciliationReport }> => {
    const run = await cli('reconcile', '--operator', operator, '--date', today(), '--json');
    expect(run.stderr).toBe('');
    return { run, report: JSON.parse(run.stdout) as ReconciliationReport };
  };

  it('a clean day: every entry matches, zero mismatches, the CLI exits 0 and prints a table', async () => {
    const moov = { provider: 'MOOV', msisdn: '+2250100000001' };
    const paid = await payinUntil(payinBody({ ...moov, amount: 8_000 }), (b) => b.status === 'success');
    await payinUntil(payinBody(moov, 'failed'), (b) => b.status === 'failed');
    const refund = await api.post(`/v1/payin/${paid.reference}/refund`, {
      amount: 3_000,
      reason: 'returned',
      externalReference: `rf-${randomUUID().slice(0, 8)}`,
    });
    expect(refund.status).toBe(201);
    await eventually(
      () => api.get(`/v1/refunds/${refund.body.reference}`),
      (r) => r.body.status === 'completed',
    );

    const { run, report } = await cliReport('MOOV');
    expect(run.code).toBe(0);
    expect(report).toMatchObject({
      operator: 'MOOV',
      date: today(),
      trigger: 'cli',
      needsPerson: false,
      findings: [],
      totals: { statement: 3, asked: 3, matched: 3, pending: 0, findings: 0, needsPerson: 0 },
    });
    const human = await cli('reconcile', '--operator', 'MOOV', '--date', today());
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Reconciliation of MOOV for ${today()}: report MOOV:${today()}:2 (cli).`);
    expect(human.stdout).toContain('Nothing to reconcile: both sides agree.');
  }, 180_000);

  it('a payin the operator completed after we ended it is credited once, corrected to success, and told', async () => {
    const before = await mainBalance();
    const body = payinBody({ provider: 'MTN', msisdn: '+2250500000001', amount: 10_000 }, 'pending');
    const created = await payinUntil(body, (b) => b.confirmationStatus === 'pending');
    // Our deadline passes while the operator says pending: the payin ends (expired).
    await stack.env.sleep(11 * MIN);
    const ended = await eventually(
      () => api.get(`/v1/payin/${body.reference}`),
      (r) => r.body.status !== 'processing',
    );
    expect(['expired', 'failed']).toContain(ended.body.status);
    await eventually(
      () => stack.env.client.workflow.getHandle(`payin:${merchant.merchantId}:${body.reference}`).describe(),
      (d) => d.status.name !== 'RUNNING',
    );
    expect(await mainBalance()).toBe(before);
    // Then the operator's books say the customer paid (force: even over a confirmed cancellation).
    await sandbox(`/_sandbox/collections/${created.id}/settle`, { outcome: 'completed', force: true });

    const first = await reconcileByWorkflow('MTN');
    expect(first.reports).toHaveLength(1);
    expect(first.reports[0]).toMatchObject({ operator: 'MTN', needsPerson: false, totals: { corrected: 1 } });
    const stored = await ReconciliationReportStore.on(stack.mongo).get(first.reports[0]!.id);
    expect(stored?.trigger).toBe('workflow');
    expect(stored?.findings).toEqual([
      expect.objectContaining({
        class: 'collected_not_credited',
        id: created.id,
        action: 'credited',
        needsPerson: false,
        operator: expect.objectContaining({ status: 'completed', amount: 10_000 }),
        ours: expect.objectContaining({
          status: ended.body.status,
          ledger: { 'payin-credit': null, 'payin-fee': null },
        }),
      }),
    ]);
    const net = created.payFee ? created.amount - created.fee : created.amount;
    expect(await mainBalance()).toBe(before + net);
    const record = (await api.get(`/v1/payin/${body.reference}`)).body;
    expect(record).toMatchObject({ status: 'success', confirmationStatus: 'accepted', failure: null });
    const corrected = async () =>
      (
        await EventStore.on(stack.mongo).list(merchant.merchantId, {
          type: 'payin.corrected',
          reference: body.reference,
          limit: 10,
        })
      ).events.map((e) => e.data.status);
    expect(await corrected()).toEqual(['success']);

    // Again, through the CLI: nothing left to do; still credited once, told once.
    const again = await cliReport('MTN');
    expect(again.run.code).toBe(0);
    expect(again.report).toMatchObject({ findings: [], totals: { matched: 1, corrected: 0 } });
    expect(await mainBalance()).toBe(before + net);
    expect(await corrected()).toEqual(['success']);
    expect(await ledger.findTransfer(`${created.id}:payin-credit`)).toMatchObject({ amount: net });

    // The same correction made by the CLI: the event goes through the worker (publishEventWorkflow).
    const late = payinBody({ provider: 'MTN', msisdn: '+2250500000001', amount: 4_000 }, 'pending');
    const lateCreated = await payinUntil(late, (b) => b.confirmationStatus === 'pending');
    await stack.env.sleep(11 * MIN);
    await eventually(
      () => api.get(`/v1/payin/${late.reference}`),
      (r) => r.body.status !== 'processing',
    );
    await eventually(
      () => stack.env.client.workflow.getHandle(`payin:${merchant.merchantId}:${late.reference}`).describe(),
      (d) => d.status.name !== 'RUNNING',
    );
    await sandbox(`/_sandbox/collections/${lateCreated.id}/settle`, { outcome: 'completed', force: true });
    const byCli = await cliReport('MTN');
    expect(byCli.run.code).toBe(0); // corrected: nothing needs a person
    expect(byCli.report.findings).toEqual([
      expect.objectContaining({ class: 'collected_not_credited', id: lateCreated.id, action: 'credited' }),
    ]);
    const lateNet = lateCreated.payFee ? lateCreated.amount - lateCreated.fee : lateCreated.amount;
    expect(await mainBalance()).toBe(before + net + lateNet);
    expect((await api.get(`/v1/payin/${late.reference}`)).body.status).toBe('success');
    const lateEvents = await eventually(
      async () =>
        await EventStore.on(stack.mongo).list(merchant.merchantId, {
          type: 'payin.corrected',
          reference: late.reference,
          limit: 10,
        }),
      (page) => page.events.length > 0,
    );
    expect(lateEvents.events.map((e) => e.data.status)).toEqual(['success']);
    expect((await cliReport('MTN')).report.findings).toEqual([]);
    expect(await mainBalance()).toBe(before + net + lateNet);
  }, 180_000);

  it('a payout the operator paid after we reversed it needs a person: paid_but_reversed, the CLI exits 2', async () => {
    const reference = `po-${randomUUID().slice(0, 12)}`;
    const created = await api.post('/v1/direct/payout', {
      reference,
      sandboxScenario: 'pending',
      payout: { amount: 7_000, msisdn: '+2250700000009', provider: 'ORANGE', country: 'CI' },
    });
    expect(created.status).toBe(201);
    await eventually(
      () => api.get(`/v1/direct/payout/${reference}`),
      (r) => r.body.status === 'processed',
    );
    const before = await mainBalance();
    await stack.env.sleep(11 * MIN);
    await eventually(
      () => api.get(`/v1/direct/payout/${reference}`),
      (r) => r.body.status === 'reversed',
    );
    expect(await mainBalance()).toBe(before + created.body.amount + created.body.fee);
    await sandbox(`/_sandbox/disbursements/${created.body.id}/settle`, { outcome: 'completed', force: true });

    const { run, report } = await cliReport('ORANGE');
    expect(run.code).toBe(2);
    expect(report.needsPerson).toBe(true);
    expect(report.findings).toEqual([
      expect.objectContaining({
        class: 'paid_but_reversed',
        kind: 'disbursement',
        id: created.body.id,
        action: 'needs_person',
        operator: expect.objectContaining({ status: 'completed', amount: 7_000 }),
        ours: expect.objectContaining({
          status: 'reversed',
          ledger: expect.objectContaining({ 'payout-reversal': created.body.amount + created.body.fee }),
        }),
      }),
    ]);
    // Nothing was moved for it: a person decides.
    expect(await mainBalance()).toBe(before + created.body.amount + created.body.fee);
    const human = await cli('reconcile', '--operator', 'ORANGE', '--date', today());
    expect(human.code).toBe(2);
    expect(human.stdout).toMatch(
      /paid_but_reversed\s+disbursement\s+\S+\s+needs_person\s+completed 7000 XOF\s+reversed 7000 XOF/,
    );
    expect(human.stdout).toContain('1 finding(s) need a person');
  }, 180_000);

  it('unknown to us, amount mismatch, unknown to the operator: each named, with both sides', async () => {
    const wave = { provider: 'WAVE', msisdn: '+2250700000002' };
    // An id the operator holds that we never asked for.
    await gateway.requestCollection({
      transactionId: 'pr_stranger_0000000000000001',
      operator: 'WAVE',
      country: 'CI',
      msisdn: '+2250700000003',
      amount: 1_234,
      currency: 'XOF',
      sandboxScenario: null,
    });
    // Both know it, with other amounts.
    const tampered = await payinUntil(payinBody({ ...wave, amount: 6_000 }), (b) => b.status === 'success');
    await sandbox(`/_sandbox/collections/${tampered.id}/tamper`, { amount: 6_500 });
    // We credited it; the operator's books lost it.
    const lost = await payinUntil(payinBody({ ...wave, amount: 2_000 }), (b) => b.status === 'success');
    await sandbox(`/_sandbox/transactions/collection/${lost.id}`, undefined, 'DELETE');
    await eventually(
      () => gateway.collectionStatus('pr_stranger_0000000000000001', 'WAVE', 'CI'),
      (s) => s.outcome === 'completed',
    );

    const { run, report } = await cliReport('WAVE');
    expect(run.code).toBe(2);
    const byClass = Object.fromEntries(report.findings.map((f) => [f.class, f]));
    expect(Object.keys(byClass).sort()).toEqual(['amount_mismatch', 'unknown_to_operator', 'unknown_to_us']);
    expect(byClass.unknown_to_us).toMatchObject({
      id: 'pr_stranger_0000000000000001',
      action: 'needs_person',
      ours: null,
      operator: { status: 'completed', amount: 1_234 },
    });
    expect(byClass.amount_mismatch).toMatchObject({
      id: tampered.id,
      operator: { amount: 6_500 },
      ours: { amount: 6_000, status: 'success' },
    });
    expect(byClass.unknown_to_operator).toMatchObject({
      id: lost.id,
      operator: null,
      ours: { status: 'success', amount: 2_000, ledger: { 'payin-credit': expect.any(Number) } },
    });
    expect(report.totals).toMatchObject({ statement: 2, asked: 2, findings: 3, needsPerson: 3 });

    const list = await cli('reconcile', '--list', '--operator', 'WAVE', '--json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        id: report.id,
        needsPerson: true,
        classes: { amount_mismatch: 1, unknown_to_operator: 1, unknown_to_us: 1 },
      }),
    ]);
    const all = await cli('reconcile', '--list');
    expect(all.stdout).toMatch(/^REPORT\s+TRIGGER\s+STARTED/);
    for (const id of [report.id, `MOOV:${today()}:1`, `ORANGE:${today()}:1`])
      expect(all.stdout).toContain(id);
    const bad = await cli('reconcile', '--operator', 'AIRTEL', '--date', today());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown operator "AIRTEL"/);
  }, 180_000);

  it('the ask index lists every id asked of an operator on a day once, whatever the concurrency', async () => {
    const day = new Date('2026-03-04T10:00:00Z');
    const a = OperatorAskIndex.on(stack.mongo, () => day);
    const b = OperatorAskIndex.on(stack.mongo, () => day); // another process
    const ids = Array.from({ length: 60 }, (_, i) => `pr_ask_${i}`);
    await Promise.all(
      ids.flatMap((id, i) => [
        (i % 2 ? a : b).record({ kind: 'collection', id, operator: 'MTN', country: 'CI' }),
        (i % 3 ? b : a).record({ kind: 'collection', id, operator: 'MTN', country: 'CI' }), // a retry
      ]),
    );
    await a.record({ kind: 'refund', id: 'rf_ask', operator: 'MTN', country: 'CI' });
    await a.record({ kind: 'collection', id: 'pr_other_op', operator: 'ORANGE', country: 'CI' });
    const listed = await OperatorAskIndex.on(stack.mongo).ofDay('MTN', '2026-03-04');
    expect(listed.map((x) => `${x.kind}:${x.id}`).sort()).toEqual(
      [...ids.map((id) => `collection:${id}`), 'refund:rf_ask'].sort(),
    );
    expect(await OperatorAskIndex.on(stack.mongo).ofDay('MTN', '2026-03-05')).toEqual([]);
    expect(await a.find('collection', 'pr_ask_7')).toMatchObject({ day: '2026-03-04', operator: 'MTN' });
  });
});
