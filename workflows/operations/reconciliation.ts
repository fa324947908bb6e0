import { ApplicationFailure, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type {
  ReconcileDaySummary,
  createReconciliationActivities,
} from '../../activities/operations/reconciliation-activities';
import { operatorCodes, type OperatorCode } from '../../src/domain/operators';
import { previousUtcDay } from '../../src/domain/days';

// Reconciles one UTC day (yesterday's, for the daily schedule) with every operator's statement: one
// activity per operator, all at once; each stores its report (docs/reconciliation.md). An operator
// whose statement cannot be had after the retries fails the run, once the others are done.

export interface ReconciliationWorkflowInput {
  /** The UTC day, YYYY-MM-DD; absent: the day before the scheduled (or start) time. */
  date?: string;
  /** Absent: every operator. */
  operators?: OperatorCode[];
}

export interface ReconciliationWorkflowResult {
  date: string;
  reports: ReconcileDaySummary[];
  needsPerson: boolean;
}

const { reconcileOperatorDay } = proxyActivities<ReturnType<typeof createReconciliationActivities>>({
  startToCloseTimeout: '30m',
  retry: { initialInterval: '30s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 6 },
});

// Set by Temporal on a workflow a Schedule started: the time it was due (a catch-up run is late).
const scheduledStartTime = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);
const scheduledById = defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD);

export async function reconciliationWorkflow(
  input: ReconciliationWorkflowInput = {},
): Promise<ReconciliationWorkflowResult> {
  const info = workflowInfo();
  const due = info.typedSearchAttributes.get(scheduledStartTime) ?? new Date(Date.now());
  const date = input.date ?? previousUtcDay(due);
  const trigger = info.typedSearchAttributes.get(scheduledById) ? 'schedule' : 'workflow';
  const operators = input.operators ?? [...operatorCodes];
  const runs = await Promise.allSettled(
    operators.map((operator) =>
      reconcileOperatorDay({ operator, date, trigger, workflowId: info.workflowId }),
    ),
  );
  const reports = runs.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = operators.filter((_, i) => runs[i]!.status === 'rejected');
  if (failed.length > 0)
    throw ApplicationFailure.nonRetryable(
      `reconciliation of ${date} failed for ${failed.join(', ')} (reports stored for the others)`,
      'RECONCILIATION_INCOMPLETE',
    );
  const needsPerson = reports.some((r) => r.needsPerson);
  if (needsPerson) log.warn('reconciliation found mismatches that need a person', { date });
  return { date, reports, needsPerson };
}
