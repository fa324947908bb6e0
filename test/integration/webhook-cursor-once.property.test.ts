import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Connection } from 'mongoose';
import { interleaving } from '../helpers/interleave';
import { connectTestMongo } from '../helpers/stack';
import { outboxCursors, saveCursor, saveCursorOnce } from '../../src/webhooks/outbox';

// Where a legacy endpoint's queue starts (src/webhooks/outbox.ts, `saveCursorOnce`), fixed by two or
// three recovery sweeps at once (two workers starting), each having read a later head, while the
// endpoint's drain parks and saves where it stopped: interleaved by fast-check's scheduler over the
// real FerretDB, each store call one step. The first write to land decides; a later sweep never
// moves the queue's start, and a park (the drain's own progress) is never overwritten by a sweep.

/** Schedules per CI run. */
const RUNS = 25;

type Cursors = ReturnType<typeof outboxCursors>;

describe('a queue start fixed by sweeps at once (fast-check scheduler)', () => {
  let mongo: Connection;
  let cursors: Cursors;

  beforeAll(async () => {
    mongo = await connectTestMongo();
    cursors = outboxCursors(mongo);
    await cursors.init();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it('keeps the first start written, and the park written after it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 2, max: 3 }),
        fc.boolean(),
        async (s, sweeps, parks) => {
          const endpointId = `we_${randomUUID()}`;
          const step = interleaving(s);
          /** The writes that landed, in the order they did. */
          const landed: number[] = [];
          // The model's three calls, each one step (a Query's exec for exists).
          const gatedCursors = {
            exists: (filter: object) => ({ exec: step.gate('exists', () => cursors.exists(filter).exec()) }),
            create: step.gate('create', async (doc: { cursor: number }) => {
              const made = await cursors.create(doc);
              landed.push(doc.cursor);
              return made;
            }),
            updateOne: (filter: object, update: { $set: { cursor: number } }, options: object) => ({
              exec: step.gate('updateOne', async () => {
                const done = await cursors.updateOne(filter, update, options).exec();
                landed.push(update.$set.cursor);
                return done;
              }),
            }),
          } as unknown as Cursors;
          const heads = Array.from({ length: sweeps }, (_, i) => 10 * (i + 1));
          const work: Promise<void>[] = heads.map((head) =>
            saveCursorOnce(
              gatedCursors,
              endpointId,
              step.gate('head', async () => ({ cursor: head, attempts: 0 })),
            ),
          );
          if (parks) work.push(saveCursor(gatedCursors, endpointId, { cursor: 99, attempts: 2 }));
          await step.run(Promise.all(work));

          const saved = await cursors.findOne({ _id: endpointId }).lean().exec();
          // One sweep's insert landed, unless the park came first: then none did.
          const sweepsLanded = landed.filter((c) => c !== 99);
          expect(sweepsLanded.length).toBe(parks && landed[0] === 99 ? 0 : 1);
          expect(saved?.cursor).toBe(parks ? 99 : sweepsLanded[0]);
          expect(heads).toContain(sweepsLanded[0] ?? heads[0]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
