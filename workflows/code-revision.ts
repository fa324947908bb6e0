import { patched } from '@temporalio/workflow';

// Which revision of the workflow code a workflow was started for, carried in its input.
//
// A change to a running workflow's path goes behind `patched(id)` so that histories recorded
// before it replay as they ran. But on a new execution `patched()` records a marker and an upsert
// of the TemporalChangeVersion search attribute: two more history events, a visibility write and
// two billable actions in every payin, payout and refund, for ever. So the API starts workflows
// with `codeRevision: CODE_REVISION`, and a workflow whose input says it was started for a revision
// that includes a change takes the new path without asking `patched()`. Histories without the
// field (started before revision 2) still ask, and replay exactly as before.
//
// Deployment order: workers before the API. An older worker ignores the field and records the
// marker, which the newer code would then not expect on replay (docs/operations.md).

/** The revision the API and the workflows start new workflows with. */
export const CODE_REVISION = 3;

/** Each patched change, and the first revision in which every new workflow takes it. */
const includedSince = {
  'payin-keeps-early-operator-callback': 2,
  'payout-keeps-early-operator-callback': 2,
  'refund-keeps-early-operator-callback': 2,
  'payin-lists-its-refunds': 2,
  // An OTP reaches the payin workflow as the id of a stored OTP, which the workflow deletes (timer).
  'otp-by-reference': 3,
} as const;

export type ChangeId = keyof typeof includedSince;

/** Whether this workflow takes `change`: from its input's revision, else from its history. */
export function hasChange(input: { codeRevision?: number }, change: ChangeId): boolean {
  return (input.codeRevision ?? 1) >= includedSince[change] || patched(change);
}

/**
 * Patch (Temporal's `patched()`) in front of every payin, payout and refund workflow: histories
 * recorded without it run the code of workflows/legacy/, which ended transactions on an operator's
 * silence; new ones run the shared "ask the operator" step (workflows/ask-operator.ts).
 */
export const ANSWERS_ONLY_PATCH = 'operator-answers-only';
