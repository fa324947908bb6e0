import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { interleaving } from '../helpers/interleave';
import { useStack } from '../helpers/use-stack';
import { Ledger } from '../../src/ledger';
import { modeOfScope } from '../../src/domain/modes';
import { buildActivityDeps } from '../../src/main/wiring';
import { StatementService } from '../../src/services/statement-service';
import { StatementStore, type Statement } from '../../src/statements/store';
import { statementDocument, type StatementDocument } from '../../src/contract/schemas/statements';
import { statementWorkflowId } from '../../src/temporal/workflow-ids';
import { createStatementActivities } from '../../activities/operations/statement-activities';

// Issue 28 §8: a statement asked for twice at once, and generated twice at once, interleaved by
// fast-check's scheduler over the real FerretDB (and the Temporal test server and worker for the
// requests). Every call of the statement store waits for the scheduler, and so does a ledger entry
// landing in the period meanwhile. Twin requests (one idempotency key: two processes after the key's
// record lapsed) must be one statement, one workflow, one file and one answer. Two generations of
// one statement (an activity attempt retried while the first still runs) must leave one file that
// is the one the statement describes, and a statement once read ready never changes after.

/** Schedules per CI run, for each of the two properties. */
const RUNS = 15;

describe('statements asked and generated at once (fast-check scheduler)', () => {
  const { stack, merchant } = useStack({});
  let ledger: Ledger;
  let store: StatementStore;

  beforeAll(async () => {
    ledger = Ledger.on(stack.mongo);
    store = StatementStore.on(stack.mongo);
    await store.init();
  });

  /** A fresh XOF account with `n` entries in the last minute, and a way to add one more. */
  async function account(n: number) {
    const run = randomUUID().slice(0, 8);
    const acc = await ledger.createSubAccount(merchant.merchantId, 'XOF', `st-${run}`);
    const source = await ledger.systemAccount('sandbox-funding', 'XOF', modeOfScope(merchant.merchantId));
    let k = 0;
    const credit = (amount: number) =>
      ledger.transfer({
        sourceRef: `st-race:${run}:${k++}`,
        fromAccountId: source.id,
        toAccountId: acc.id,
        amount,
        reason: 'funding',
      });
    for (let i = 0; i < n; i++) await credit(100 * (i + 1));
    return { acc, credit };
  }

  const period = () => ({
    from: new Date(Date.now() - 600_000).toISOString(),
    to: new Date(Date.now() + 600_000).toISOString(),
  });

  /** The stored file, parsed, and checked to be the one the statement describes (and to add up). */
  async function fileOf(st: Statement): Promise<StatementDocument> {
    let text = '';
    for await (const part of store.content(st)) text += part;
    const doc = statementDocument.parse(JSON.parse(text));
    expect(doc.statementId).toBe(st.id);
    expect(doc.entries).toHaveLength(st.entryCount!);
    expect(doc.openingBalance).toBe(st.openingBalance);
    expect(doc.closingBalance).toBe(st.closingBalance);
    expect(doc.openingBalance + doc.entries.reduce((a, e) => a + e.amount, 0)).toBe(doc.closingBalance);
    return doc;
  }

  it('twin requests: one statement, one workflow, one file, the same answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 2, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        async (s, twins, entries, entryMeanwhile) => {
          const { acc, credit } = await account(entries);
          const il = interleaving(s);
          const service = new StatementService({
            statements: il.gated(store, 'statements', ['content']),
            ledger,
            temporal: stack.env.client,
            taskQueue: stack.taskQueue,
            keys: stack.config.DATA_ENCRYPTION_KEYS,
            linkTtlMs: 60_000,
          });
          const key = randomUUID();
          const body = { accountId: acc.id, ...period(), format: 'json' as const };
          const asks = Array.from({ length: twins }, () => service.create(merchant.merchantId, body, key));
          const meanwhile: Promise<unknown> = entryMeanwhile
            ? il.gate('ledger entry', () => credit(7))()
            : Promise.resolve();
          const [answers] = await il.run(Promise.all([Promise.all(asks), meanwhile]));

          // One statement: every caller the same id and terms, exactly one of them the creator.
          const ids = new Set(answers.map((a) => a.statement.id));
          expect(ids.size).toBe(1);
          expect(answers.filter((a) => a.created)).toHaveLength(1);
          const id = answers[0]!.statement.id;
          // One workflow, run to its end; the statement ready and its one file what it says.
          const handle = stack.env.client.workflow.getHandle(statementWorkflowId(merchant.merchantId, id));
          expect(await handle.result()).toBe('ready');
          const st = (await store.findById(id))!;
          expect(st.status).toBe('ready');
          const doc = await fileOf(st);
          expect(doc.entries.length).toBeGreaterThanOrEqual(entries);
          expect(doc.entries.length).toBeLessThanOrEqual(entries + (entryMeanwhile ? 1 : 0));
        },
      ),
      { numRuns: RUNS },
    );
  }, 240_000);

  it('two generations of one statement: one file, the one it describes; ready never changes', async () => {
    const deps = await buildActivityDeps({ mongo: stack.mongo, config: stack.config });
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 2, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        async (s, attempts, entries) => {
          const { acc, credit } = await account(entries);
          const { from, to } = period();
          const st: Statement = {
            id: `st_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
            merchantId: merchant.merchantId,
            accountId: acc.id,
            currency: 'XOF',
            from: new Date(from),
            to: new Date(to),
            format: 'json',
            status: 'pending',
            createdAt: new Date(),
            readyAt: null,
            openingBalance: null,
            closingBalance: null,
            entryCount: null,
            chunks: null,
            failure: null,
          };
          await store.insertOrGet(st);
          const il = interleaving(s);
          // Each attempt's steps (its reads and writes of the statement, its read of the ledger) are
          // placed by the scheduler, among a ledger entry landing in the period and a reader.
          const acts = createStatementActivities({
            ...deps,
            statements: il.gated(store, 'statements', ['content']),
            ledger: il.gated(deps.ledger, 'ledger'),
          });
          // Attempts of the one activity at once; one may fail its check (an entry landed mid-read).
          const runs = Array.from({ length: attempts }, () =>
            acts.generateStatement(st.id).then(
              () => true,
              () => false,
            ),
          );
          const landed = il.gate('ledger entry', () => credit(7))();
          // A reader all along: a statement it once sees ready must read the same for ever after.
          const seen: { st: Statement; doc: StatementDocument }[] = [];
          const reader = (async () => {
            for (let i = 0; i < 4; i++)
              await il.gate('reader', async () => {
                const now = await store.findById(st.id);
                if (now?.status === 'ready') seen.push({ st: now, doc: await fileOf(now) });
              })();
          })();
          await il.run(Promise.all([...runs, landed, reader]));
          // A generation that failed its check is retried by Temporal: one more attempt, ungated.
          if ((await store.findById(st.id))!.status !== 'ready')
            await createStatementActivities({ ...deps, statements: store }).generateStatement(st.id);

          const final = (await store.findById(st.id))!;
          expect(final.status).toBe('ready');
          const doc = await fileOf(final);
          for (const early of seen) {
            expect(final).toEqual(early.st);
            expect(doc).toEqual(early.doc);
          }
          // One file: no chunk of the statement but those its record names.
          const chunks = await stack.mongo
            .db!.collection('statement_chunks')
            .countDocuments({ _id: { $regex: `^${st.id}:` } as never });
          expect(chunks).toBe(final.chunks);
        },
      ),
      { numRuns: RUNS },
    );
  }, 240_000);
});
