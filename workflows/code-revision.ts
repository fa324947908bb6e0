import { patched } from '@temporalio/workflow';

// How a workflow tells which changes it runs: Temporal's `patched()` / `deprecatePatch()`, and
// nothing else for every change from now on
// (docs/decisions/versioning/patched-for-running-workflows.md).
//
// Revisions 2-3 started workflows with a `codeRevision` input field and let it stand for the markers
// of the changes listed below, to save two history events per change. Those histories carry no
// marker, so `hasChange` still honours a `codeRevision` found in a workflow's input: they replay as
// they ran. Nothing starts workflows with the field any more (a rolling deploy that raised it along
// with a change broke every running workflow's replay); without it, every change below is asked of
// `patched()`. Never add an entry to `includedSince`: a new change is a plain `patched(id)`.

/** The last revision any workflow was started with (frozen: only older histories' inputs carry it). */
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

/**
 * Whether this workflow takes `change`: from the `codeRevision` of an input started by revisions 2-3,
 * else from `patched()` (its marker in the history, or recorded now on a new execution).
 */
export function hasChange(input: { codeRevision?: number }, change: ChangeId): boolean {
  return (input.codeRevision ?? 1) >= includedSince[change] || patched(change);
}

/**
 * Patch (Temporal's `patched()`) in front of every payin, payout and refund workflow: histories
 * recorded without it run the code of workflows/legacy/, which ended transactions on an operator's
 * silence; new ones run the shared "ask the operator" step (workflows/ask-operator.ts).
 */
export const ANSWERS_ONLY_PATCH = 'operator-answers-only';
