import type { RunningSimulator } from '../../src/simulator/server';
import type { OperatorView } from './books';
import { bookKindOf, operatorPathOf, type BookKind, type Plan } from './schedule';

// The operator's side of the fault suite (test/faults/faults.test.ts): its books as the comparison
// reads them, and the late moves it makes on its own (settling a pending transaction).

export const operatorCodes = ['MTN', 'ORANGE', 'MOOV', 'WAVE'] as const;

/** The simulator's record of a transaction, as far as the books comparison needs it (tombstone: newer simulators). */
interface SimRecord {
  kind: BookKind;
  amount: number;
  outcome: 'pending' | 'completed' | 'failed';
  partnerCollected: boolean;
  failure: { code: string } | null;
  tombstone?: boolean;
}

/** The operator's books: its daily statements when the simulator serves them, else its in-process records. */
export async function operatorBooks(
  simulator: RunningSimulator,
  startedAt: number,
): Promise<{
  source: string;
  view: (kind: BookKind, p: Plan) => OperatorView;
}> {
  const dates = new Set<string>();
  for (let t = startedAt - 86_400_000; t <= Date.now() + 86_400_000; t += 86_400_000)
    dates.add(new Date(t).toISOString().slice(0, 10));
  const entries = new Map<
    string,
    { status: OperatorView['status']; amount: number; failureCode: string | null }
  >();
  let statements = true;
  outer: for (const code of operatorCodes)
    for (const date of dates) {
      const res = await fetch(`${simulator.url}/operators/${code}/statements/${date}`).catch(() => null);
      if (!res || res.status !== 200) {
        statements = false;
        break outer;
      }
      const body = (await res.json()) as {
        entries: {
          kind: BookKind;
          id: string;
          amount: number;
          status: OperatorView['status'];
          failureCode: string | null;
        }[];
      };
      for (const e of body.entries)
        entries.set(`${e.kind}:${e.id}`, {
          status: e.status,
          amount: e.amount,
          failureCode: e.failureCode,
        });
    }
  const idOf = (kind: BookKind, p: Plan) =>
    p.id ??
    [...simulator.simulator.transactions.values()].find((t) => t.kind === kind && t.amount === p.amount)
      ?.id ??
    null;
  if (statements)
    return {
      source: 'statement',
      view: (kind, p) => {
        const id = idOf(kind, p);
        const e = id ? entries.get(`${kind}:${id}`) : undefined;
        return e
          ? { ...e, source: 'statement' }
          : { status: 'unknown', amount: null, failureCode: null, source: 'statement' };
      },
    };
  return {
    source: 'books',
    view: (kind, p) => {
      const id = idOf(kind, p);
      const t = id
        ? (simulator.simulator.transactions.get(`${kind}:${id}`) as SimRecord | undefined)
        : undefined;
      if (!t || t.tombstone) return { status: 'unknown', amount: null, failureCode: null, source: 'books' };
      const status = t.kind === 'collection' && t.partnerCollected ? 'completed' : t.outcome;
      return { status, amount: t.amount, failureCode: t.failure?.code ?? null, source: 'books' };
    },
  };
}

/** The operator settles a pending transaction (the sandbox's test control; older simulators: in process). */
export async function settleAtOperator(
  simulator: RunningSimulator,
  p: Plan,
  outcome: 'completed' | 'failed',
): Promise<string> {
  const kind = bookKindOf[operatorPathOf(p)];
  const id =
    p.id ??
    [...simulator.simulator.transactions.values()].find((t) => t.kind === kind && t.amount === p.amount)?.id;
  if (!id) return 'never reached the operator: nothing to settle';
  const post = (path: string, body: unknown) =>
    fetch(`${simulator.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({
      status: r.status,
      body: (await r.json().catch(() => null)) as Record<string, unknown> | null,
    }));
  const res = await post(`/_sandbox/${operatorPathOf(p)}/${encodeURIComponent(id)}/settle`, {
    outcome,
  });
  if (res.status === 200) return `operator settled ${outcome}`;
  if (res.status === 409)
    return `too late to settle: ${JSON.stringify((res.body?.record as { outcome?: string })?.outcome ?? res.body)}`;
  if (res.status === 404 && res.body?.message === 'Unknown transaction')
    return 'unknown to the operator: nothing to settle';
  if (res.body?.message !== 'No such route') return `settle answered ${res.status}`;
  // A simulator without the settle control: the partner finds the funds, or the record is set in process.
  if (kind === 'collection') {
    const r = await post(`/_sandbox/collections/${encodeURIComponent(id)}/collected`, {});
    return r.status === 200 ? 'customer approved (partner collected)' : `collected answered ${r.status}`;
  }
  const rec = simulator.simulator.transactions.get(`${kind}:${id}`) as unknown as
    { outcome: string; failure: unknown } | undefined;
  if (!rec || rec.outcome !== 'pending') return `too late to settle: ${rec?.outcome ?? 'unknown'}`;
  rec.outcome = outcome;
  rec.failure = outcome === 'failed' ? { code: 'PAYEE_REJECTED', message: 'Rejected late' } : null;
  return `operator settled ${outcome} (in process)`;
}
