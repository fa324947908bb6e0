import type { Connection } from 'mongoose';
import type { LedgerModels } from '../../src/ledger/models';
import type { RunningSimulator } from '../../src/simulator/server';
import { divergencesOf, movementOf, type Divergence, type OperatorView, type OurView } from './books';
import type { Http } from './http';
import { operatorBooks } from './operator-books';
import { bookKindOf, describeSchedule, operatorPathOf, type Plan } from './schedule';

// The fault suite's comparison (test/faults/faults.test.ts): for every planned transaction, what our
// API and ledger say it did beside what the operator's books say, and where they diverge.

/** What the run knows when it compares. */
export interface RunState {
  mongo: Connection;
  models: LedgerModels;
  simulator: RunningSimulator;
  api: Http;
  plans: Plan[];
  startedAt: number;
  concurrency: number;
  /** Why a plan was never created. */
  createErrors: Map<Plan, string>;
  /** Refunds whose carrier payin ended without success: nothing to compare. */
  withoutCarrier: Map<Plan, string>;
  /** The operator's books when they are not the simulator's (a live provider's status API). */
  books?: () => Promise<OperatorBooks>;
}

export type OperatorBooks = Awaited<ReturnType<typeof operatorBooks>>;

/** Both sides of every transaction, and their divergences. */
export async function evaluate(run: RunState): Promise<{
  rows: { plan: Plan; ours: OurView; operator: OperatorView }[];
  divergences: Divergence[];
  source: string;
}> {
  const { mongo, models, simulator, plans, startedAt, concurrency, withoutCarrier } = run;
  const legs = new Map<string, number>();
  for (const l of await models.entries.find({}, { sourceRef: 1, leg: 1 }).lean().exec())
    legs.set(`${l.sourceRef}|${l.leg}`, (legs.get(`${l.sourceRef}|${l.leg}`) ?? 0) + 1);
  const stored = new Map<string, Record<string, unknown>>();
  for (const name of ['transactions', 'refunds'])
    for (const d of await mongo
      .collection(name)
      .find({}, { projection: { _id: 1, attention: 1 } })
      .toArray())
      stored.set(String(d._id), d);
  const books = await (run.books ? run.books() : operatorBooks(simulator, startedAt));
  const rows: { plan: Plan; ours: OurView; operator: OperatorView }[] = [];
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < plans.length) {
        const p = plans[i++]!;
        rows.push({
          plan: p,
          ours: await ourView(run, p, legs, stored),
          operator: books.view(bookKindOf[operatorPathOf(p)], p),
        });
      }
    }),
  );
  rows.sort((a, b) => plans.indexOf(a.plan) - plans.indexOf(b.plan));
  const divergences: Divergence[] = [];
  for (const r of rows)
    for (const what of withoutCarrier.has(r.plan) ? [] : divergencesOf(r.plan.kind, r.ours, r.operator))
      divergences.push({
        reference: r.plan.reference,
        id: r.ours.id,
        kind: r.plan.kind,
        what,
        schedule: describeSchedule(r.plan),
        ours: r.ours,
        operator: r.operator,
      });
  return { rows, divergences, source: books.source };
}

async function ourView(
  { api, createErrors }: RunState,
  p: Plan,
  legs: Map<string, number>,
  stored: Map<string, Record<string, unknown>>,
): Promise<OurView> {
  if (p.id === null)
    return {
      id: null,
      status: null,
      amount: null,
      attention: null,
      createError: createErrors.get(p) ?? 'not created',
    };
  const path =
    p.kind === 'payin'
      ? `/v1/payin/${p.reference}`
      : p.kind === 'payout'
        ? `/v1/direct/payout/${p.reference}`
        : `/v1/refunds/${p.id}`;
  const res = await api.request('GET', path).catch(() => null);
  const body = res?.status === 200 ? (res.body as Record<string, unknown>) : null;
  const attention = body?.attention ?? stored.get(p.id)?.attention ?? null;
  const view: OurView = {
    id: p.id,
    status: (body?.status as string | undefined) ?? null,
    amount: (body?.amount as number | undefined) ?? null,
    attention,
  };
  if (p.kind === 'payin') view.credit = movementOf(legs, `${p.id}:payin-credit`);
  else {
    const what = p.kind === 'payout' ? 'payout' : 'refund';
    view.debit = movementOf(legs, `${p.id}:${what}-debit`);
    view.reversal = movementOf(legs, `${p.id}:${what}-reversal`);
  }
  return view;
}
