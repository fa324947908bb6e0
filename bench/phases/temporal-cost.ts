import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Connection } from 'mongoose';
import { Ledger } from '../../src/ledger';
import type { ApiClient } from '../../test/helpers/http';
import { payin, sleep, waitFor } from '../common';
import { commandsOf, type StoreMeter } from '../store-meter';
import { billableActions } from '../billable-actions';

// Phase 3: Temporal cost per payin, payout and refund, counted from their real histories (and
// their webhook deliveries'), plus a workflow's timeline event by event.

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Counted over the workflows that exist: a webhook delivered at its first attempt has none. */
export async function cost(client: Client, workflowIds: string[]) {
  let events = 0;
  let actions = 0;
  let activities = 0;
  let workflows = 0;
  for (const id of workflowIds) {
    const history = await client.workflow
      .getHandle(id)
      .fetchHistory()
      .catch((err: unknown) => {
        // fetchHistory answers gRPC NOT_FOUND (5) itself, not WorkflowNotFoundError.
        if (err instanceof WorkflowNotFoundError || (err as { code?: number }).code === 5) return null;
        throw err;
      });
    if (!history) continue;
    workflows++;
    const list = history.events ?? [];
    events += list.length;
    const counted = billableActions(list);
    actions += counted.total;
    activities += counted.activities;
  }
  return { workflows, historyEvents: events, billableActions: actions, activities };
}

/** A workflow's history as [event type, ms since its first event]: where its time went. */
export async function timeline(client: Client, workflowId: string): Promise<[string, number][]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const at = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const events = history.events ?? [];
  const start = events[0] ? at(events[0]) : 0;
  return events.map((e) => [
    String(temporal.api.enums.v1.EventType[Number(e.eventType)] ?? e.eventType).replace('EVENT_TYPE_', ''),
    Math.round(at(e) - start),
  ]);
}

export interface CostContext {
  client: Client;
  api: ApiClient;
  mongo: Connection;
  merchantId: string;
  /** The webhook endpoint the bench registered: its deliveries are workflows too. */
  endpointId: string;
  /** Every webhook the bench's receiver got, in order (type, and `data.reference`). */
  webhooks: { type: string; reference: string }[];
  /** FerretDB's command counter: each kind's whole life is counted alone. */
  meter: StoreMeter;
}

/** History events and billable actions of bench-0's payin, a payout and a refund of bench-1. */
export async function measureCost({
  client,
  api,
  mongo,
  merchantId,
  endpointId,
  webhooks,
  meter,
}: CostContext) {
  console.log('3/5 Temporal cost and store commands per transaction...');
  // Waits on the receiver, not on the API: polling a status would add store commands of its own.
  const webhook = async (type: string, reference: string | null, what: string) => {
    const from = webhooks.length;
    return () =>
      waitFor(
        () => webhooks.slice(from).some((w) => w.type === type && (!reference || w.reference === reference)),
        60_000,
        what,
      );
  };
  const storeCommands: Record<'payin' | 'session' | 'payout' | 'refund', number> = {
    payin: 0,
    session: 0,
    payout: 0,
    refund: 0,
  };
  // A direct payin alone, its webhook included (bench-0 ran among others, for its history).
  storeCommands.payin = await commandsOf(meter, async () => {
    const delivered = await webhook('payin.completed', 'bench-solo', 'solo payin');
    const res = await api.post('/v1/direct/payin', payin('bench-solo'));
    if (res.status !== 201) throw new Error(`solo payin: ${res.status} ${JSON.stringify(res.body)}`);
    await delivered();
  });
  const deliveries = async (reference: string, typePrefix: string) => {
    const events = await api.get(`/v1/events?reference=${encodeURIComponent(reference)}&limit=100`);
    return ((events.body as { data: { id: string; type: string }[] }).data ?? [])
      .filter((e) => e.type.startsWith(typePrefix))
      .map((e) => `webhook:${e.id}:${endpointId}`);
  };
  const payinCost = await cost(client, [
    `payin:${merchantId}:bench-0`,
    ...(await deliveries('bench-0', 'payin.')),
  ]);
  const payinOwn = await cost(client, [`payin:${merchantId}:bench-0`]);
  const payinDeliveries = await deliveries('bench-0', 'payin.');

  // A session payin: created, then confirmed on its hosted page as the customer would.
  storeCommands.session = await commandsOf(meter, async () => {
    const delivered = await webhook('payin.completed', 'bench-session', 'session');
    const ses = await api.post('/v1/payin/sessions', {
      reference: 'bench-session',
      sandboxScenario: 'completed',
      amount: 1000,
      msisdn: '+2250500000001',
      customerName: 'Kouassi Yao',
      country: 'CI',
      action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
    });
    if (ses.status !== 201) throw new Error(`session: ${ses.status} ${JSON.stringify(ses.body)}`);
    const page = new URL(String((ses.body as { paymentUrl: string }).paymentUrl));
    const confirmed = await api.post(`${page.pathname}/confirm`, {
      provider: 'MTN',
      msisdn: '+2250500000001',
    });
    if (confirmed.status !== 200) throw new Error(`session confirm: ${confirmed.status}`);
    await delivered();
  });
  await sleep(1_000);
  const sessionCost = await cost(client, [
    `payin:${merchantId}:bench-session`,
    ...(await deliveries('bench-session', 'payin.')),
  ]);

  await fund(mongo, merchantId);
  storeCommands.payout = await commandsOf(meter, async () => {
    const delivered = await webhook('payout.completed', 'bench-payout', 'payout');
    const po = await api.post('/v1/direct/payout', {
      reference: 'bench-payout',
      sandboxScenario: 'completed',
      customerName: 'Kouassi Yao',
      payout: { amount: 5000, msisdn: '+2250500002001', provider: 'MTN', country: 'CI' },
    });
    if (po.status !== 201) throw new Error(`payout: ${po.status} ${JSON.stringify(po.body)}`);
    await delivered();
  });
  await sleep(1_000);
  const payoutCost = await cost(client, [
    `payout:${merchantId}:bench-payout`,
    ...(await deliveries('bench-payout', 'payout.')),
  ]);

  let rfRef = '';
  storeCommands.refund = await commandsOf(meter, async () => {
    const delivered = await webhook('refund.completed', null, 'refund');
    const rf = await api.post('/v1/payin/bench-1/refund', {
      amount: 1000,
      reason: 'bench',
      externalReference: 'bench-refund',
      sandboxScenario: 'completed',
    });
    if (rf.status !== 201) throw new Error(`refund: ${rf.status} ${JSON.stringify(rf.body)}`);
    rfRef = (rf.body as { reference: string }).reference;
    await delivered();
  });
  await sleep(1_000);
  const refundDoc = await mongo.db!.collection('refunds').findOne({ id: rfRef });
  // A payin that closed at its final status decided the refund in its refund desk: part of its cost.
  const refundCost = await cost(client, [
    String(refundDoc?.workflowId),
    `refund-desk:${merchantId}:${String(refundDoc?.payinId)}`,
    ...(await deliveries('bench-1', 'refund.')),
  ]);
  return { payinCost, payinOwn, payinDeliveries, sessionCost, payoutCost, refundCost, storeCommands };
}

async function fund(mongo: Connection, merchantId: string): Promise<void> {
  const ledger = Ledger.on(mongo);
  await ledger.transfer({
    sourceRef: `fund:${randomUUID()}`,
    fromAccountId: (await ledger.systemAccount('sandbox-funding', 'XOF', 'test')).id,
    toAccountId: (await ledger.mainAccount(merchantId, 'XOF')).id,
    amount: 10_000_000,
    reason: 'bench funding',
  });
}
