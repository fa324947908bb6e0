// eslint-disable-next-line no-restricted-imports -- the one file allowed to call them
import { deprecatePatch, patched } from '@temporalio/workflow';

// The one place a change to a running workflow is declared (docs/versioning.md): every patch id a
// workflow asks about has a row here, and test/unit/patches-policy.test.ts fails once a row is past
// its dates, so what is added is also taken away.

/** The workflow types the worker registers (workflows/index.ts). */
export type WorkflowType =
  | 'payinWorkflow'
  | 'refundWorkflow'
  | 'payinRefundDeskWorkflow'
  | 'payoutWorkflow'
  | 'payoutBatchWorkflow'
  | 'webhookDeliveryWorkflow'
  | 'webhookDispatcherWorkflow'
  | 'webhookReplayWorkflow'
  | 'publishEventWorkflow'
  | 'reconciliationWorkflow'
  | 'recoverySweepWorkflow'
  | 'statementWorkflow';

/**
 * The longest one run of each type can stay open, in days, rounded up. A run that continues as new
 * starts its next run on the code deployed then, so a run (not the chain) is what a patch must
 * outlive. With configured durations above their defaults, raise these first.
 */
export const LONGEST_RUN_DAYS: Readonly<Record<WorkflowType, number>> = {
  // Session wait (SESSION_EXPIRY 30m), then asking the operator: at most 500 reads a run, rechecks
  // at most an hour apart (workflows/shared/ask-operator.ts) ~21 days; then the partner checks of an
  // ambiguous failure (PAYIN_CORRECTION_WINDOW 48h).
  payinWorkflow: 23,
  // Asking the operator, as above.
  refundWorkflow: 21,
  // Open while its refunds run (workflows/refund/payin-refund-desk.ts): as long as a refund, plus a minute.
  payinRefundDeskWorkflow: 22,
  // Asking the operator, as above; a provider hold runs 200 checks at most 10 minutes apart (33 h).
  payoutWorkflow: 21,
  // Waits until every payout of the batch is final; continues as new when the history grows.
  payoutBatchWorkflow: 22,
  // 11 attempts over ~2.9 days with ±20 % jitter; a receiver answering Retry-After (at most 24 h,
  // src/webhooks/retry-schedule.ts) to every attempt stretches its 10 waits to ~10.2 days.
  webhookDeliveryWorkflow: 11,
  // A run is drains of at most 75 minutes and waits of the retry schedule (~2.9 days, at most
  // ~10.2 with Retry-After, as above) for one failing event; it continues as new before 2,000 events.
  // A run delivering steadily continues as new after ~2,000 / 6 hours (a week and a half at most).
  webhookDispatcherWorkflow: 14,
  // Activities and short pauses only: minutes to hours (a replay sends at most 10,000 events, 10 a
  // second). An outage, while activities retry, pushes every date by its length.
  webhookReplayWorkflow: 1,
  publishEventWorkflow: 1,
  reconciliationWorkflow: 1,
  recoverySweepWorkflow: 1,
  statementWorkflow: 1,
};

/**
 * How long the namespace keeps a closed workflow's history (a query, a reset or a replay of it runs
 * the current code): 1 day, as registered by src/infra/local-servers.ts and by the compose file's
 * `temporalio/auto-setup` (its DEFAULT_NAMESPACE_RETENTION, 24h). Raise it here if a namespace keeps
 * histories longer.
 */
export const NAMESPACE_RETENTION_DAYS = 1;

/** A patch's row: what it changes, where, and when it shipped (and was deprecated). */
export interface PatchRow {
  /** What the patched branch changes, in a sentence. */
  readonly change: string;
  /** The workflow types whose code asks about this id. */
  readonly workflows: readonly WorkflowType[];
  /** The day (UTC, YYYY-MM-DD) the release with `isPatched(id)` was deployed. */
  readonly shipped: string;
  /** The day the release with `deprecated(id)` (old branch deleted) was deployed, once it was. */
  readonly deprecated?: string;
  /** shipped + the longest run of its types + retention: no workflow from before it can be replayed. */
  readonly deprecateFrom: string;
  /** (deprecated, or deprecateFrom) + the same period: no workflow that asked `patched()` is left. */
  readonly removeFrom: string;
}

export type PatchTable = Readonly<Record<string, PatchRow>>;

const DAY_MS = 86_400_000;
const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The days a patch on these workflow types must wait at each step: longest run + retention. */
export function policyPeriodDays(workflows: readonly WorkflowType[]): number {
  return Math.max(0, ...workflows.map((w) => LONGEST_RUN_DAYS[w])) + NAMESPACE_RETENTION_DAYS;
}

/** The dates the policy gives a row: what `deprecateFrom` and `removeFrom` must say. */
export function policyDates(row: Pick<PatchRow, 'workflows' | 'shipped' | 'deprecated'>): {
  deprecateFrom: string;
  removeFrom: string;
} {
  const period = policyPeriodDays(row.workflows);
  const deprecateFrom = addDays(row.shipped, period);
  return { deprecateFrom, removeFrom: addDays(row.deprecated ?? deprecateFrom, period) };
}

/**
 * Every patch in force, keyed by its id (the marker Temporal records). It was empty at 1.0: no
 * deployment ran anything older (docs/versioning.md). A row looks like this:
 *
 *   'payout-asks-provider-health': {
 *     change: 'Before sending, a payout asks its provider's health and holds while it is down.',
 *     workflows: ['payoutWorkflow'],
 *     shipped: '2027-01-10',
 *     deprecateFrom: '2027-02-01', // policyDates(): shipped + 21 + 1 days
 *     removeFrom: '2027-02-23',
 *   },
 */
export const patches = {
  'payin-local-activities': {
    change:
      "A payin's collection request, status reads and record writes run first as one local activity try each, then as regular activities.",
    workflows: ['payinWorkflow'],
    shipped: '2026-11-27',
    deprecateFrom: '2026-12-21', // policyDates(): shipped + 23 + 1 days
    removeFrom: '2027-01-14',
  },
  'refund-local-activities': {
    change:
      "A refund's request, status reads and end run first as one local activity try each, then as regular activities.",
    workflows: ['refundWorkflow'],
    shipped: '2026-11-27',
    deprecateFrom: '2026-12-19', // policyDates(): shipped + 21 + 1 days
    removeFrom: '2027-01-10',
  },
  'dispatcher-applies-enable': {
    change:
      "A webhook dispatcher that sees its endpoint enabled stores `enabled` again after any park of its own, and restarts a failing event's retry schedule instead of parking.",
    workflows: ['webhookDispatcherWorkflow'],
    shipped: '2026-11-28',
    deprecateFrom: '2026-12-13', // policyDates(): shipped + 14 + 1 days
    removeFrom: '2026-12-28',
  },
  'refusal-confirmed-by-status': {
    change:
      'A 4xx refusal of a send ends a payin, payout or refund only once a status read finds the id unknown to the operator; a read that finds it is followed instead.',
    workflows: ['payinWorkflow', 'payoutWorkflow', 'refundWorkflow'],
    shipped: '2026-11-30',
    deprecateFrom: '2026-12-24', // policyDates(): shipped + 23 + 1 days
    removeFrom: '2027-01-17',
  },
} as const satisfies PatchTable;

/** The typed doors to `patched()` / `deprecatePatch()` for a table: an id without a row does not compile. */
export function patchDoors<T extends PatchTable>(_table: T) {
  return {
    /** Temporal's `patched(id)`: true on new runs and on histories that took the new branch. */
    isPatched: (id: keyof T & string): boolean => patched(id),
    /** Temporal's `deprecatePatch(id)`, once the old branch is gone (after `deprecateFrom`). */
    deprecated: (id: keyof T & string): void => deprecatePatch(id),
  };
}

export type PatchId = Extract<keyof typeof patches, string>;

/** Use these in workflows/, never `patched()` / `deprecatePatch()` directly. */
export const { isPatched, deprecated } = patchDoors(patches);
