import type { TransactionStore } from '../../persistence/transactions';
import type { RefundStore } from '../../persistence/refunds';
import type { EventStore } from '../../events/event-store';
import { eventIdOf } from '../../events/event-store';
import { eventTypes, toPublicEvent, type StoredEvent } from '../../events/catalogue';
import type { EndpointStore } from '../../webhooks/endpoint-store';
import { publicAttemptError, type DeliveryLog } from '../../webhooks/delivery-log';
import type { Ledger } from '../../ledger';
import { sourceRefs } from '../../ledger/postings';
import { toMajor } from '../../domain/money';
import { refundStatuses, refundedTotal } from '../../domain/refund';
import type { Transaction } from '../../domain/transaction';
import { statusAtCreation, type StatusKind } from '../../domain/final-status';
import type { TimelineBody } from './shapes';
import type { Refund } from '../../domain/refund';
import { webhookDeliveryWorkflowId } from '../../temporal/workflow-ids';
import { toPublicRecord } from '../../contract/records/payout-record';
import { toRefundRecord } from '../../contract/records/refund-record';
import { maskJson } from '../../request-log/mask';

// A transaction's page in the dashboard: what happened to one payin, payout or refund, from the
// records that already exist, each read by `_id` (no scan): the record itself, its events (their
// ids are a digest of subject, type and status: eventIdOf), each event's delivery attempts to each
// of the merchant's endpoints (`webhook:<event>:<endpoint>:<n>`), and the ledger transfers its
// postings made (keyed by their source references). Personal data is masked as in the request log.

export interface TimelineDeps {
  transactions: TransactionStore;
  refunds: RefundStore;
  events: EventStore;
  endpoints: EndpointStore;
  deliveries: DeliveryLog;
  ledger: Ledger;
}

const transactionStatuses = [
  'pending',
  'processing',
  'processed',
  'success',
  'completed',
  'failed',
  'reversed',
  'expired',
];
/** Every status an event's data may name (the emission key's last part; '' when it names none). */
const statusesNamed = [...new Set(['', ...transactionStatuses, ...refundStatuses])];
/** Attempts of one delivery read at most (the dispatcher gives up well before). */
const MAX_ATTEMPTS = 20;

const iso = (d: Date | string) => new Date(d).toISOString();

export class TimelineReader {
  constructor(private readonly deps: TimelineDeps) {}

  /** Whether `id` is a transaction of the scope (a note's target): one read by `_id`. */
  async exists(scope: string, id: string): Promise<boolean> {
    const found = id.startsWith('rf_')
      ? await this.deps.refunds.findById(id)
      : await this.deps.transactions.findById(id);
    return found !== null && found.merchantId === scope;
  }

  /** The timeline of the scope's transaction `id`, or null (unknown, or another scope's). */
  async of(scope: string, id: string): Promise<TimelineBody | null> {
    if (id.startsWith('rf_')) {
      const refund = await this.deps.refunds.findById(id);
      return refund && refund.merchantId === scope ? this.ofRefund(refund) : null;
    }
    const tx = await this.deps.transactions.findById(id);
    return tx && tx.merchantId === scope ? this.ofTransaction(tx) : null;
  }

  private async ofTransaction(tx: Transaction): Promise<TimelineBody> {
    const refs =
      tx.kind === 'payin' ? Object.values(sourceRefs.payin(tx.id)) : Object.values(sourceRefs.payout(tx.id));
    const refunds = tx.kind === 'payin' ? await this.deps.refunds.ofPayin(tx) : [];
    const [events, ledger] = await Promise.all([
      this.events(tx.merchantId, tx.id, tx.kind),
      this.transfers(refs),
    ]);
    return {
      id: tx.id,
      kind: tx.kind,
      record: maskJson(
        toPublicRecord(tx, tx.kind === 'payin' ? { refunds, refunded: refundedTotal(refunds) } : undefined),
      ),
      statuses: statusesOf(tx.kind, tx.createdAt, tx.updatedAt, tx.status, events),
      operator: maskJson({
        provider: tx.provider,
        failure: tx.failure,
        ...(tx.payout
          ? {
              operatorReference: tx.payout.operatorReference,
              operatorStatus: tx.payout.operatorStatus,
              processedAt: tx.payout.processedAt,
            }
          : {}),
        attention: tx.attention ?? null,
      }),
      events: events.map(publicOf),
      webhookAttempts: await this.attempts(tx.merchantId, events),
      ledger,
    };
  }

  private async ofRefund(refund: Refund): Promise<TimelineBody> {
    const [events, ledger] = await Promise.all([
      this.events(refund.merchantId, refund.id, 'refund'),
      this.transfers(Object.values(sourceRefs.refund(refund.id))),
    ]);
    return {
      id: refund.id,
      kind: 'refund',
      record: maskJson(toRefundRecord(refund)),
      statuses: statusesOf('refund', refund.createdAt, refund.updatedAt, refund.status, events),
      operator: maskJson({
        transactionStatus: refund.transactionStatus,
        processedAt: refund.processedAt,
        failure: refund.failure,
        attention: refund.attention ?? null,
      }),
      events: events.map(publicOf),
      webhookAttempts: await this.attempts(refund.merchantId, events),
      ledger,
    };
  }

  /** Every event the subject may have had, read by its id (a digest of subject, type and status). */
  private async events(scope: string, subjectId: string, kind: string): Promise<StoredEvent[]> {
    const types = eventTypes.filter((t) => t.split('.')[0] === kind && !t.startsWith('payout.batch'));
    const ids = types.flatMap((t) => statusesNamed.map((s) => eventIdOf(`${subjectId}:${t}:${s}`)));
    const found = await Promise.all(ids.map((id) => this.deps.events.findById(scope, id)));
    return found
      .filter((e): e is StoredEvent => e !== null)
      .sort((a, b) => new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime());
  }

  /** Each event's attempts to each endpoint of the scope, oldest first (redeliveries are not listed). */
  private async attempts(scope: string, events: StoredEvent[]): Promise<TimelineBody['webhookAttempts']> {
    if (events.length === 0) return [];
    const endpoints = await this.deps.endpoints.list(scope);
    const lists = await Promise.all(
      events.flatMap((e) =>
        endpoints.map(async (ep) => {
          const deliveryId = webhookDeliveryWorkflowId(e.id, ep.id);
          const out: TimelineBody['webhookAttempts'] = [];
          for (let n = 1; n <= MAX_ATTEMPTS; n++) {
            // A dispatcher's attempts are in the endpoint's chain only (not `find`'s documents).
            const a = await this.deps.deliveries.findOf(ep.id, deliveryId, n, e.id);
            if (!a || a.merchantId !== scope) break;
            out.push({
              eventId: a.eventId,
              endpointId: a.endpointId,
              url: a.url,
              attempt: a.attempt,
              at: iso(a.attemptedAt),
              succeeded: a.succeeded,
              statusCode: a.statusCode,
              latencyMs: a.latencyMs,
              error: publicAttemptError(a.error),
            });
          }
          return out;
        }),
      ),
    );
    return lists.flat().sort((a, b) => a.at.localeCompare(b.at));
  }

  /** The ledger transfers of these source references (each an `_id` read), oldest first. */
  private async transfers(refs: string[]): Promise<TimelineBody['ledger']> {
    const found = await Promise.all(refs.map((r) => this.deps.ledger.findTransfer(r)));
    return found
      .filter((t) => t !== null)
      .map((t) => ({
        sourceRef: t.sourceRef,
        reason: t.reason,
        fromAccountId: t.fromAccountId,
        toAccountId: t.toAccountId,
        amount: toMajor(t.amount, t.currency),
        currency: t.currency,
        at: iso(t.createdAt),
      }))
      .sort((a, b) => a.at.localeCompare(b.at));
  }
}

function publicOf(e: StoredEvent) {
  const p = toPublicEvent(e);
  return { id: p.id, type: p.type, createdAt: iso(e.createdAt), data: maskJson(p.data) };
}

/**
 * Created (with the status its 201 said), then each status an event announced, then the current
 * one if no event told it yet.
 */
function statusesOf(
  kind: StatusKind,
  createdAt: Date,
  updatedAt: Date,
  current: string,
  events: StoredEvent[],
): TimelineBody['statuses'] {
  const out: TimelineBody['statuses'] = [
    { status: statusAtCreation[kind], at: iso(createdAt), source: 'created' },
  ];
  for (const e of events) {
    const status = typeof e.data.status === 'string' ? e.data.status : null;
    if (status && status !== out[out.length - 1]!.status)
      out.push({ status, at: iso(e.createdAt), source: 'event' });
  }
  if (out[out.length - 1]!.status !== current)
    out.push({ status: current, at: iso(updatedAt), source: 'current' });
  return out;
}
