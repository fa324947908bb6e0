import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { auditQueries } from '../helpers/query-audit';
import { ReadChains, chainKey, readChainHoles, type AppendOptions } from '../../src/persistence/read-chains';
import { EventStore, eventIdOf, eventStreamOf, type EventQuery } from '../../src/events/event-store';
import type { StoredEvent } from '../../src/events/catalogue';
import { RefundStore } from '../../src/persistence/refunds';
import { Ledger } from '../../src/ledger';
import { backfillOnce } from '../../src/persistence/backfill-once';

// The read models behind bounded lists (issue 16), on the real FerretDB: appends race and retry
// without gaps or doubles, data stored before the read models is filled in at start, and the
// refund externalReference claim lets one refund win.
describe('read chains', () => {
  let a: Connection;
  let b: Connection;
  beforeAll(async () => {
    a = await connectTestMongo();
    // A second process on the same database.
    b = a.useDb(a.name, { useCache: false });
  });
  afterAll(() => a.close());

  it('numbers members 1..n without gap or double when writers of two processes race and retry', async () => {
    const one = new ReadChains<{ n: number }>(a, 'test_chains');
    const two = new ReadChains<{ n: number }>(b, 'test_chains');
    await one.init();
    const stream = `s-${randomUUID()}`;
    const members = Array.from({ length: 40 }, (_, n) => `m${n}`);
    const positions = await Promise.all(
      members.flatMap((m, n) => [
        one.append(stream, m, new Date(), { n }),
        two.append(stream, m, new Date(), { n }), // the same member again: a retry elsewhere
      ]),
    );
    for (let i = 0; i < members.length; i++) expect(positions[2 * i]).toBe(positions[2 * i + 1]);
    expect(await one.head(stream)).toBe(members.length);
    const all = await one.range(stream, 1, 1000);
    expect(all.map((e) => e.seq)).toEqual(members.map((_, i) => i + 1));
    expect(new Set(all.map((e) => e.member)).size).toBe(members.length);
    expect(await two.position(stream, 'm7')).toBe(positions[14]);

    // A page: every read is an exact `_id`.
    const audit = await auditQueries(a, () => one.walkDown(stream, { before: 30, limit: 5 }));
    expect(audit.result.entries.map((e) => e.seq)).toEqual([29, 28, 27, 26, 25]);
    expect(audit.scans).toEqual([]);
    // A cursor past the head (forged) starts at the head; one past the start ends the list.
    expect((await one.walkDown(stream, { before: 10_000, limit: 2 })).entries.map((e) => e.seq)).toEqual([
      40, 39,
    ]);
    expect(await one.walkDown(stream, { before: 1, limit: 2 })).toEqual({ entries: [], next: null });
  });

  it('keeps the heads of two chain collections apart when they use the same stream name', async () => {
    // One process (connection), two read chains: a merchant's account index and, say, its audit
    // log may both name a stream by the merchant id. Each chain's head is its own.
    const longer = new ReadChains<{ n: number }>(a, 'test_chains_longer');
    const shorter = new ReadChains<{ n: number }>(a, 'test_chains_shorter');
    await Promise.all([longer.init(), shorter.init()]);
    const stream = `same-${randomUUID()}`;
    for (let n = 0; n < 3; n++) await longer.append(stream, `m${n}`, new Date(), { n });
    expect(await shorter.append(stream, 'x', new Date(), { n: 0 }, { fresh: true })).toBe(1);
    expect((await shorter.range(stream, 1, 10)).map((e) => e.member)).toEqual(['x']);
  });

  it('gives entries appended before `max` theirs at start, so walks by time stop where they should', async () => {
    const db = a.useDb(`${a.name}_max`, { useCache: false });
    const t = Date.UTC(2026, 0, 1);
    // As the previous version appended them: no `max`, and position 2 older than position 1.
    await db.collection('old_chains').insertMany(
      [3, 1, 2, 5].map((s, i) => ({
        _id: chainKey('s', i + 1) as never,
        stream: 's',
        seq: i + 1,
        member: `m${s}`,
        at: new Date(t + s),
        doc: { n: s },
      })),
    );
    const chains = new ReadChains<{ n: number }>(db, 'old_chains');
    await chains.init();
    expect((await chains.range('s', 1, 4)).map((e) => new Date(e.max!).getTime() - t)).toEqual([3, 3, 3, 5]);
    const walked = await chains.walkDown('s', { limit: 10, stopBelow: new Date(t + 2) });
    expect(walked.entries.map((e) => e.member)).toEqual(['m5', 'm2', 'm1', 'm3']);
    // The next append carries it on.
    await chains.append('s', 'm4', new Date(t + 4), { n: 4 });
    expect(new Date((await chains.at('s', 5))!.max!).getTime() - t).toBe(5);
  });

  it('appends a fresh member without looking up its position; a burst waits on inserts only', async () => {
    const chains = new ReadChains<{ n: number }>(a, 'test_chains');
    await chains.init();
    const stream = `f-${randomUUID()}`;
    const audit = await auditQueries(a, () =>
      Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          chains.append(stream, `m${n}`, new Date(), { n }, { fresh: true }),
        ),
      ),
    );
    expect([...audit.result].sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const reads = audit.commands.filter((c) => c.name === 'find' && c.collection === 'test_chains_positions');
    expect(reads).toEqual([]);
    // Each member has its position; another process finds the head.
    for (const [n, seq] of audit.result.entries()) expect(await chains.position(stream, `m${n}`)).toBe(seq);
    const other = new ReadChains<{ n: number }>(b, 'test_chains');
    expect(await other.head(stream)).toBe(10);
    // Not fresh (a retry): the position it holds.
    expect(await chains.append(stream, 'm3', new Date(), { n: 3 })).toBe(audit.result[3]);
  });

  it('finds a member an attempt appended before it died a few positions down by `_id`, not by a scan', async () => {
    const chains = new ReadChains<{ n: number }>(a, 'test_chains');
    await chains.init();
    const stream = `d-${randomUUID()}`;
    // The attempt died after its entry, before its position document.
    const died = await chains.append(stream, 'died', new Date(), { n: 0 }, { fresh: true, position: false });
    for (let n = 1; n <= 5; n++) await chains.append(stream, `m${n}`, new Date(), { n });
    // Its retry, in another process: the (stream, member) index refuses it at the head.
    const other = new ReadChains<{ n: number }>(b, 'test_chains');
    const retry = await auditQueries(b, () => other.append(stream, 'died', new Date(), { n: 0 }));
    expect(retry.result).toBe(died);
    expect(retry.scans).toEqual([]);
  });

  it('lists events stored before the chains once init() ran, newest first', async () => {
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const db = a.useDb(`${a.name}_old`, { useCache: false });
    // As an older version stored them: the event documents only.
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    await db.collection('events').insertMany(
      [1, 2, 3].map((s) => {
        const id = eventIdOf(`old-${s}`);
        return {
          _id: id as never,
          id,
          merchantId,
          type: 'payin.completed',
          subjectId: `pr_${s}`,
          reference: `old-${s}`,
          emissionKey: `old-${s}`,
          createdAt: at(s),
          data: { status: 'success' },
        };
      }),
    );
    const store = EventStore.on(db);
    await store.init();
    const page = await store.list(merchantId, { limit: 10 });
    expect(page.events.map((e) => e.reference)).toEqual(['old-3', 'old-2', 'old-1']);
    const window = await store.list(merchantId, { from: at(2), to: at(3), limit: 10 });
    expect(window.events.map((e) => e.reference)).toEqual(['old-2']);
    const missed = await store.since(merchantId, page.events[2]!, 10);
    expect(missed.map((e) => e.reference)).toEqual(['old-2', 'old-3']);
  });

  /** Every page of a query, as GET /v1/events walks it (limit + 1 read, the cursor below the last shown). */
  async function walkEvents(store: EventStore, merchantId: string, q: Omit<EventQuery, 'limit'>, limit = 4) {
    const ids: string[] = [];
    let before: number | undefined;
    for (let pages = 0; pages < 200; pages++) {
      const found = await store.list(merchantId, { ...q, ...(before ? { before } : {}), limit: limit + 1 });
      ids.push(...found.events.slice(0, limit).map((e) => e.id));
      const below = found.events.length > limit ? found.positions[limit - 1] : found.next;
      if (!below) return ids;
      before = below;
    }
    throw new Error('walk did not end');
  }

  it('lists an event in its window when a later one was appended before it', async () => {
    // Two workers: one takes createdAt t, the other t + 1 ms and appends first.
    const store = EventStore.on(a);
    await store.init();
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const t = Date.UTC(2026, 2, 1, 9);
    const event = (key: string, at: number): StoredEvent => ({
      id: eventIdOf(`${merchantId}:${key}`),
      merchantId,
      type: 'payin.completed',
      subjectId: `pr_${key}`,
      reference: key,
      emissionKey: `${merchantId}:${key}`,
      createdAt: new Date(at),
      data: { status: 'success' },
    });
    const steps = store as unknown as {
      model: { create(doc: unknown): Promise<unknown> };
      index(e: StoredEvent, o?: AppendOptions): Promise<void>;
    };
    const later = event('later', t + 1);
    const earlier = event('earlier', t);
    const third = event('third', t + 2);
    for (const e of [later, earlier, third]) {
      await steps.model.create({ _id: e.id, ...e });
      await steps.index(e, { fresh: true });
    }
    const window = (from: number, to: number) =>
      walkEvents(store, merchantId, { from: new Date(from), to: new Date(to) });
    expect(await window(t, t + 1)).toEqual([earlier.id]);
    expect(await window(t + 1, t + 3)).toEqual([third.id, later.id]);
    expect(await window(t, t + 2)).toEqual([earlier.id, later.id]);
  });

  it('walks split windows of 30 events recorded concurrently by two processes, each event once', async () => {
    // The outside symptom: 30 payins completed at once, then [t0, split) and [split, t1) walked.
    const stores = [EventStore.on(a), EventStore.on(b)];
    await stores[0]!.init();
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const recorded = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        stores[i % 2]!.record({
          merchantId,
          type: 'payin.completed',
          subjectId: `pr_${merchantId}_${i}`,
          reference: `order-${i}`,
          data: { status: 'success' },
        }),
      ),
    );
    const times = recorded.map((e) => new Date(e.createdAt).getTime()).sort((x, y) => x - y);
    const t0 = times[0]!;
    const t1 = times[times.length - 1]! + 1;
    for (const split of [times[5]!, times[15]!, times[27]!]) {
      const low = await walkEvents(stores[0]!, merchantId, {
        type: 'payin.completed',
        from: new Date(t0),
        to: new Date(split),
      });
      const high = await walkEvents(stores[1]!, merchantId, {
        type: 'payin.completed',
        from: new Date(split),
        to: new Date(t1),
      });
      expect(low).toHaveLength(times.filter((x) => x < split).length);
      expect(high).toHaveLength(times.filter((x) => x >= split).length);
      expect(new Set([...low, ...high]).size).toBe(30);
    }
  });

  it('records an event once when two attempts race or one is retried after the chain, its position on its record', async () => {
    // Issue 45: the chain is appended first and the record keeps the position (no position document).
    const stores = [EventStore.on(a), EventStore.on(b)];
    await stores[0]!.init();
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const input = {
      merchantId,
      type: 'payin.completed' as const,
      subjectId: `pr_${merchantId}`,
      reference: 'once',
      data: { status: 'success' },
    };
    const [first, second] = await Promise.all(stores.map((s) => s.record(input)));
    expect(second).toEqual(first);
    const stream = eventStreamOf(merchantId, {});
    expect(await stores[0]!.outboxHead(merchantId)).toBe(1);
    expect(
      await a
        .db!.collection('event_chains_positions')
        .countDocuments({ _id: JSON.stringify([stream, first!.id]) as never }),
    ).toBe(0);
    // An attempt that died after the chain, before its record: the retry records the entry's event.
    await a.db!.collection('events').deleteOne({ _id: first!.id as never });
    const retried = await stores[1]!.record(input);
    expect(retried).toEqual(first);
    expect(await stores[0]!.outboxHead(merchantId)).toBe(1);
    expect(await stores[0]!.findById(merchantId, first!.id)).toEqual(first);
    const later = await stores[0]!.record({ ...input, reference: 'later', data: { status: 'failed' } });
    expect((await stores[1]!.since(merchantId, first!, 10)).map((e) => e.id)).toEqual([later.id]);
  });

  it('keeps answering across a lost entry, counts it, and the sweep lists its member again', async () => {
    const store = EventStore.on(a);
    await store.init();
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const events: StoredEvent[] = [];
    for (let i = 1; i <= 5; i++)
      events.push(
        await store.record({
          merchantId,
          type: 'payin.completed',
          subjectId: `pr_${merchantId}_${i}`,
          reference: `ref-${i}`,
          data: { status: 'success' },
        }),
      );
    // An insert acknowledged, then lost: position 3 of the merchant's chain is gone.
    const stream = eventStreamOf(merchantId, {});
    await a.db!.collection('event_chains').deleteOne({ _id: chainKey(stream, 3) as never });
    const holesSeen = async () =>
      (await readChainHoles.get()).values.find((v) => v.labels.chain === 'event_chains')?.value ?? 0;
    const seen = await holesSeen();

    const page = await store.list(merchantId, { limit: 10 });
    expect(page.events.map((e) => e.reference)).toEqual(['ref-5', 'ref-4', 'ref-2', 'ref-1']);
    expect(await holesSeen()).toBe(seen + 1);
    // Counted once, however often it is read; a WebSocket resume goes across it.
    await store.list(merchantId, { limit: 2, before: 5 });
    expect(await holesSeen()).toBe(seen + 1);
    expect((await store.since(merchantId, events[0]!, 10)).map((e) => e.reference)).toEqual([
      'ref-2',
      'ref-4',
      'ref-5',
    ]);

    // The sweep: the member is appended again (from the event itself), the hole marked.
    expect(await store.repairChainHoles()).toEqual({ holes: 1, reappended: 1, marked: 0 });
    expect((await store.list(merchantId, { limit: 10 })).events.map((e) => e.reference)).toEqual([
      'ref-3',
      'ref-5',
      'ref-4',
      'ref-2',
      'ref-1',
    ]);
    const at3 = new Date(events[2]!.createdAt).getTime();
    expect(
      (await store.list(merchantId, { from: new Date(at3), to: new Date(at3 + 1), limit: 10 })).events.map(
        (e) => e.reference,
      ),
    ).toEqual(['ref-3']);
    expect(await store.repairChainHoles()).toEqual({ holes: 0, reappended: 0, marked: 0 });
    expect(await holesSeen()).toBe(seen + 1);
  });

  it('finds accounts stored before the account index by id and in their merchant list', async () => {
    const db = a.useDb(`${a.name}_ledger`, { useCache: false });
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    await db.collection('ledger_accounts').insertOne({
      _id: `main:${merchantId}:XOF` as never,
      id: 'acc_old',
      key: `main:${merchantId}:XOF`,
      merchantId,
      currency: 'XOF',
      kind: 'main',
      name: 'main',
      createdAt: new Date(),
    });
    const ledger = Ledger.on(db);
    await ledger.init();
    const audit = await auditQueries(db, async () => ({
      one: await ledger.getAccount('acc_old'),
      all: await ledger.listAccounts(merchantId),
      none: await ledger.getAccount('acc_unknown'),
    }));
    expect(audit.result.one?.merchantId).toBe(merchantId);
    expect(audit.result.all.map((x) => x.id)).toEqual(['acc_old']);
    expect(audit.result.none).toBeNull();
    expect(audit.scans).toEqual([]);
  });

  it('starts processes together on a database whose backfills were never marked', async () => {
    // Each finds no marker, backfills (idempotent) and marks it: concurrent upserts of one marker
    // lose their insert to each other on FerretDB (a duplicate key). Two workers starting together
    // crashed on it (the production bench's). Eight processes, ten backfills: the race shows.
    const processes = Array.from({ length: 8 }, () => a.useDb(a.name, { useCache: false }));
    for (let round = 0; round < 10; round++) {
      const name = `race_${randomUUID()}`;
      let arrived = 0;
      let release!: () => void;
      const allIn = new Promise<void>((resolve) => (release = resolve));
      const backfill = async () => {
        if (++arrived === processes.length) release();
        await allIn;
      };
      const started = await Promise.allSettled(processes.map((p) => backfillOnce(p.db!, name, backfill)));
      expect(started.filter((s) => s.status === 'rejected')).toEqual([]);
      // Marked: the next start skips it.
      await backfillOnce(a.db!, name, () => Promise.reject(new Error('backfilled twice')));
    }
  });

  it('lets one refund hold an externalReference when two race, and finds it by _id', async () => {
    const refunds = RefundStore.on(a);
    await refunds.init();
    const payinId = `pr_${randomUUID().slice(0, 12)}`;
    const refund = (id: string) => ({
      id,
      transactionRef: `tr_${id}`,
      merchantId: 'mer_race',
      payinId,
      payinReference: 'order-1',
      externalReference: 'ext-same',
      reason: 'r',
      amount: 100,
      fee: 0,
      currency: 'XOF' as const,
      refundType: 'partial' as const,
      status: 'processing' as const,
      transactionStatus: 'pending' as const,
      processedAt: null,
      customerMsisdn: '+2250500000001',
      customerName: '',
      sandboxScenario: null,
      failure: null,
      idempotencyKey: null,
      apiKey: null,
      workflowId: `w-${id}`,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const results = await Promise.allSettled([
      refunds.insertOrGet(refund(`rf_${payinId}_a`)),
      refunds.insertOrGet(refund(`rf_${payinId}_b`)),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ id: string }>)
      .value;
    // A retry of the winner answers it again.
    expect((await refunds.insertOrGet(refund(winner.id))).id).toBe(winner.id);
    const audit = await auditQueries(a, () =>
      refunds.findByExternalReference('mer_race', payinId, 'ext-same'),
    );
    expect(audit.result?.id).toBe(winner.id);
    expect(audit.scans).toEqual([]);
  });
});
