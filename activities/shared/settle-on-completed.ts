import type { OperatorStatus } from '../../src/operators/gateway';

/** An operator's status, and whether the activity that read it also recorded the end it announced. */
export type SettledStatus = OperatorStatus & { settled: boolean };

/**
 * The rule behind every status read that records a success (`readCollectionAndSettle`,
 * `readDisbursementAndSettle`, `readRefundAndSettle`): `record` runs only when the operator answers
 * `completed`, its explicit final answer; any other answer, or none (the read throws), changes
 * nothing and the workflow decides what comes next. `record` must apply once whatever the retries:
 * a retry after a lost answer finds `completed` again (final at the operator) and applies nothing
 * twice.
 */
export async function settleOnCompleted(
  read: () => Promise<OperatorStatus>,
  record: (status: OperatorStatus) => Promise<void>,
): Promise<SettledStatus> {
  const status = await read();
  if (status.outcome !== 'completed') return { ...status, settled: false };
  await record(status);
  return { ...status, settled: true };
}
