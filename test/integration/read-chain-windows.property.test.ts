import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Connection } from 'mongoose';
import { connectMongo } from '../../src/persistence/mongo';
import { EventStore, eventIdOf, type EventQuery } from '../../src/events/event-store';
import type { EventType, StoredEvent } from '../../src/events/catalogue';
import type { AppendOptions } from '../../src/persistence/read-chains';

// Issue 28 §4: a list walked page by page must return every entry exactly once, for every filter
// and any time window, whatever the order in which concurrent writers appended versus the order of
// their `createdAt`. Writers here take `createdAt`, then append when fast-check's scheduler lets
// them (two connections stand for two processes), while the backfill of events stored before the
// chains appends older events in between; all over the real FerretDB and the real EventStore.

const TYPES: EventType[] = ['payin.completed', 'payin.failed'];
const REFS = ['r1', 'r2', 'r3'];
/** Runs of the property: 1 s each on a 2-core machine, 2.6 s when loaded (READ_CHAIN_RUNS overrides). */
const RUNS = Number(process.env.READ_CHAIN_RUNS ?? 15);

interface Live {
  type: number;
  ref: number;
  /** Milliseconds the clock moved since the previous writer took its time (0: the same ms). */
  tick: number;
  writer: number;
}
interface Old {
  type: number;
  ref: number;
}

/** The private steps of EventStore a test drives one at a time: the record insert, then the chains. */
type Steps = {
  model: { create(doc: unknown): Promise<unknown> };
  index(e: StoredEvent, o?: AppendOptions): Promise<void>;
};
const steps = (store: EventStore) => store as unknown as Steps;

/** Every page of a query, as GET /v1/events walks it (limit + 1 read, the cursor below the last shown). */
async function walk(
  store: EventStore,
  merchantId: string,
  q: Omit<EventQuery, 'limit' | 'before'>,
  limit: number,
) {
  const ids: string[] = [];
  let before: number | undefined;
  for (let pages = 0; pages < 500; pages++) {
    const found = await store.list(merchantId, { ...q, ...(before ? { before } : {}), limit: limit + 1 });
    ids.push(...found.events.slice(0, limit).map((e) => e.id));
    const below = found.events.length > limit ? found.positions[limit - 1] : found.next;
    if (!below) return ids;
    before = below;
  }
  throw new Error('walk did not end');
}

describe('read chain windows under interleaved appends (FerretDB)', () => {
  let conns: Connection[];
  let stores: EventStore[];

  beforeAll(async () => {
    const base = process.env.TEST_MONGODB_URL;
    if (!base) throw new Error('TEST_MONGODB_URL is unset: run through jest (global setup)');
    const uri = `${base}/t_${randomBytes(6).toString('hex')}`;
    conns = await Promise.all([connectMongo(uri), connectMongo(uri)]);
    stores = conns.map((c) => EventStore.on(c));
    await stores[0]!.init();
  });
  afterAll(async () => {
    await Promise.all((conns ?? []).map((c) => c.close()));
  });

  const live: fc.Arbitrary<Live> = fc.record({
    type: fc.nat(TYPES.length - 1),
    ref: fc.nat(REFS.length - 1),
    tick: fc.nat(2),
    writer: fc.nat(1),
  });
  const old: fc.Arbitrary<Old> = fc.record({ type: fc.nat(TYPES.length - 1), ref: fc.nat(REFS.length - 1) });

  it('returns every event in exactly one page, for every filter and window split anywhere', async () => {
    const started = Date.now();
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(live, { minLength: 3, maxLength: 14 }),
        fc.array(old, { maxLength: 5 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 1, max: 4 }),
        async (s, lives, olds, splitPick, windowPick, limit) => {
          runs++;
          const run = randomBytes(5).toString('hex');
          const merchantId = `mer_${run}`;
          const base = Date.UTC(2026, 0, 1, 12);
          const event = (key: string, type: number, ref: number, createdAt: Date): StoredEvent => ({
            id: eventIdOf(`${run}:${key}`),
            merchantId,
            type: TYPES[type]!,
            subjectId: `pr_${run}_${key}`,
            reference: REFS[ref]!,
            emissionKey: `${run}:${key}`,
            createdAt,
            data: { status: 'success' },
          });
          // Stored before the chains existed (older than every live event), appended by the backfill.
          const backfilled = olds.map((o, k) =>
            event(`old${k}`, o.type, o.ref, new Date(base - 1_000 + k * 7)),
          );
          for (const e of backfilled) await steps(stores[0]!).model.create({ _id: e.id, ...e });

          let clock = base;
          const all: StoredEvent[] = [...backfilled];
          const writers = lives.map((l, i) =>
            s
              .schedule(Promise.resolve(), `take createdAt ${i}`)
              .then(() => {
                // A writer takes its time, then may be overtaken before it appends.
                clock += l.tick;
                const e = event(`live${i}`, l.type, l.ref, new Date(clock));
                all.push(e);
                return s.schedule(Promise.resolve(e), `append ${i} on writer ${l.writer}`);
              })
              .then(async (e) => {
                await steps(stores[l.writer]!).model.create({ _id: e.id, ...e });
                await steps(stores[l.writer]!).index(e, { fresh: true });
              }),
          );
          const backfill = (async () => {
            for (const [k, e] of backfilled.entries()) {
              await s.schedule(Promise.resolve(), `backfill ${k}`);
              await steps(stores[0]!).index(e);
            }
          })();
          await s.waitFor(Promise.all([...writers, backfill]));

          const times = all.map((e) => new Date(e.createdAt).getTime());
          const t0 = Math.min(...times);
          const t1 = Math.max(...times) + 1;
          const split = times[splitPick % times.length]!;
          const [a, b] = [times[windowPick % times.length]!, times[(windowPick >> 4) % times.length]!].sort(
            (x, y) => x - y,
          );
          const windows: [number | undefined, number | undefined][] = [
            [undefined, undefined],
            [t0, split],
            [split, t1],
            [a, b! + (windowPick % 2)],
          ];
          const pick = all[splitPick % all.length]!;
          const filters: { type?: EventType; reference?: string }[] = [
            {},
            { type: pick.type },
            { reference: pick.reference },
            { type: pick.type, reference: pick.reference },
          ];
          for (const f of filters) {
            for (const [from, to] of windows) {
              const expected = all
                .filter(
                  (e) =>
                    (!f.type || e.type === f.type) &&
                    (!f.reference || e.reference === f.reference) &&
                    (from === undefined || new Date(e.createdAt).getTime() >= from) &&
                    (to === undefined || new Date(e.createdAt).getTime() < to),
                )
                .map((e) => e.id)
                .sort();
              const ids = await walk(
                stores[run.charCodeAt(0) % 2]!,
                merchantId,
                {
                  ...f,
                  ...(from !== undefined ? { from: new Date(from) } : {}),
                  ...(to !== undefined ? { to: new Date(to) } : {}),
                },
                limit,
              );
              // Exactly once: no event twice, none missing, nothing outside the window.
              expect({ f, from, to, ids: [...ids].sort() }).toEqual({ f, from, to, ids: expected });
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
    // Reported by the brief: the number of runs and their time.
    console.log(`read chain windows: ${runs} runs in ${Date.now() - started} ms`);
  }, 120_000);
});
