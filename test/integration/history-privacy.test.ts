import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { ApiClient, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { fundMerchant } from '../helpers/merchants';
import { decodeHistoryPayloads, EncryptionCodec } from '../../src/temporal/codec';
import { startCodecServer, type RunningCodecServer } from '../../src/api/codec-server';
import { searchAttributes } from '../../workflows/shared/search-attributes';

// Personal data stays out of Temporal: the histories of a direct payin (CI and CM), a session payin
// confirmed on the checkout page, payouts (one failed, one whose first operator call timed out) and
// refunds (one refused in its Update for want of balance), read raw by a client without the codec,
// hold no phone number (international or national form) and no customer name, not in inputs,
// results, signals, Update payloads, failure messages or search attributes. The codec server
// (with its token) gives them back to those allowed to read them.

const customers = {
  direct: { msisdn: '+2250512345678', national: '0512345678', name: 'Awa Koné' },
  cameroon: { msisdn: '+237677123456', national: '677123456', name: 'Ngono Mbarga' },
  session: { msisdn: '+2250587654321', national: '0587654321', name: 'Kouassi Yao' },
  payout: { msisdn: '+2250523456789', national: '0523456789', name: 'Adjoua Traoré' },
  failedPayout: { msisdn: '+2250534567890', national: '0534567890', name: 'Yao Bamba' },
  // 9904: the simulator answers the first call after the gateway gave up: a failed attempt.
  slowPayout: { msisdn: '+2250500119904', national: '0500119904', name: 'Koffi Diallo' },
};
const forbidden = [
  '+225',
  '+237',
  ...Object.values(customers).flatMap((c) => [c.national, c.name, c.name.split(' ')[1]!]),
];

/**
 * The history as text, every byte field (payload data and metadata) read as UTF-8: what a reader of
 * Temporal's store sees. Walked by hand: the messages' own toJSON would show bytes as base64.
 */
function asText(history: unknown): string {
  const plain = (value: unknown): unknown => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    if (Array.isArray(value)) return value.map(plain);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
    return value;
  };
  return JSON.stringify(plain(history));
}

const leaks = (text: string): string[] => forbidden.filter((s) => text.includes(s));

/** Every Failure in the history (activity, Update, workflow failures, their causes, last failures). */
function failures(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return out;
  if (Array.isArray(value)) {
    for (const item of value) failures(item, out);
    return out;
  }
  for (const [key, child] of Object.entries(value)) {
    if ((key === 'failure' || key === 'lastFailure' || key === 'cause') && child && typeof child === 'object')
      out.push(child as Record<string, unknown>);
    failures(child, out);
  }
  return out;
}

describe('personal data out of workflow history', () => {
  let raw: Client;
  let codecServer: RunningCodecServer;
  const token = randomUUID() + randomUUID();
  const workflowIds: string[] = [];
  const { stack, merchant, api } = useStack({
    merchant: 'Privacy merchant',
    beforeStop: () => codecServer?.stop(),
  });

  beforeAll(async () => {
    // What someone with access to Temporal (its UI, its database) gets: no codec.
    raw = new Client({ connection: stack.env.connection, namespace: stack.env.namespace ?? 'default' });
    codecServer = await startCodecServer({
      codec: new EncryptionCodec(stack.config.PAYLOAD_CODEC_KEYS),
      tokens: [token],
      origins: [],
      openToLoopback: false,
      host: '127.0.0.1',
      port: 0,
    });
  });

  const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };
  const payinId = (reference: string) => `payin:${merchant.merchantId}:${reference}`;
  const payinDone = (reference: string, status = 'success') =>
    eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === status,
      30_000,
    );

  it('runs payins, a session, payouts and refunds to their end', async () => {
    // Direct payins, Côte d'Ivoire and Cameroon.
    for (const [reference, c, country] of [
      ['priv-direct', customers.direct, 'CI'],
      ['priv-cm', customers.cameroon, 'CM'],
    ] as const) {
      const res = await api.post('/v1/direct/payin', {
        reference,
        sandboxScenario: 'completed',
        customerName: c.name,
        payin: { amount: 5000, msisdn: c.msisdn, provider: 'MTN', country },
        action,
      });
      expect(res.status).toBe(201);
      await payinDone(reference);
      workflowIds.push(payinId(reference));
    }

    // A refund larger than the XOF balance (4,925 credited): refused inside its Update, a failure
    // in history; later one that completes.
    const refused = await api.post('/v1/payin/priv-direct/refund', {
      reason: 'customer changed their mind',
      amount: 5000,
      externalReference: 'priv-rf-refused',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    // Decided by the payin's refund desk: the refused one's failure is in that desk run's history
    // (the next refund starts another run under the same id).
    const direct = await api.get('/v1/payin/priv-direct');
    const deskId = `refund-desk:${merchant.merchantId}:${String(direct.body.id)}`;
    const deskRun = (await raw.workflow.getHandle(deskId).describe()).runId;
    workflowIds.push(`${deskId}@${deskRun}`);

    // A session confirmed on the checkout page (the msisdn arrives in the confirmSession Update).
    const session = await api.post('/v1/payin/sessions', {
      reference: 'priv-session',
      sandboxScenario: 'completed',
      amount: 1000,
      msisdn: customers.session.msisdn,
      customerName: customers.session.name,
      country: 'CI',
      action,
    });
    expect(session.status).toBe(201);
    const page = new URL(String(session.body.paymentUrl)).pathname;
    const customer = new ApiClient(stack.baseUrl, null);
    const confirmed = await customer.post(`${page}/confirm`, {
      provider: 'MTN',
      msisdn: customers.session.msisdn,
    });
    expect(confirmed.status).toBe(200);
    await payinDone('priv-session');
    workflowIds.push(payinId('priv-session'));

    const refund = await api.post('/v1/payin/priv-direct/refund', {
      reason: 'customer changed their mind',
      amount: 1000,
      externalReference: 'priv-rf-1',
    });
    expect(refund.status).toBe(201);
    const rf = String(refund.body.reference);
    await eventually(
      () => api.get(`/v1/refunds/${rf}`),
      (r) => r.body.status === 'completed',
      30_000,
    );
    workflowIds.push(`refund:${merchant.merchantId}:${rf}`);

    // Payouts: completed, failed (reversed), and one whose first operator call timed out.
    await fundMerchant(stack, merchant.merchantId, 100_000);
    for (const [reference, c, scenario, final] of [
      ['priv-po', customers.payout, 'completed', 'completed'],
      ['priv-po-failed', customers.failedPayout, 'failed', 'reversed'],
      ['priv-po-slow', customers.slowPayout, 'completed', 'completed'],
    ] as const) {
      const res = await api.post('/v1/direct/payout', {
        reference,
        sandboxScenario: scenario,
        customerName: c.name,
        payout: { amount: 2000, msisdn: c.msisdn, provider: 'MTN', country: 'CI' },
      });
      expect(res.status).toBe(201);
      await eventually(
        () => api.get(`/v1/direct/payout/${reference}`),
        (r) => r.body.status === final,
        30_000,
      );
      workflowIds.push(`payout:${merchant.merchantId}:${reference}`);
    }
  }, 180_000);

  const rawHistories = () =>
    Promise.all(
      workflowIds.map(async (id) => {
        const [workflowId, runId] = id.split('@');
        return [id, await raw.workflow.getHandle(workflowId!, runId).fetchHistory()] as const;
      }),
    );

  it('no phone number or customer name in any raw history: inputs, results, Updates, failures, search attributes', async () => {
    expect(workflowIds).toHaveLength(8);
    for (const [id, history] of await rawHistories()) {
      expect({ id, leaks: leaks(asText(history)) }).toEqual({ id, leaks: [] });
    }
  });

  it('the raw histories hold Update payloads and failures, all sealed (message and stack trace encoded)', async () => {
    const histories = await rawHistories();
    const events = histories.flatMap(([, h]) => h.events ?? []);
    const updates = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(
      updates.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.name),
    ).toEqual(expect.arrayContaining(['confirmSession', 'requestRefund']));
    for (const e of updates) {
      for (const p of e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!
        .payloads ?? [])
        expect(Buffer.from(p.metadata!.encoding!).toString()).toBe('binary/encrypted');
    }
    // The refused refund: an Update completed with a failure, and the activity that found no balance.
    const updateFailures = events.filter(
      (e) => e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.failure,
    );
    expect(updateFailures.length).toBeGreaterThanOrEqual(1);
    const ours = failures(histories.map(([, h]) => h)).filter((f) => f.source === 'TypeScriptSDK');
    expect(ours.length).toBeGreaterThanOrEqual(2);
    for (const f of ours) {
      expect(f.message).toBe('Encoded failure');
      expect(f.stackTrace ?? '').toBe('');
      const encoded = f.encodedAttributes as { metadata?: Record<string, Uint8Array> } | undefined;
      expect(Buffer.from(encoded!.metadata!.encoding!).toString()).toBe('binary/encrypted');
    }
    // (The slow payout's failed first attempt is kept as `lastFailure` by a real server, which the
    // walk above covers; the time-skipping test server does not record it.)
  });

  it('search attributes (stored in clear, never sealed) hold identifiers and statuses only', async () => {
    // The attributes registered are all of them: none is meant for a customer's data.
    expect(Object.keys(searchAttributes).sort()).toEqual(
      ['MerchantId', 'Provider', 'TransactionKind', 'TransactionReference', 'TransactionStatus'].sort(),
    );
    for (const id of workflowIds) {
      const described = await raw.workflowService.describeWorkflowExecution({
        namespace: stack.env.namespace ?? 'default',
        execution: { workflowId: id.split('@')[0] },
      });
      const fields = described.workflowExecutionInfo?.searchAttributes?.indexedFields ?? {};
      const values = Object.fromEntries(
        Object.entries(fields).map(([name, p]) => [name, defaultPayloadConverter.fromPayload(p)]),
      );
      expect(values).toMatchObject({ MerchantId: merchant.merchantId });
      expect({ id, leaks: leaks(asText(values)) }).toEqual({ id, leaks: [] });
    }
  });

  it('decoded (the service codec), the same histories do show the numbers and names: the check above can see them', async () => {
    // The direct payin's input, and the refused refund's Update in its refund desk.
    const histories = await rawHistories();
    const open = (id: string) =>
      decodeHistoryPayloads(
        histories.find(([w]) => w.startsWith(id))![1],
        stack.env.client.options.loadedDataConverter.payloadCodecs,
      );
    const text = asText(await open(`payin:`));
    expect(text).toContain(customers.direct.msisdn);
    expect(leaks(text)).toEqual(expect.arrayContaining(['+225', customers.direct.national]));
    // And the refused refund's failure message, sealed in the raw history, is back in clear.
    const messages = failures(await open('refund-desk:')).map((f) => f.message);
    expect(messages).toContain('The merchant balance does not cover this refund.');
  });

  it('the codec server decodes a raw payload for a holder of its token', async () => {
    const history = await raw.workflow.getHandle(payinId('priv-direct')).fetchHistory();
    const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    const body = JSON.stringify({
      payloads: input.map((p) => ({
        metadata: Object.fromEntries(
          Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
        data: Buffer.from(p.data ?? []).toString('base64'),
      })),
    });
    const post = (authorization?: string) =>
      fetch(`${codecServer.url}/decode`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-namespace': 'default',
          ...(authorization ? { authorization } : {}),
        },
        body,
      });
    const res = await post(`Bearer ${token}`);
    expect(res.status).toBe(200);
    const decoded = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    const value = defaultPayloadConverter.fromPayload({
      metadata: Object.fromEntries(
        Object.entries(decoded.payloads[0]!.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
      ),
      data: Buffer.from(decoded.payloads[0]!.data, 'base64'),
    });
    expect(JSON.stringify(value)).toContain(customers.direct.msisdn);

    expect((await post()).status).toBe(401);
    expect((await post(`Bearer ${token.slice(1)}x`)).status).toBe(401);
  });
});
