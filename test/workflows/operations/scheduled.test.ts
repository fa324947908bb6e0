import { reconciliationWorkflow, recoverySweepWorkflow } from '../../../workflows';
import { operatorCodes } from '../../../src/domain/operators';
import { previousUtcDay } from '../../../src/domain/days';
import { newId, stubActivities, useWorkflowTestEnv } from '../helpers/stub-activities';

// The scheduled workflows: the daily reconciliation (one activity per operator, all at once; an
// operator whose statement cannot be had fails the run once the others are stored) and the recovery
// sweep (one idempotent pass).

const t = useWorkflowTestEnv();

type ReconcileInput = { operator: string; date: string; trigger: string; workflowId?: string | null };
const summary = (input: ReconcileInput, needsPerson = false) => ({
  id: `rec_${input.operator}`,
  operator: input.operator,
  date: input.date,
  totals: {},
  needsPerson,
});

test('reconciliation: every operator reconciled for the day asked -> one report each, nothing needs a person', async () => {
  const stubs = stubActivities({ reconcileOperatorDay: async (input) => summary(input) });
  const workflowId = newId('reconcile');
  const result = await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(reconciliationWorkflow, {
      args: [{ date: '2026-03-01' }],
      taskQueue,
      workflowId,
    }),
  );

  expect(result.date).toBe('2026-03-01');
  expect(result.needsPerson).toBe(false);
  expect(result.reports.map((r) => r.operator)).toEqual([...operatorCodes]);
  // All at once: in any order.
  const asked = stubs.of('reconcileOperatorDay').map((c) => c.args[0] as ReconcileInput);
  expect(asked.sort((a, b) => a.operator.localeCompare(b.operator))).toEqual(
    [...operatorCodes]
      .sort()
      .map((operator) => ({ operator, date: '2026-03-01', trigger: 'workflow', workflowId })),
  );
});

test('reconciliation: a report with a finding for a person -> the run says so', async () => {
  const stubs = stubActivities({
    reconcileOperatorDay: async (input) => summary(input, input.operator === 'WAVE'),
  });
  const result = await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(reconciliationWorkflow, {
      args: [{ date: '2026-03-02', operators: ['MTN', 'WAVE'] }],
      taskQueue,
      workflowId: newId('reconcile'),
    }),
  );

  expect(result).toMatchObject({ needsPerson: true, reports: [{ operator: 'MTN' }, { operator: 'WAVE' }] });
});

test("reconciliation: an operator's statement cannot be had after the retries -> RECONCILIATION_INCOMPLETE, the others reconciled", async () => {
  let moovAttempts = 0;
  const stubs = stubActivities({
    reconcileOperatorDay: async (input) => {
      if (input.operator === 'MOOV' && ++moovAttempts) throw new Error('statement endpoint down');
      return summary(input);
    },
  });
  const error = await t
    .withStubs(stubs, (taskQueue) =>
      t.env.client.workflow.execute(reconciliationWorkflow, {
        args: [{ date: '2026-03-03' }],
        taskQueue,
        workflowId: newId('reconcile'),
      }),
    )
    .catch((err: unknown) => err);

  expect(error).toMatchObject({ cause: { type: 'RECONCILIATION_INCOMPLETE' } });
  expect((error as { cause: { message: string } }).cause.message).toContain('MOOV');
  expect(moovAttempts).toBe(6); // the activity's retry policy, its backoff skipped by the server
  const asked = stubs.of('reconcileOperatorDay').map((c) => (c.args[0] as ReconcileInput).operator);
  expect(asked.sort()).toEqual([...operatorCodes].sort());
});

test('reconciliation without a day: the UTC day before the run', async () => {
  const stubs = stubActivities({ reconcileOperatorDay: async (input) => summary(input) });
  const startedAt = new Date(await t.now());
  const result = await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(reconciliationWorkflow, {
      args: [{ operators: ['ORANGE'] }],
      taskQueue,
      workflowId: newId('reconcile'),
    }),
  );

  expect(result.date).toBe(previousUtcDay(startedAt));
});

test('recovery sweep: one pass, its result returned as the activity counted it', async () => {
  const pass = { examined: 3, outcomes: { started: 2, exists: 1 } };
  const stubs = stubActivities({ recoverUnstartedWorkflows: async () => pass });
  const result = await t.withStubs(stubs, (taskQueue) =>
    t.env.client.workflow.execute(recoverySweepWorkflow, { taskQueue, workflowId: newId('sweep') }),
  );

  expect(result).toEqual(pass);
  expect(stubs.count('recoverUnstartedWorkflows')).toBe(1);
});
