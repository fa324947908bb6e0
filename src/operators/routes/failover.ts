import {
  OperatorNotTakenError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type OperatorStatus,
} from '../gateway';
import type { ConnectorName } from '../connectors/connector';
import type { RouteBook, RouteEntry, RoutedKind, RouteVerdict } from './book';
import type { Ranking } from './ranking';

// Which route a live transaction is at, and when it may move to the next one: only when the route
// it is at certainly did not take it, and never while a send there may still land
// (docs/decisions/operators/failover-never-twice.md). In short:
//   1. The first route is written in the route book before the first send (insert-once).
//   2. A send answered "not taken" (a refusal of the request, a connection refused, or no answer
//      followed at once by "I do not know this id") writes the next route as entry 2: a fence. No
//      process sends to the first route once it reads the fence.
//   3. A send that read the book before the fence may still reach the first route, for as long as
//      an operator call lasts. After `fenceMs`, the first route's status of the id is read: it does
//      not know it, and the verdict is `go`; it holds it (in flight, completed or failed), and the
//      verdict is `stay`.
//      The verdict is inserted once, and every process follows it.
//   4. Until the verdict, the transaction is at the first route (reads, cancellation), and a send
//      answers "unavailable" (the workflow asks again later). One failover at most.

export interface FailoverOptions {
  book: RouteBook;
  /**
   * How long after a fence the first route is read for the verdict: longer than any send that read
   * the book before the fence can take to reach the route (the operator call's timeout, and more).
   */
  fenceMs: number;
  now?: () => number;
}

/** What the router needs of a route to move a transaction. */
export interface RouteCalls {
  /** Sends the transaction's request to a connector (our id is its idempotency key). */
  send(connector: ConnectorName): Promise<OperatorStatus>;
  /** Reads the transaction's status at a connector. */
  read(connector: ConnectorName): Promise<OperatorStatus>;
}

/** How the route asked first is chosen (by default, the pair's configured order). */
export type ChooseRoutes = () => Promise<Ranking>;

/** A failure text fit for the book: the connector's message names the route, never the request. */
const answerOf = (err: unknown) => (err instanceof Error ? err.message : 'no answer').slice(0, 200);

export class RouteFollower {
  private readonly now: () => number;

  constructor(private readonly opts: FailoverOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * The connector a transaction is at: its last route once that route's verdict is `go`, else the
   * one before; `fallback` (the pair's first route) for a transaction no route was written for.
   */
  async current(kind: RoutedKind, id: string, fallback: ConnectorName | null): Promise<ConnectorName | null> {
    const { entries, verdicts } = await this.opts.book.read(kind, id);
    return entries.length === 0 ? fallback : settledEntry(entries, verdicts).connector;
  }

  /**
   * Sends a transaction's request along its routes (`routes`: the pair's connectors in the order
   * they are asked; `mayFailOver`: false keeps it on its first route).
   */
  async send(
    kind: RoutedKind,
    id: string,
    choose: ChooseRoutes,
    mayFailOver: boolean,
    calls: RouteCalls,
  ): Promise<OperatorStatus> {
    const { book } = this.opts;
    const read = await book.read(kind, id);
    let first = read.entries[0];
    if (!first) {
      const { order, reason, inputs } = await choose();
      first = await book.record({
        kind,
        id,
        seq: 1,
        connector: order[0]!,
        reason,
        ranking: inputs,
        at: new Date(this.now()).toISOString(),
      });
    }
    const second = read.entries[1];
    if (!second) return this.sendFirst(first, choose, mayFailOver, calls);
    const verdict =
      read.verdicts.find((v) => v.seq === second.seq) ?? (await this.verdict(first, second, calls));
    return calls.send(verdict.verdict === 'go' ? second.connector : first.connector);
  }

  private async sendFirst(
    first: RouteEntry,
    choose: ChooseRoutes,
    mayFailOver: boolean,
    calls: RouteCalls,
  ): Promise<OperatorStatus> {
    try {
      return await calls.send(first.connector);
    } catch (err) {
      if (!mayFailOver || !(await this.notTaken(err, first.connector, calls))) throw err;
      // The next route as the ranking stands now (the first may have been chosen minutes ago).
      const next = (await choose()).order.find((r) => r !== first.connector);
      if (!next) throw err;
      await this.opts.book.record({
        kind: first.kind,
        id: first.id,
        seq: 2,
        connector: next,
        reason: 'failover',
        after: { connector: first.connector, answer: answerOf(err) },
        at: new Date(this.now()).toISOString(),
      });
      throw new OperatorUnavailableError(
        `route ${first.connector} did not take the request; ${next} may once ${first.connector} confirms it (${answerOf(err)})`,
      );
    }
  }

  /** The first route certainly did not take the request, by its answer or by its status at once. */
  private async notTaken(err: unknown, connector: ConnectorName, calls: RouteCalls): Promise<boolean> {
    if (err instanceof OperatorRejectedError || err instanceof OperatorNotTakenError) return true;
    if (!(err instanceof OperatorUnavailableError)) return false;
    // No answer: only the route's own "I do not know this id" opens the fence; the verdict reads it
    // again once every send that may still land has landed.
    const status = await calls.read(connector).catch(() => null);
    return status?.outcome === 'unknown';
  }

  /** The verdict on a fence, once `fenceMs` passed: the first route's status decides, once. */
  private async verdict(first: RouteEntry, second: RouteEntry, calls: RouteCalls): Promise<RouteVerdict> {
    const waitMs = Date.parse(second.at) + this.opts.fenceMs - this.now();
    if (waitMs > 0)
      throw new OperatorUnavailableError(
        `route ${second.connector} waits ${Math.ceil(waitMs / 1000)} s for ${first.connector}'s last word`,
      );
    const status = await calls.read(first.connector);
    // Only "I do not know this id" lets it go: a route that failed it took it, and its answer is
    // the transaction's (a customer who declined is not asked again elsewhere).
    const gone = status.outcome === 'unknown';
    return this.opts.book.decide({
      kind: first.kind,
      id: first.id,
      seq: second.seq,
      verdict: gone ? 'go' : 'stay',
      answer: status.outcome,
      at: new Date(this.now()).toISOString(),
    });
  }
}

/** The entry a transaction is at: the second once its verdict is `go`, else the first. */
function settledEntry(entries: RouteEntry[], verdicts: RouteVerdict[]): RouteEntry {
  const second = entries[1];
  if (second && verdicts.some((v) => v.seq === second.seq && v.verdict === 'go')) return second;
  return entries[0]!;
}
