import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Connection } from 'mongoose';
import { toMajor } from '../domain/money';
import { maskMsisdn } from '../domain/msisdn';
import { Ledger, type LedgerEntry } from '../ledger';
import { RouteBookStore } from '../operators/routes/book';
import { modeOfScope } from '../domain/modes';
import { sourceRefs } from '../ledger/postings';
import { TransactionStore } from '../persistence/transactions';
import { decodeHistoryPayloads } from '../temporal/codec';
import { refundWorkflowId, transactionWorkflowId } from '../temporal/workflow-ids';
import { TimelineNotFoundError } from './errors';

// `payments transactions show`: one transaction's story for on-call, from the two sources of truth:
// its workflow history (every step, retry, timer, signal and status change, with its time) and the
// ledger (every movement of money it caused).

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;

export interface TimelineStep {
  at: string;
  step: string;
  outcome: string;
}

export interface Timeline {
  workflowId: string;
  transaction: {
    id: string;
    kind: string;
    reference: string;
    status: string;
    amount: number;
    currency: string;
    provider: string | null;
    customer: string;
  } | null;
  workflowStatus: string;
  steps: TimelineStep[];
  /** Live payins and payouts: the routes that took it and why (src/operators/routes/book.ts). */
  routes: { at: string; connector: string; reason: string; detail: string }[];
  ledger: { at: string; accountId: string; amount: number; balanceAfter: number; reason: string }[];
}

const iso = (t: HistoryEvent['eventTime']): string =>
  t ? new Date(Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString() : '';

const decode = (p: temporal.api.common.v1.IPayload | null | undefined): unknown => {
  try {
    return p ? defaultPayloadConverter.fromPayload(p) : undefined;
  } catch {
    return undefined;
  }
};

const short = (v: unknown): string => {
  if (v === undefined || v === null) return '';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  // Phone numbers never leave masked, as in the logs.
  const masked = text.replace(/\+\d{9,15}/g, (m) => maskMsisdn(m));
  return masked.length > 90 ? `${masked.slice(0, 87)}...` : masked;
};

/** Turns a workflow history into readable steps: activities with their outcome and attempts, timers, signals, updates, statuses. */
export function stepsOf(events: HistoryEvent[]): TimelineStep[] {
  const steps: TimelineStep[] = [];
  const scheduled = new Map<string, { name: string; at: string }>();
  const attempts = new Map<string, number>();
  const timers = new Map<string, string>();
  for (const e of events) {
    const at = iso(e.eventTime);
    const id = String(e.eventId ?? '');
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
        const a = e.workflowExecutionStartedEventAttributes;
        steps.push({
          at,
          step: `workflow ${a?.workflowType?.name ?? ''} started`,
          outcome: `task queue ${a?.taskQueue?.name ?? ''}`,
        });
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        scheduled.set(id, { name: e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?', at });
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const a = e.activityTaskStartedEventAttributes;
        attempts.set(String(a?.scheduledEventId ?? ''), a?.attempt ?? 1);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED: {
        const a =
          e.activityTaskCompletedEventAttributes ??
          e.activityTaskFailedEventAttributes ??
          e.activityTaskTimedOutEventAttributes ??
          e.activityTaskCanceledEventAttributes;
        const key = String(a?.scheduledEventId ?? '');
        const s = scheduled.get(key);
        const attempt = attempts.get(key) ?? 1;
        const retries = attempt > 1 ? ` after ${attempt} attempts` : '';
        let outcome: string;
        if (e.activityTaskCompletedEventAttributes) {
          const result = decode(e.activityTaskCompletedEventAttributes.result?.payloads?.[0]);
          outcome = `completed${retries}${result === undefined ? '' : `: ${short(result)}`}`;
        } else if (e.activityTaskFailedEventAttributes) {
          outcome = `FAILED${retries}: ${short(e.activityTaskFailedEventAttributes.failure?.message)}`;
        } else if (e.activityTaskTimedOutEventAttributes) outcome = `TIMED OUT${retries}`;
        else outcome = 'canceled';
        steps.push({ at, step: s?.name ?? 'activity', outcome });
        break;
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        // A local activity (workflows/shared/activity-proxies.ts, localFirst): one marker with its type,
        // attempt and result; a failed try is followed by the same step as a regular activity.
        const m = e.markerRecordedEventAttributes;
        if (m?.markerName !== 'core_local_activity') break;
        const data = decode(m.details?.data?.payloads?.[0]) as
          { activity_type?: string; attempt?: number } | undefined;
        const result = decode(m.details?.result?.payloads?.[0]);
        const outcome = m.failure
          ? `FAILED (local try): ${short(m.failure.message)}`
          : `completed${result === undefined ? '' : `: ${short(result)}`} (local)`;
        steps.push({ at, step: data?.activity_type ?? 'local activity', outcome });
        break;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED: {
        const a = e.timerStartedEventAttributes;
        const secs = Number(a?.startToFireTimeout?.seconds ?? 0);
        timers.set(String(a?.timerId ?? ''), `${secs}s`);
        steps.push({ at, step: `timer ${a?.timerId ?? ''} started`, outcome: `fires in ${secs}s` });
        break;
      }
      case EventType.EVENT_TYPE_TIMER_FIRED:
        steps.push({
          at,
          step: `timer ${e.timerFiredEventAttributes?.timerId ?? ''} fired`,
          outcome: 'elapsed',
        });
        break;
      case EventType.EVENT_TYPE_TIMER_CANCELED:
        steps.push({
          at,
          step: `timer ${e.timerCanceledEventAttributes?.timerId ?? ''} canceled`,
          outcome: 'no longer needed',
        });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED: {
        const a = e.workflowExecutionSignaledEventAttributes;
        steps.push({
          at,
          step: `signal ${a?.signalName ?? ''}`,
          outcome: short(decode(a?.input?.payloads?.[0])) || 'received',
        });
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: {
        const a = e.workflowExecutionUpdateAcceptedEventAttributes;
        steps.push({ at, step: `update ${a?.acceptedRequest?.input?.name ?? ''}`, outcome: 'accepted' });
        break;
      }
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
        for (const [name, payload] of Object.entries(fields)) {
          const value = decode(payload);
          const text = Array.isArray(value) ? value.join(',') : short(value);
          steps.push({ at, step: name === 'TransactionStatus' ? 'status' : name, outcome: `→ ${text}` });
        }
        break;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
        const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
        steps.push({ at, step: `child ${a?.workflowType?.name ?? ''}`, outcome: a?.workflowId ?? '' });
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
        steps.push({
          at,
          step: 'workflow completed',
          outcome:
            short(decode(e.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0])) || 'done',
        });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
        steps.push({
          at,
          step: 'workflow FAILED',
          outcome: short(e.workflowExecutionFailedEventAttributes?.failure?.message),
        });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
        steps.push({
          at,
          step: 'workflow TERMINATED',
          outcome: e.workflowExecutionTerminatedEventAttributes?.reason ?? '',
        });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
        steps.push({ at, step: 'workflow canceled', outcome: '' });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
        steps.push({ at, step: 'workflow TIMED OUT', outcome: '' });
        break;
      default:
        break;
    }
  }
  return steps;
}

export async function transactionTimeline(opts: {
  temporal: Client;
  mongo: Connection;
  merchantId: string;
  reference: string;
  kind: 'payin' | 'payout' | 'refund';
}): Promise<Timeline> {
  // Through the stores, by `_id`: a payin or payout by the merchant's reference (its reference
  // document, then the transaction); a refund's timeline needs only its rf_ reference.
  const tx =
    opts.kind === 'refund'
      ? null
      : await TransactionStore.on(opts.mongo).find(opts.merchantId, opts.kind, opts.reference);
  const workflowId =
    tx?.workflowId ??
    (opts.kind === 'refund'
      ? refundWorkflowId(opts.merchantId, opts.reference)
      : transactionWorkflowId(opts.kind, opts.merchantId, opts.reference));
  const handle = opts.temporal.workflow.getHandle(workflowId);
  let history;
  let workflowStatus: string;
  try {
    history = await handle.fetchHistory();
    // Stored sealed (src/temporal/codec.ts): opened with the client's keys before it is read.
    await decodeHistoryPayloads(history, opts.temporal.options.loadedDataConverter.payloadCodecs);
    workflowStatus = (await handle.describe()).status.name;
  } catch (err) {
    // fetchHistory answers a gRPC NOT_FOUND (code 5), describe a WorkflowNotFoundError.
    if (err instanceof WorkflowNotFoundError || (err as { code?: unknown }).code === 5)
      throw new TimelineNotFoundError(`no ${opts.kind} ${opts.reference} for merchant ${opts.merchantId}`);
    throw err;
  }
  const entries = await movementsOf(Ledger.on(opts.mongo), opts.kind, tx?.id ?? opts.reference);
  // Only live transactions take routes (test mode always goes to the sandbox).
  const book =
    tx && opts.kind !== 'refund' && modeOfScope(tx.merchantId) === 'live'
      ? await new RouteBookStore(opts.mongo).read(
          opts.kind === 'payin' ? 'collection' : 'disbursement',
          tx.id,
        )
      : { entries: [], verdicts: [] };
  return {
    workflowId,
    transaction: tx
      ? {
          id: tx.id,
          kind: tx.kind,
          reference: tx.reference,
          status: tx.status,
          amount: toMajor(tx.amount, tx.currency),
          currency: tx.currency,
          provider: tx.provider ?? null,
          customer: maskMsisdn(String(tx.customer?.phoneNumber ?? '')),
        }
      : null,
    workflowStatus,
    steps: stepsOf(history.events ?? []),
    routes: book.entries.map((e) => {
      const verdict = book.verdicts.find((v) => v.seq === e.seq);
      const ranked = (e.ranking ?? [])
        .map(
          (r) =>
            `${r.connector} ${r.successRate === null ? 'unrated' : `${Math.round(r.successRate * 100)}%`}${r.eliminated ? ' eliminated' : ''}`,
        )
        .join(', ');
      const detail = e.after
        ? `after ${e.after.connector}: ${e.after.answer}; ${verdict ? `${e.after.connector} then said ${verdict.answer}: ${verdict.verdict}` : 'fenced, no verdict yet'}`
        : ranked;
      return { at: e.at, connector: e.connector, reason: e.reason, detail };
    }),
    ledger: entries.map((e) => ({
      at: new Date(e.createdAt).toISOString(),
      accountId: e.accountId,
      amount: toMajor(e.amount, e.currency),
      balanceAfter: toMajor(e.balanceAfter, e.currency),
      reason: e.reason,
    })),
  };
}

/**
 * The ledger entries a payin, payout or refund caused: its movements are the ones under its fixed
 * sourceRefs (src/ledger/postings.ts). Each recorded movement is found by `_id` first, so a
 * transaction that moved no money reads no entry at all.
 */
async function movementsOf(
  ledger: Ledger,
  kind: 'payin' | 'payout' | 'refund',
  id: string,
): Promise<LedgerEntry[]> {
  const refs = Object.values(sourceRefs[kind](id));
  const recorded = await Promise.all(refs.map((ref) => ledger.findTransfer(ref)));
  return ledger.entriesOf(refs.filter((_, i) => recorded[i]));
}

export function renderTimeline(t: Timeline): string {
  const lines: string[] = [];
  if (t.transaction) {
    const x = t.transaction;
    lines.push(
      `${x.kind} ${x.reference} (${x.id}): ${x.status}, ${x.amount} ${x.currency}, provider ${x.provider ?? '-'}, customer ${x.customer}`,
    );
  }
  lines.push(`workflow ${t.workflowId}: ${t.workflowStatus}`, '', 'Timeline');
  const width = Math.max(...t.steps.map((s) => s.step.length), 4);
  for (const s of t.steps) lines.push(`  ${s.at}  ${s.step.padEnd(width)}  ${s.outcome}`);
  if (t.routes.length > 0) {
    lines.push('', 'Routes');
    for (const r of t.routes) lines.push(`  ${r.at}  ${r.connector}  ${r.reason}  ${r.detail}`);
  }
  lines.push('', 'Ledger');
  if (t.ledger.length === 0) lines.push('  (no movement)');
  for (const e of t.ledger)
    lines.push(
      `  ${e.at}  ${e.accountId}  ${e.amount >= 0 ? '+' : ''}${e.amount}  balance ${e.balanceAfter}  ${e.reason}`,
    );
  return lines.join('\n');
}
