// Every workflow id and schedule id we use, built and read here only. The ids are deterministic on
// purpose: one workflow per business key, so a duplicate start is refused by Temporal itself and ops
// find a run by what they know (a merchant's reference, an event id). They are recorded in histories
// and in stored records (`workflowId` of transactions and refunds): a format never changes.
//
// Pure (no imports): the workflows (payin's refund children) use it inside the sandbox too.

export type TransactionWorkflowKind = 'payin' | 'payout';

/** `payin:<merchantId>:<reference>`: one payin per merchant's reference. */
export function payinWorkflowId(merchantId: string, reference: string): string {
  return `payin:${merchantId}:${reference}`;
}

/** `payout:<merchantId>:<reference>`: one payout per merchant's reference. */
export function payoutWorkflowId(merchantId: string, reference: string): string {
  return `payout:${merchantId}:${reference}`;
}

/** The payin's or payout's id, by kind. */
export function transactionWorkflowId(
  kind: TransactionWorkflowKind,
  merchantId: string,
  reference: string,
): string {
  return kind === 'payin' ? payinWorkflowId(merchantId, reference) : payoutWorkflowId(merchantId, reference);
}

/** `refund:<merchantId>:<refundId>`: the refund child a payin's workflow starts (refundId `rf_…`). */
export function refundWorkflowId(merchantId: string, refundId: string): string {
  return `refund:${merchantId}:${refundId}`;
}

/**
 * `refund-desk:<merchantId>:<payinId>`: the workflow that decides a payin's refunds once the payin's
 * own workflow closed (workflows/refund/payin-refund-desk.ts). One runs at a time; each refund request
 * starts it again if it closed, so this id, unlike a transaction's, is reused by design.
 */
export function refundDeskWorkflowId(merchantId: string, payinId: string): string {
  return `refund-desk:${merchantId}:${payinId}`;
}

/**
 * `webhook:<eventId>:<endpointId>`, and `…:redeliver:<key>` for a redelivery: one delivery per
 * (event, endpoint) and one per redelivery request. Also the delivery's public `deliveryId`.
 */
export function webhookDeliveryWorkflowId(
  eventId: string,
  endpointId: string,
  redeliveryKey?: string,
): string {
  return `webhook:${eventId}:${endpointId}${redeliveryKey ? `:redeliver:${redeliveryKey}` : ''}`;
}

/**
 * `webhook-dispatcher:<endpointId>`: the one workflow that delivers an endpoint's events in order
 * (workflows/webhooks/webhook-dispatcher.ts). Reused by design: a parked dispatcher closes, and enabling the
 * endpoint starts it again under the same id.
 */
export function webhookDispatcherWorkflowId(endpointId: string): string {
  return `webhook-dispatcher:${endpointId}`;
}

/** `event:<subjectId>:<eventType>`: an event published apart from its transaction's workflow (a correction). */
export function eventPublishWorkflowId(subjectId: string, eventType: string): string {
  return `event:${subjectId}:${eventType}`;
}

/** `statement:<merchantId>:<statementId>`: one generation per statement (`st_…`). */
export function statementWorkflowId(merchantId: string, statementId: string): string {
  return `statement:${merchantId}:${statementId}`;
}

/** `payout-batch:<merchantId>:<batchId>`: the watcher of one bulk payout (`pb_…`). */
export function payoutBatchWorkflowId(merchantId: string, batchId: string): string {
  return `payout-batch:${merchantId}:${batchId}`;
}

/** `webhook-replay:<merchantId>:<replayId>`: one paced replay of a period to an endpoint (`rp_…`). */
export function webhookReplayWorkflowId(merchantId: string, replayId: string): string {
  return `webhook-replay:${merchantId}:${replayId}`;
}

/** The daily reconciliation's schedule, and the prefix of the runs it starts. */
export const RECONCILIATION_SCHEDULE_ID = 'reconciliation-daily';

/** `recovery-sweep:<taskQueue>`: one sweep schedule per task queue, and the prefix of its runs. */
export function recoverySweepScheduleId(taskQueue: string): string {
  return `recovery-sweep:${taskQueue}`;
}

export type ParsedWorkflowId =
  | { kind: 'payin' | 'payout'; merchantId: string; reference: string }
  | { kind: 'refund'; merchantId: string; refundId: string }
  | { kind: 'statement' | 'payout-batch' | 'webhook-replay'; merchantId: string; id: string }
  | { kind: 'webhook'; eventId: string; endpointId: string; redeliveryKey: string | null }
  | { kind: 'webhook-dispatcher'; endpointId: string }
  | { kind: 'event'; subjectId: string; eventType: string }
  | { kind: 'reconciliation'; scheduledAt: string | null }
  | { kind: 'recovery-sweep'; taskQueue: string; scheduledAt: string | null };

// A schedule appends `-<RFC 3339 time>` to the workflow id of its action for each run.
const scheduledRun = /^(.*)-(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/;

/** `head:rest` split at the first colon; null without one or with an empty head. */
function split(text: string): [string, string] | null {
  const at = text.indexOf(':');
  return at > 0 ? [text.slice(0, at), text.slice(at + 1)] : null;
}

/**
 * What a workflow id names, or null for an id we do not build. Merchant, event, endpoint and
 * subject ids never hold a colon (generated `prefix_…` ids); a merchant's reference and a
 * redelivery key may, so they are always the rest of the id.
 */
export function parseWorkflowId(id: string): ParsedWorkflowId | null {
  const [kind, rest] = split(id) ?? [id, ''];
  switch (kind) {
    case 'payin':
    case 'payout':
    case 'refund': {
      const parts = split(rest);
      if (!parts || !parts[1]) return null;
      const [merchantId, key] = parts;
      return kind === 'refund' ? { kind, merchantId, refundId: key } : { kind, merchantId, reference: key };
    }
    case 'statement':
    case 'payout-batch':
    case 'webhook-replay': {
      const parts = split(rest);
      if (!parts || !parts[1] || parts[1].includes(':')) return null;
      return { kind, merchantId: parts[0], id: parts[1] };
    }
    case 'webhook': {
      const event = split(rest);
      if (!event || !event[1]) return null;
      const [eventId, tail] = event;
      const redelivery = /^([^:]+):redeliver:(.+)$/.exec(tail);
      if (redelivery) return { kind, eventId, endpointId: redelivery[1]!, redeliveryKey: redelivery[2]! };
      return tail.includes(':') ? null : { kind, eventId, endpointId: tail, redeliveryKey: null };
    }
    case 'webhook-dispatcher':
      return rest && !rest.includes(':') ? { kind, endpointId: rest } : null;
    case 'event': {
      const parts = split(rest);
      if (!parts || !parts[1]) return null;
      return { kind, subjectId: parts[0], eventType: parts[1] };
    }
    case 'recovery-sweep': {
      if (!rest) return null;
      const run = scheduledRun.exec(rest);
      return run
        ? { kind, taskQueue: run[1]!, scheduledAt: run[2]! }
        : { kind, taskQueue: rest, scheduledAt: null };
    }
    default: {
      if (id === RECONCILIATION_SCHEDULE_ID) return { kind: 'reconciliation', scheduledAt: null };
      const run = scheduledRun.exec(id);
      if (run && run[1] === RECONCILIATION_SCHEDULE_ID)
        return { kind: 'reconciliation', scheduledAt: run[2]! };
      return null;
    }
  }
}

/** The id `parseWorkflowId` read, built again: `buildWorkflowId(parseWorkflowId(id)!) === id`. */
export function buildWorkflowId(parsed: ParsedWorkflowId): string {
  const run = (base: string, at: string | null) => (at ? `${base}-${at}` : base);
  switch (parsed.kind) {
    case 'payin':
    case 'payout':
      return transactionWorkflowId(parsed.kind, parsed.merchantId, parsed.reference);
    case 'refund':
      return refundWorkflowId(parsed.merchantId, parsed.refundId);
    case 'statement':
      return statementWorkflowId(parsed.merchantId, parsed.id);
    case 'payout-batch':
      return payoutBatchWorkflowId(parsed.merchantId, parsed.id);
    case 'webhook-replay':
      return webhookReplayWorkflowId(parsed.merchantId, parsed.id);
    case 'webhook':
      return webhookDeliveryWorkflowId(parsed.eventId, parsed.endpointId, parsed.redeliveryKey ?? undefined);
    case 'webhook-dispatcher':
      return webhookDispatcherWorkflowId(parsed.endpointId);
    case 'event':
      return eventPublishWorkflowId(parsed.subjectId, parsed.eventType);
    case 'reconciliation':
      return run(RECONCILIATION_SCHEDULE_ID, parsed.scheduledAt);
    case 'recovery-sweep':
      return run(recoverySweepScheduleId(parsed.taskQueue), parsed.scheduledAt);
  }
}
