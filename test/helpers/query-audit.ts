import type { Connection } from 'mongoose';

// The driver's wire connection class: not in its typings, hence the require.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Connection: DriverConnection } = require('mongodb/lib/cmap/connection') as {
  Connection: { prototype: unknown };
};

// Records every MongoDB command a callback causes on one database and tells bounded reads from
// scans, for the rule "every lookup on a request path is an `_id` lookup or a bounded read model".
//
// FerretDB 1.24's SQLite backend pushes down exactly one filter: `{ _id: <string or ObjectId> }`
// (internal/backends/sqlite/collection.go, Query). Any other filter, `_id: { $in }` and `_id`
// ranges included, decodes every document of the collection in Go, and a sort or a filter
// disables the LIMIT pushdown (internal/handler/msg_find.go). So only an exact `_id` counts as
// bounded, unless the caller lists the collection as small (a hard limit on a collection that
// stays small) or opts into `_id` ranges/`$in` for a MongoDB-only check.
//
// Commands are caught by wrapping the driver's Connection.prototype.command while the callback
// runs: no client option needed, so it works on a connection opened without monitorCommands
// (the test stack's). Only commands on `conn`'s database are recorded: other test files run in
// other databases of the same FerretDB.

export type CommandKind = 'find' | 'aggregate' | 'count' | 'distinct' | 'update' | 'delete' | 'findAndModify';

export interface AuditedQuery {
  kind: CommandKind;
  collection: string;
  filter: unknown;
  limit: number | null;
  sort: unknown;
  bounded: boolean;
  /** Why it is bounded or a scan, in words. */
  reason: string;
}

export interface QueryAuditOptions {
  /** Collections that stay small: a read with a limit up to the given bound is bounded there. */
  small?: Record<string, number>;
  /** Count `_id: { $in: [...] }` (up to this many) and `_id` ranges with a limit as bounded. Not on FerretDB. */
  idRanges?: { maxIn: number; maxLimit: number } | null;
  /** Commands to leave out (background work: the event feed's tail, a schedule's sweep). */
  ignore?: (q: AuditedQuery) => boolean;
  /**
   * Holds every command this long before sending it, so that a caller's duration divided by it is
   * the number of store round trips it waits for in sequence (parallel ones wait together).
   */
  delayMs?: number;
}

export interface QueryAudit<T> {
  result: T;
  /** Every classified query, in order. */
  queries: AuditedQuery[];
  scans: AuditedQuery[];
  /** Raw command names seen (inserts, getMores, index commands included), for debugging. */
  commands: AuditedCommand[];
}

export interface AuditedCommand {
  name: string;
  collection: string | null;
  /** The `_id` it names (a find's or an update's filter, an insert's document), when it names one. */
  id?: string;
  /** When it was sent and when its answer came (performance.now()), to tell sequence from overlap. */
  start: number;
  end?: number;
  /** With `AUDIT_ORIGINS=1`: the project's innermost frames that sent it, innermost first. */
  origin?: string;
}

const ownFrame = /\/(src|activities|workflows)\/[^:)]+:\d+/;
/** The first four frames of the project's own code on the stack (not its packages'), as `function file:line`. */
function originOf(stack: string | undefined): string {
  return (stack ?? '')
    .split('\n')
    .filter((line) => ownFrame.test(line) && !line.includes('node_modules'))
    .slice(0, 4)
    .map((line) => {
      const name = /^\s*at (?:async )?([^\s(]+) \(/.exec(line)?.[1] ?? '';
      return `${name} ${ownFrame.exec(line)![0].slice(1)}`.trim();
    })
    .join(' < ');
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** A value FerretDB compares as a literal (not an operator document). */
const isLiteral = (v: unknown): boolean =>
  typeof v === 'string' ||
  typeof v === 'number' ||
  (typeof v === 'object' && v !== null && (v as { _bsontype?: string })._bsontype === 'ObjectId');

export function classify(
  kind: CommandKind,
  collection: string,
  filter: unknown,
  limit: number | null,
  sort: unknown,
  opts: QueryAuditOptions = {},
): AuditedQuery {
  const q = { kind, collection, filter, limit, sort };
  const f = isPlainObject(filter) ? filter : {};
  const keys = Object.keys(f);
  if (keys.length === 1 && keys[0] === '_id') {
    const id = f._id;
    if (isLiteral(id)) return { ...q, bounded: true, reason: 'exact _id' };
    if (opts.idRanges && isPlainObject(id)) {
      const ops = Object.keys(id);
      const inList = id.$in;
      if (ops.length === 1 && Array.isArray(inList) && inList.length <= opts.idRanges.maxIn)
        return { ...q, bounded: true, reason: `_id $in of ${inList.length}` };
      if (
        ops.every((o) => ['$gt', '$gte', '$lt', '$lte'].includes(o)) &&
        limit !== null &&
        limit > 0 &&
        limit <= opts.idRanges.maxLimit
      )
        return { ...q, bounded: true, reason: `_id range, limit ${limit}` };
    }
  }
  const bound = opts.small?.[collection];
  if (bound !== undefined && limit !== null && limit > 0 && limit <= bound)
    return { ...q, bounded: true, reason: `limit ${limit} on small collection` };
  return {
    ...q,
    bounded: false,
    reason: keys.length ? `filter on ${keys.join(', ')} scans ${collection}` : `whole ${collection}`,
  };
}

type Cmd = Record<string, unknown>;

// Work every process does on a timer, whatever the audited callback: the provider-health store
// prunes old buckets once a minute (src/operators/health/store.ts), so an audit that spans a
// minute boundary would otherwise blame its delete on the request under test.
const isTimerWork = (q: AuditedQuery): boolean => q.kind === 'delete' && q.collection === 'provider_health';

/** The queries one command carries (an update or delete command carries one per statement). */
function queriesOf(cmd: Cmd, opts: QueryAuditOptions): AuditedQuery[] {
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : v == null ? null : Number(v));
  if (typeof cmd.find === 'string')
    return [classify('find', cmd.find, cmd.filter ?? {}, num(cmd.limit) || null, cmd.sort ?? null, opts)];
  if (typeof cmd.count === 'string')
    return [classify('count', cmd.count, cmd.query ?? {}, num(cmd.limit) || null, null, opts)];
  if (typeof cmd.distinct === 'string')
    return [classify('distinct', cmd.distinct, cmd.query ?? {}, null, null, opts)];
  if (typeof cmd.findAndModify === 'string')
    return [classify('findAndModify', cmd.findAndModify, cmd.query ?? {}, 1, cmd.sort ?? null, opts)];
  if (typeof cmd.aggregate === 'string') {
    const pipeline = Array.isArray(cmd.pipeline) ? (cmd.pipeline as Cmd[]) : [];
    // A leading $match is the only filter; a $limit right after it bounds the read.
    const match = pipeline[0]?.$match ?? {};
    const lim = pipeline.find((s) => s.$limit !== undefined)?.$limit;
    return [classify('aggregate', cmd.aggregate, match, num(lim), null, opts)];
  }
  if (typeof cmd.update === 'string' && Array.isArray(cmd.updates))
    return (cmd.updates as Cmd[]).map((u) =>
      classify('update', cmd.update as string, u.q ?? {}, u.multi ? null : 1, null, opts),
    );
  if (typeof cmd.delete === 'string' && Array.isArray(cmd.deletes))
    return (cmd.deletes as Cmd[]).map((d) =>
      classify('delete', cmd.delete as string, d.q ?? {}, d.limit === 1 ? 1 : null, null, opts),
    );
  return [];
}

/** The `_id` a command names, for a reader of the audit (the first one of a batch). */
function idOf(cmd: Cmd): string | undefined {
  const first = (v: unknown): Cmd | undefined => (Array.isArray(v) && isPlainObject(v[0]) ? v[0] : undefined);
  const filter =
    (isPlainObject(cmd.filter) ? cmd.filter : undefined) ??
    first(cmd.updates)?.q ??
    first(cmd.deletes)?.q ??
    (isPlainObject(cmd.query) ? cmd.query : undefined) ??
    first(cmd.documents);
  const id = isPlainObject(filter) ? filter._id : undefined;
  if (typeof id === 'string') return id;
  // An ObjectId, or the compound `_id` of a position document.
  return id == null ? undefined : JSON.stringify(id);
}

// One wrapper at a time per process: nested or concurrent audits share it and each records all.
type Recorder = ((db: string, cmd: Cmd) => ((answered: number) => void) | void) & { delayMs?: number };
type CommandFn = (this: unknown, ns: { db: string }, cmd: Cmd, ...rest: unknown[]) => unknown;
const recorders = new Set<Recorder>();
let original: CommandFn | null = null;

function install(): void {
  if (original) return;
  const proto = DriverConnection.prototype as { command: CommandFn };
  original = proto.command;
  const wrapped = original;
  proto.command = function (this: unknown, ns, cmd, ...rest) {
    const list = [...recorders];
    const done = list.map((r) => r(ns.db, cmd));
    const delay = Math.max(0, ...list.map((r, i) => (done[i] ? (r.delayMs ?? 0) : 0)));
    const answer =
      delay > 0
        ? new Promise((r) => setTimeout(r, delay)).then(() => wrapped.call(this, ns, cmd, ...rest))
        : wrapped.call(this, ns, cmd, ...rest);
    if (done.some(Boolean) && answer instanceof Promise) {
      const stamp = () => {
        const at = performance.now();
        for (const d of done) d?.(at);
      };
      answer.then(stamp, stamp);
    }
    return answer;
  };
}

function uninstall(): void {
  if (!original || recorders.size) return;
  (DriverConnection.prototype as { command: CommandFn }).command = original;
  original = null;
}

/** Runs `fn`, recording the commands it (and anything else on `conn`'s database meanwhile) issues. */
export async function auditQueries<T>(
  conn: Connection,
  fn: () => Promise<T>,
  opts: QueryAuditOptions = {},
): Promise<QueryAudit<T>> {
  const dbName = conn.db?.databaseName ?? conn.name;
  const queries: AuditedQuery[] = [];
  const commands: QueryAudit<T>['commands'] = [];
  const recorder: Recorder = (db, cmd) => {
    if (db !== dbName) return;
    const name = Object.keys(cmd)[0] ?? '?';
    const target = cmd[name];
    const id = idOf(cmd);
    const entry: AuditedCommand = {
      name,
      // A getMore names its cursor first and its collection in `collection`.
      collection:
        typeof target === 'string' ? target : typeof cmd.collection === 'string' ? cmd.collection : null,
      ...(id !== undefined ? { id } : {}),
      start: performance.now(),
      ...(process.env.AUDIT_ORIGINS === '1' ? { origin: originOf(new Error().stack) } : {}),
    };
    commands.push(entry);
    for (const q of queriesOf(cmd, opts)) if (!isTimerWork(q) && !opts.ignore?.(q)) queries.push(q);
    return (at) => {
      entry.end = at;
    };
  };
  if (opts.delayMs) recorder.delayMs = opts.delayMs;
  install();
  recorders.add(recorder);
  try {
    const result = await fn();
    return { result, queries, scans: queries.filter((q) => !q.bounded), commands };
  } finally {
    recorders.delete(recorder);
    uninstall();
  }
}

/** One line per scan, for an assertion message. */
export function describeScans(scans: AuditedQuery[]): string {
  return scans
    .map((s) => `${s.kind} ${s.collection} ${JSON.stringify(s.filter)} limit=${s.limit}: ${s.reason}`)
    .join('\n');
}
