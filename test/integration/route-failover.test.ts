import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { auditQueries } from '../helpers/query-audit';
import { operatorRoutesJson } from '../../src/operators/connectors/routes';
import { RoutedGateway } from '../../src/operators/connectors/routing';
import type { Connector, ConnectorName } from '../../src/operators/connectors/connector';
import { RouteBookStore } from '../../src/operators/routes/book';
import { buildProviderHealth } from '../../src/operators/health';
import {
  OperatorNotTakenError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type OperatorOutcome,
  type OperatorStatus,
} from '../../src/operators/gateway';

// Issue 43 §3: a live payin or payout moves to the pair's next route only when the route asked
// first certainly did not take it, and only once no send to that route can still land (the fence),
// over the real store (FerretDB) where the route book's entries and verdicts are inserted once.
// docs/decisions/operators/failover-never-twice.md.

interface Script {
  /** What the next requests answer (the last one repeats). */
  request: Array<OperatorOutcome | Error>;
  /** What a status read answers now. */
  status: OperatorOutcome;
}

/** A connector that follows a script and counts every call it takes, by method. */
function scripted(name: ConnectorName, script: Script) {
  const calls: string[] = [];
  const answer = (outcome: OperatorOutcome): OperatorStatus => ({
    outcome,
    operatorReference: `${name}-ref`,
  });
  const request = () => {
    calls.push('request');
    const next = script.request.length > 1 ? script.request.shift()! : script.request[0]!;
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(answer(next));
  };
  const read = (what: string) => () => {
    calls.push(what);
    return Promise.resolve(answer(script.status));
  };
  const connector: Connector = {
    name,
    serves: [{ operator: 'MTN', country: 'CI' }],
    requestCollection: request,
    collectionStatus: read('collectionStatus'),
    partnerCheck: () => Promise.resolve({ collected: false }),
    disburse: request,
    disbursementStatus: read('disbursementStatus'),
    refund: () => {
      calls.push('refund');
      return Promise.resolve(answer('pending'));
    },
    refundStatus: read('refundStatus'),
    cancel: read('cancel'),
    statement: () => Promise.reject(new Error('none')),
    verifyCallback: () => Promise.resolve(null),
  };
  return { connector, calls, script };
}

let seq = 0;
const payin = () => ({
  transactionId: `pr_failover${String(++seq).padStart(14, '0')}`,
  operator: 'MTN' as const,
  country: 'CI' as const,
  msisdn: '+2250500000001',
  amount: 5000,
  currency: 'XOF',
  sandboxScenario: null,
});

describe('failover between two routes of one pair (route book over the real store)', () => {
  let mongo: Connection;
  let book: RouteBookStore;
  let clock = Date.parse('2026-11-28T09:00:00Z');
  const fenceMs = 30_000;
  const table = operatorRoutesJson.parse('{"MTN_CI":["pawapay","mtn"]}');

  beforeAll(async () => {
    mongo = await connectTestMongo();
    book = new RouteBookStore(mongo);
  });
  afterAll(() => mongo.close());

  /** A gateway as one process builds it (several may share the store and the connectors). */
  function gateway(first: Connector, second: Connector) {
    return new RoutedGateway(
      table,
      new Map([
        [first.name, first],
        [second.name, second],
      ]),
      { book, fenceMs, now: () => clock },
    );
  }

  it('records the route asked first, and sends nothing elsewhere when it takes the request', async () => {
    const a = scripted('pawapay', { request: ['pending'], status: 'pending' });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    const req = payin();
    expect(await gw.requestCollection(req)).toMatchObject({
      outcome: 'pending',
      operatorReference: 'pawapay-ref',
    });
    expect(await gw.collectionStatus(req.transactionId, 'MTN', 'CI')).toMatchObject({
      operatorReference: 'pawapay-ref',
    });
    const { entries } = await book.read('collection', req.transactionId);
    expect(entries).toEqual([
      expect.objectContaining({ seq: 1, connector: 'pawapay', reason: 'ranked-first' }),
    ]);
    expect(b.calls).toEqual([]);
  });

  it('after a refusal, fences the first route, reads it once the fence is over, then sends to the second', async () => {
    const a = scripted('pawapay', {
      request: [
        new OperatorNotTakenError('pawapay POST /v2/deposits: REJECTED PROVIDER_TEMPORARILY_UNAVAILABLE'),
      ],
      status: 'unknown',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'completed' });
    const gw = gateway(a.connector, b.connector);
    const req = payin();

    // The refusal: not an answer for the workflow (it asks again later), and the fence is written.
    await expect(gw.requestCollection(req)).rejects.toThrow(OperatorUnavailableError);
    const fenced = await book.read('collection', req.transactionId);
    expect(fenced.entries.map((e) => [e.seq, e.connector, e.reason])).toEqual([
      [1, 'pawapay', 'ranked-first'],
      [2, 'mtn', 'failover'],
    ]);
    expect(fenced.entries[1]!.after).toEqual({
      connector: 'pawapay',
      answer: expect.stringMatching(/PROVIDER_TEMPORARILY_UNAVAILABLE/),
    });
    // Until the verdict the transaction is at the first route, and nothing is sent anywhere.
    expect(await gw.collectionStatus(req.transactionId, 'MTN', 'CI')).toMatchObject({ outcome: 'unknown' });
    clock += fenceMs - 1_000;
    await expect(gw.requestCollection(req)).rejects.toThrow(/waits 1 s for pawapay/);
    expect(a.calls.filter((c) => c === 'request')).toHaveLength(1);
    expect(b.calls).toEqual([]);

    // The fence is over: the first route still does not know the id, so the second takes it.
    clock += 1_000;
    expect(await gw.requestCollection(req)).toMatchObject({
      outcome: 'pending',
      operatorReference: 'mtn-ref',
    });
    expect(a.calls.filter((c) => c === 'request')).toHaveLength(1);
    expect((await book.read('collection', req.transactionId)).verdicts).toEqual([
      expect.objectContaining({ seq: 2, verdict: 'go', answer: 'unknown' }),
    ]);
    // Every later call follows the route that took it: reads, cancellation, and the refund.
    expect(await gw.collectionStatus(req.transactionId, 'MTN', 'CI')).toMatchObject({ outcome: 'completed' });
    await gw.cancel('collection', req.transactionId, 'MTN', 'CI');
    await gw.refund({ ...req, refundId: 'rf_failover0000000000001' });
    expect(b.calls).toEqual(['request', 'collectionStatus', 'cancel', 'refund']);
    // Asked again (a retry after a lost answer), the second route is asked again, never the first.
    await gw.requestCollection(req);
    expect(a.calls.filter((c) => c === 'request')).toHaveLength(1);
  });

  it('stays at the first route when, after the fence, it holds the transaction (a send that was in flight landed)', async () => {
    const a = scripted('pawapay', {
      request: [new OperatorRejectedError('pawapay POST /v2/deposits: HTTP 400 INVALID_INPUT'), 'pending'],
      status: 'unknown',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    const req = payin();
    await expect(gw.requestCollection(req)).rejects.toThrow(OperatorUnavailableError);
    a.script.status = 'pending';
    clock += fenceMs;
    expect(await gw.requestCollection(req)).toMatchObject({ operatorReference: 'pawapay-ref' });
    expect((await book.read('collection', req.transactionId)).verdicts).toEqual([
      expect.objectContaining({ verdict: 'stay', answer: 'pending' }),
    ]);
    expect(await gw.collectionStatus(req.transactionId, 'MTN', 'CI')).toMatchObject({
      operatorReference: 'pawapay-ref',
    });
    expect(b.calls).toEqual([]);
  });

  it('stays at the first route when, after the fence, it failed the transaction: its answer stands', async () => {
    const a = scripted('pawapay', {
      request: [new OperatorNotTakenError('pawapay: connection refused'), 'failed'],
      status: 'unknown',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    const req = payin();
    await expect(gw.requestCollection(req)).rejects.toThrow(OperatorUnavailableError);
    // A send that read the book before the fence landed, and the customer declined it there.
    a.script.status = 'failed';
    clock += fenceMs;
    expect(await gw.requestCollection(req)).toMatchObject({
      outcome: 'failed',
      operatorReference: 'pawapay-ref',
    });
    expect((await book.read('collection', req.transactionId)).verdicts).toEqual([
      expect.objectContaining({ verdict: 'stay', answer: 'failed' }),
    ]);
    expect(b.calls).toEqual([]);
  });

  it('never moves a transaction the first route may hold: no answer, and a status that is not "unknown"', async () => {
    const a = scripted('pawapay', {
      request: [new OperatorUnavailableError('pawapay POST /v2/deposits: no answer in 1000 ms'), 'pending'],
      status: 'pending',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    const req = payin();
    await expect(gw.requestCollection(req)).rejects.toThrow(/no answer/);
    clock += fenceMs * 10;
    expect(await gw.requestCollection(req)).toMatchObject({ operatorReference: 'pawapay-ref' });
    expect((await book.read('collection', req.transactionId)).entries).toHaveLength(1);
    expect(b.calls).toEqual([]);
  });

  it('fences after no answer when the first route then says it does not know the id', async () => {
    const a = scripted('pawapay', {
      request: [new OperatorUnavailableError('pawapay POST /v2/deposits: HTTP 503')],
      status: 'unknown',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    const req = payin();
    await expect(gw.requestCollection(req)).rejects.toThrow(/did not take the request/);
    clock += fenceMs;
    expect(await gw.requestCollection(req)).toMatchObject({ operatorReference: 'mtn-ref' });
  });

  it("keeps a payin whose OTP was given on its first route: the OTP was that route's", async () => {
    const a = scripted('pawapay', {
      request: [new OperatorRejectedError('pawapay: HTTP 400')],
      status: 'unknown',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    await expect(gw.requestCollection({ ...payin(), otp: '123456' })).rejects.toThrow(OperatorRejectedError);
    expect(b.calls).toEqual([]);
  });

  it('fails over a payout the same way', async () => {
    const a = scripted('pawapay', {
      request: [new OperatorNotTakenError('pawapay: connection refused')],
      status: 'unknown',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    const req = payin();
    await expect(gw.disburse(req)).rejects.toThrow(OperatorUnavailableError);
    clock += fenceMs;
    expect(await gw.disburse(req)).toMatchObject({ operatorReference: 'mtn-ref' });
    expect(await gw.disbursementStatus(req.transactionId, 'MTN', 'CI')).toMatchObject({
      operatorReference: 'mtn-ref',
    });
  });

  it('decides once when several processes fail over the same transaction at the same time', async () => {
    const a = scripted('pawapay', {
      request: [new OperatorRejectedError('pawapay: HTTP 400')],
      status: 'unknown',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    // Five processes, each its own gateway over the one store.
    const processes = Array.from({ length: 5 }, () => gateway(a.connector, b.connector));
    const req = payin();
    const first = await Promise.allSettled(processes.map((gw) => gw.requestCollection(req)));
    expect(first.every((r) => r.status === 'rejected')).toBe(true);
    const beforeFence = a.calls.filter((c) => c === 'request').length;
    clock += fenceMs;
    const second = await Promise.allSettled(processes.map((gw) => gw.requestCollection(req)));
    expect(
      second.map((r) => (r.status === 'fulfilled' ? r.value.operatorReference : String(r.reason))),
    ).toEqual(Array(5).fill('mtn-ref'));
    const { entries, verdicts } = await book.read('collection', req.transactionId);
    expect(entries.map((e) => e.connector)).toEqual(['pawapay', 'mtn']);
    expect(verdicts).toHaveLength(1);
    // The first route got the request only before the fence: once it was written, never again.
    expect(a.calls.filter((c) => c === 'request')).toHaveLength(beforeFence);
  });

  it('ranks by what every process measured: a route eliminated by one process is asked last by another', async () => {
    // Two processes, each with its own measures, over the one store.
    const [healthA, healthB] = [0, 1].map(() =>
      buildProviderHealth(mongo, {}, { cacheMs: 0, now: () => clock, processId: `p${Math.random()}` }),
    );
    const refusing = scripted('pawapay', {
      request: [new OperatorUnavailableError('pawapay POST /v2/deposits: HTTP 503')],
      status: 'pending',
    });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const options = (health: typeof healthA) => ({
      book,
      fenceMs,
      now: () => clock,
      measures: health!.routes,
    });
    const routesOfA = new RoutedGateway(
      table,
      new Map<ConnectorName, Connector>([
        ['pawapay', refusing.connector],
        ['mtn', b.connector],
      ]),
      options(healthA),
    );
    // Five technical failures at pawaPay, in process A: a burst that eliminates it.
    for (let i = 0; i < 5; i++) await expect(routesOfA.requestCollection(payin())).rejects.toThrow(/503/);
    await healthA!.refresh();

    const a = scripted('pawapay', { request: ['pending'], status: 'pending' });
    const routesOfB = new RoutedGateway(
      table,
      new Map<ConnectorName, Connector>([
        ['pawapay', a.connector],
        ['mtn', b.connector],
      ]),
      options(healthB),
    );
    const req = payin();
    expect(await routesOfB.requestCollection(req)).toMatchObject({ operatorReference: 'mtn-ref' });
    const [entry] = (await book.read('collection', req.transactionId)).entries;
    expect(entry).toMatchObject({ connector: 'mtn', reason: 'ranked-first' });
    expect(entry!.ranking).toEqual([
      expect.objectContaining({ connector: 'pawapay', eliminated: true }),
      expect.objectContaining({ connector: 'mtn', eliminated: false }),
    ]);
    expect(a.calls).toEqual([]);
    await Promise.all([healthA!.stop(), healthB!.stop()]);
  });

  it('rates a route by the final outcomes its status reads give, each transaction once', async () => {
    const health = buildProviderHealth(
      mongo,
      {},
      { cacheMs: 0, now: () => clock, processId: `p${Math.random()}` },
    );
    // Its own pair, so the other tests' measures of MTN CI do not count here.
    const cm = operatorRoutesJson.parse('{"MTN_CM":["pawapay","mtn"]}');
    const failing = scripted('pawapay', { request: ['pending'], status: 'failed' });
    const b = scripted('mtn', { request: ['pending'], status: 'completed' });
    const gw = new RoutedGateway(
      cm,
      new Map<ConnectorName, Connector>([
        ['pawapay', { ...failing.connector, serves: [{ operator: 'MTN', country: 'CM' }] }],
        ['mtn', { ...b.connector, serves: [{ operator: 'MTN', country: 'CM' }] }],
      ]),
      { book, fenceMs, now: () => clock, measures: health.routes },
    );
    // 20 payins taken by pawaPay, each read twice once final (failed, not by the customer).
    for (let i = 0; i < 20; i++) {
      const req = { ...payin(), country: 'CM' as const, msisdn: '+237670000001', currency: 'XAF' };
      await gw.requestCollection(req);
      for (let r = 0; r < 2; r++) await gw.collectionStatus(req.transactionId, 'MTN', 'CM');
    }
    await health.refresh();
    const measured = await health.routes.health('MTN', 'CM', 'payin', ['pawapay', 'mtn']);
    expect(measured.get('pawapay')).toMatchObject({ successRate: 0, outcomes: 20 });
    await health.stop();
  });

  it('reads the book in the order it is written: what follows a missing entry is not seen', async () => {
    // As a read that met entry 1 before it was written and entry 2 after would see it if the
    // three documents were read together: route 2 without route 1 must read as no route at all.
    const id = payin().transactionId;
    const at = new Date(clock).toISOString();
    await book.record({ kind: 'collection', id, seq: 2, connector: 'mtn', reason: 'failover', at });
    expect(await book.read('collection', id)).toEqual({ entries: [], verdicts: [] });
    await book.decide({ kind: 'collection', id, seq: 2, verdict: 'go', answer: 'unknown', at });
    await book.record({ kind: 'collection', id, seq: 1, connector: 'pawapay', reason: 'ranked-first', at });
    const read = await book.read('collection', id);
    expect(read.entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(read.verdicts).toHaveLength(1);
  });

  it('keeps what can no longer change per process: a status read costs one store read, a settled transaction and a refund none', async () => {
    const a = scripted('pawapay', { request: ['pending'], status: 'completed' });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    // Another process's book and gateway: the store is shared, the kept entries are not.
    const other = new RouteBookStore(mongo);
    const gw = new RoutedGateway(
      table,
      new Map([
        [a.connector.name, a.connector],
        [b.connector.name, b.connector],
      ]),
      {
        book: other,
        fenceMs,
        now: () => clock,
        payinOfRefund: () => Promise.resolve(req.transactionId),
      },
    );
    const req = payin();
    await gateway(a.connector, b.connector).requestCollection(req);
    const reads = async (call: () => Promise<unknown>) =>
      (await auditQueries(mongo, call)).commands.filter((c) => c.collection === 'transaction_routes').length;
    // Entry 1 once, then only entry 2 (which another process may write) on every read.
    expect(await reads(() => gw.collectionStatus(req.transactionId, 'MTN', 'CI'))).toBe(2);
    expect(await reads(() => gw.collectionStatus(req.transactionId, 'MTN', 'CI'))).toBe(1);
    // A refund's route is its payin's, settled: asked once, then kept.
    const refundId = 'rf_kept000000000000000001';
    expect(await reads(() => gw.refundStatus(refundId, 'MTN', 'CI'))).toBe(1);
    expect(await reads(() => gw.refundStatus(refundId, 'MTN', 'CI'))).toBe(0);
    // A transaction whose second route has its verdict cannot change any more.
    const id = payin().transactionId;
    const at = new Date(clock).toISOString();
    await book.record({ kind: 'collection', id, seq: 1, connector: 'pawapay', reason: 'ranked-first', at });
    await book.record({ kind: 'collection', id, seq: 2, connector: 'mtn', reason: 'failover', at });
    await book.decide({ kind: 'collection', id, seq: 2, verdict: 'go', answer: 'unknown', at });
    expect(await reads(() => gw.collectionStatus(id, 'MTN', 'CI'))).toBe(3);
    expect(await reads(() => gw.collectionStatus(id, 'MTN', 'CI'))).toBe(0);
    expect(b.calls).toEqual(['collectionStatus', 'collectionStatus']);
  });

  it('serves a transaction written before routes were books (none in it) from the first route', async () => {
    const a = scripted('pawapay', { request: ['pending'], status: 'completed' });
    const b = scripted('mtn', { request: ['pending'], status: 'pending' });
    const gw = gateway(a.connector, b.connector);
    expect(await gw.collectionStatus('pr_beforebooks00000000001', 'MTN', 'CI')).toMatchObject({
      operatorReference: 'pawapay-ref',
    });
  });
});
