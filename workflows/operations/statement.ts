import { proxyActivities } from '@temporalio/workflow';
import type { createStatementActivities } from '../../activities/operations/statement-activities';

// One statement: generate it (an activity that reads the ledger, checks the sums and stores the
// content), then say so with `statement.ready`. A generation that keeps failing marks the statement
// failed, so its reader sees an end instead of waiting forever.

export interface StatementWorkflowInput {
  statementId: string;
}

type StatementActivities = ReturnType<typeof createStatementActivities>;

const { generateStatement } = proxyActivities<StatementActivities>({
  startToCloseTimeout: '10m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 5 },
});
const { failStatement, publishStatementReady } = proxyActivities<StatementActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

export async function statementWorkflow(input: StatementWorkflowInput): Promise<'ready' | 'failed'> {
  try {
    await generateStatement(input.statementId);
  } catch {
    await failStatement(input.statementId);
    return 'failed';
  }
  await publishStatementReady(input.statementId);
  return 'ready';
}
