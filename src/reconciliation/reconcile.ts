import type { OperatorCode } from '../domain/operators';
import type { Transaction } from '../domain/transaction';
import type { Ledger } from '../ledger';
import type { OperatorGateway, OperatorKind, OperatorStatement, StatementEntry } from '../operators/gateway';
import type { RefundStore } from '../persistence/refunds';
import type { TransactionStore } from '../persistence/transactions';
import { creditPayin, payinNet } from '../ledger/postings';
import type { CorrectionLog } from './corrections';
import { shiftDay, utcDay } from '../domain/days';
import {
  amountDetail,
  examineDisbursement,
  examineRefund,
  finding,
  unknownToUs,
  type Outcome,
} from './entry-verdicts';
import type { OperatorAskIndex } from './operator-asks';
import { isCredited, refundView, transactionView } from './our-view';
import { isFinal } from '../domain/final-status';
import type { CorrectionNotifier, WorkflowProbe } from './ports';
import type { ReconciliationReportStore } from './report-store';
import type { Finding, FindingAction, OurView, ReconciliationReport, ReconciliationTrigger } from './types';

// Reconciliation of one operator's statement for one UTC day against our records and ledger
// (docs/reconciliation.md). Every lookup is by `_id`: the transaction or refund by its id, each
// ledger movement by its sourceRef, the day's asks by their chain positions. The one automatic
// action is the safe one: a collection the operator confirms completed, of a payin we ended failed
// or expired and whose workflow no longer runs, credits the merchant (the payin workflow's own
// movements, so it applies once whoever comes first), records success and sends `payin.corrected`.
// Everything else is reported with both sides' view for a person.

export interface ReconciliationDeps {
  operators: OperatorGateway;
  transactions: TransactionStore;
  refunds: RefundStore;
  ledger: Ledger;
  asks: OperatorAskIndex;
  reports: ReconciliationReportStore;
  corrections: CorrectionLog;
  workflows: WorkflowProbe;
  notify: CorrectionNotifier;
  /** The refund window a payin of this merchant gets (its own setting, else REFUND_WINDOW), in ms. */
  refundWindowMs: (merchantId: string) => Promise<number>;
  now?: () => Date;
}

export interface ReconcileInput {
  operator: OperatorCode;
  /** UTC day, YYYY-MM-DD. */
  date: string;
  trigger: ReconciliationTrigger;
  workflowId?: string | null;
}

/** Lookups in flight at once: enough to hide round trips, few enough to leave the database to payments. */
const CONCURRENCY = 8;

export async function reconcileOperatorDay(
  deps: ReconciliationDeps,
  input: ReconcileInput,
): Promise<ReconciliationReport> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const statement = await deps.operators.statement(input.operator, input.date);
  const listed = new Set(statement.entries.map((e) => keyOf(e.kind, e.id)));

  const outcomes = await mapLimit(statement.entries, CONCURRENCY, (e) => examineEntry(deps, input, e));

  // Our side: what we asked of this operator that day and it does not list.
  const asked = await deps.asks.ofDay(input.operator, input.date);
  const neighbours = neighbourStatements(deps.operators, input.operator, input.date, now());
  const missing = asked.filter((a) => !listed.has(keyOf(a.kind, a.id)));
  const unknownToOperator = await mapLimit(missing, CONCURRENCY, (a) => examineAsk(deps, a, neighbours));

  const findings = [
    ...outcomes.flatMap((o) => ('finding' in o ? [o.finding] : [])),
    ...unknownToOperator.flatMap((f) => (f ? [f] : [])),
  ];
  const matched = outcomes.filter((o): o is { matched: true; pending: boolean } => 'matched' in o);
  const count = (action: FindingAction) => findings.filter((f) => f.action === action).length;
  return deps.reports.save({
    operator: input.operator,
    date: input.date,
    trigger: input.trigger,
    workflowId: input.workflowId ?? null,
    startedAt,
    finishedAt: now().toISOString(),
    statementGeneratedAt: statement.generatedAt,
    totals: {
      statement: statement.entries.length,
      asked: asked.length,
      matched: matched.length,
      pending: matched.filter((m) => m.pending).length,
      findings: findings.length,
      corrected: count('credited'),
      inProgress: count('in_progress'),
      needsPerson: count('needs_person'),
    },
    needsPerson: findings.some((f) => f.needsPerson),
    findings,
  });
}

// ---- the operator's entries ----

async function examineEntry(
  deps: ReconciliationDeps,
  run: ReconcileInput,
  e: StatementEntry,
): Promise<Outcome> {
  if (e.kind === 'refund') {
    const refund = await deps.refunds.findById(e.id);
    if (!refund) return unknownToUs(e);
    return examineRefund(e, await refundView(deps.ledger, refund), refund);
  }
  const tx = await deps.transactions.findById(e.id);
  const expected = e.kind === 'collection' ? 'payin' : 'payout';
  if (!tx || tx.kind !== expected) return unknownToUs(e);
  const ours = await transactionView(deps.ledger, tx);
  if (e.amount !== ours.amount || e.currency !== ours.currency)
    return finding('amount_mismatch', e, ours, 'needs_person', amountDetail(e, ours));
  return e.kind === 'collection'
    ? examineCollection(deps, run, e, tx, ours)
    : examineDisbursement(e, tx, ours);
}

async function examineCollection(
  deps: ReconciliationDeps,
  run: ReconcileInput,
  e: StatementEntry,
  tx: Transaction,
  ours: OurView,
): Promise<Outcome> {
  const credited = isCredited(tx, ours);
  if (e.status === 'completed') {
    if (tx.status === 'success' && credited) {
      // Corrected by an earlier run that stopped before the merchant was told: tell it now.
      if (!(await deps.corrections.awaitsNotice(tx.id))) return { matched: true, pending: false };
      await notifyCorrection(deps, tx.id);
      return finding(
        'collected_not_credited',
        e,
        ours,
        'credited',
        'Corrected by an earlier run (credited, success); payin.corrected is sent now.',
      );
    }
    if (!isFinal(tx.kind, tx.status) || (await deps.workflows.isRunning(tx.workflowId)))
      return finding(
        'collected_not_credited',
        e,
        ours,
        'in_progress',
        `The operator collected; the payin is ${tx.status} and its workflow still runs: it will credit the merchant.`,
      );
    return correctPayin(deps, run, e, tx, ours);
  }
  if (e.status === 'failed') {
    if (credited || tx.status === 'success')
      return finding(
        'failed_but_credited',
        e,
        ours,
        'needs_person',
        `The operator failed the collection (${e.failureCode ?? 'no code'}); we credited the merchant.`,
      );
    return { matched: true, pending: false };
  }
  if (isFinal(tx.kind, tx.status))
    return finding(
      'pending_at_operator',
      e,
      ours,
      'needs_person',
      `The payin is ${tx.status} here; the operator still has the collection pending.`,
    );
  return { matched: true, pending: true };
}

/**
 * The payin workflow's own ending for a collected payin: the same credit (same sourceRefs: it applies
 * once), success with its refund window, and `payin.corrected`. A payin already success (credited by
 * nobody) only gets the credit: its merchant was told of the success.
 */
async function correctPayin(
  deps: ReconciliationDeps,
  run: ReconcileInput,
  e: StatementEntry,
  tx: Transaction,
  ours: OurView,
): Promise<Outcome> {
  const wasSuccess = tx.status === 'success';
  if (!wasSuccess) await deps.corrections.open(tx.id, { operator: run.operator, date: run.date });
  await creditPayin(deps.ledger, tx);
  const credit = `the merchant was credited ${payinNet(tx)} ${tx.currency} (fee ${tx.fee})`;
  if (wasSuccess)
    return finding(
      'collected_not_credited',
      e,
      ours,
      'credited',
      `The payin was success but not credited: ${credit}.`,
    );
  const stored = await recordCorrection(deps, tx.id);
  if (stored?.status !== 'success')
    return finding(
      'collected_not_credited',
      e,
      ours,
      'needs_person',
      `The operator collected after the payin ended ${tx.status}: ${credit}, but its record still reads ${stored?.status ?? 'missing'}.`,
    );
  await notifyCorrection(deps, tx.id);
  return finding(
    'collected_not_credited',
    e,
    ours,
    'credited',
    `The operator collected after the payin ended ${tx.status}: ${credit}, the payin is now success and payin.corrected was sent.`,
  );
}

/** A few rounds are plenty: after the workflow ended only a late attempt of one of its writes can come between. */
const CORRECTION_ROUNDS = 3;

/**
 * Records the correction as the payin record's next state version
 * (docs/decisions/reconciliation/correction-is-a-state-version.md): success, failure null,
 * confirmation accepted, and the refund window from now, written as seq n+1 over the
 * `failed`|`expired` state n it was decided from. The unique version `_id` makes it one decision:
 * a second run (or any other writer) at n+1 wins or loses whole, and every later versioned write
 * (a late attempt of the payin workflow, its refund desk) builds on it, so the old status can
 * never come back. Answers the record as it then reads.
 */
async function recordCorrection(deps: ReconciliationDeps, payinId: string): Promise<Transaction | null> {
  const now = deps.now ?? (() => new Date());
  for (let round = 0; ; round++) {
    const read = await deps.transactions.findWithSeq(payinId);
    if (!read) return null;
    const current = read.transaction;
    // Another run's correction won (success), or something a person must look at.
    if ((current.status !== 'failed' && current.status !== 'expired') || round === CORRECTION_ROUNDS)
      return current;
    const windowMs = await deps.refundWindowMs(current.merchantId);
    await deps.transactions.applyState(payinId, read.seq + 1, {
      status: 'success',
      confirmationStatus: 'accepted',
      failure: null,
      refundableUntil: new Date(now().getTime() + windowMs),
    });
  }
}

async function notifyCorrection(deps: ReconciliationDeps, payinId: string): Promise<void> {
  await deps.notify.payinCorrected(payinId);
  await deps.corrections.notified(payinId);
}

// ---- our asks the operator does not list ----

async function examineAsk(
  deps: ReconciliationDeps,
  ask: { kind: OperatorKind; id: string },
  neighbours: (kind: OperatorKind, id: string) => Promise<boolean>,
): Promise<Finding | null> {
  let ours: OurView | null = null;
  if (ask.kind === 'refund') {
    const refund = await deps.refunds.findById(ask.id);
    if (refund?.status === 'completed') ours = await refundView(deps.ledger, refund);
  } else {
    const tx = await deps.transactions.findById(ask.id);
    if (tx) {
      const view = await transactionView(deps.ledger, tx);
      // Money moved by our books: a payin credited, a payout the operator paid.
      const moved =
        tx.kind === 'payin' ? tx.status === 'success' || isCredited(tx, view) : tx.status === 'completed';
      if (moved) ours = view;
    }
  }
  // Nothing moved on our side (failed, expired, reversed, or still asking): nothing to reconcile.
  if (!ours) return null;
  // Asked just before midnight, received just after (or the other way round): another day's entry.
  if (await neighbours(ask.kind, ask.id)) return null;
  return {
    class: 'unknown_to_operator',
    kind: ask.kind,
    id: ask.id,
    action: 'needs_person',
    needsPerson: true,
    detail: `We say money moved (${ours.kind} ${ours.status}, ${ours.amount} ${ours.currency}); the operator's statements of the day and the days around it do not list it.`,
    operator: null,
    ours,
  };
}

/** Whether the day before or after (not in the future) lists an id; each statement fetched once. */
function neighbourStatements(
  operators: OperatorGateway,
  operator: OperatorCode,
  date: string,
  now: Date,
): (kind: OperatorKind, id: string) => Promise<boolean> {
  const days = [shiftDay(date, -1), shiftDay(date, 1)].filter((d) => d <= utcDay(now));
  let fetched: Promise<OperatorStatement[]> | null = null;
  return async (kind, id) => {
    fetched ??= Promise.all(days.map((d) => operators.statement(operator, d)));
    return (await fetched).some((s) => s.entries.some((e) => e.kind === kind && e.id === id));
  };
}

const keyOf = (kind: OperatorKind, id: string) => `${kind}:${id}`;

/** Maps with at most `limit` calls in flight, keeping the order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(lanes);
  return results;
}
