import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { auditQueries } from '../helpers/query-audit';
import { ReadChains } from '../../src/persistence/read-chains';
import { EventStore, eventIdOf } from '../../src/events/event-store';
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
