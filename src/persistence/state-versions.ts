import type { Connection, Model } from 'mongoose';
import { retryOnWriteConflict } from './write-conflict';

// Monotonic state writes on FerretDB, where every update is read-then-replace of the whole document:
// an activity attempt that timed out may land its `$set` after a later write and move the record
// backwards. Instead, the record's single writer (its workflow) numbers its writes, and write `seq`
// inserts an immutable version `{ _id: '<recordId>:<seq>', state }` holding the record's whole
// mutable state after it. The unique `_id` makes each seq apply once; a late attempt's insert is a
// duplicate, or finds a newer version, and writes nothing. The record's own document keeps a copy
// (`stateSeq` and the fields), a hint that may lag (a late hint write, a crash before it) but never
// leads: readers take the document, then probe `<id>:<stateSeq+1>`, `+2`… until one is missing.
// Normally that is ONE extra `_id` lookup per read (the probe that finds nothing), a second one while
// a write is between its version and its hint. Only `_id` filters: FerretDB pushes nothing else down.
// A document without `stateSeq` is version 0: records written before versions existed read as stored.

/** One assignment of the mutable state: a field path (`status`, `payout.operatorReference`) and its value. */
export interface StateEntry {
  path: string;
  value: unknown;
}

export interface StateVersionDoc {
  /** `<recordId>:<seq>` */
  _id: string;
  recordId: string;
  seq: number;
  /** Every path a versioned write ever set on the record, with its value after this write. */
  state: StateEntry[];
  createdAt: Date;
}

/** A writer that skips this many seqs is broken (gaps are filled with copies, one insert each). */
const MAX_GAP = 1000;

const versionId = (recordId: string, seq: number) => `${recordId}:${seq}`;
const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/**
 * The state after `changes`: a changed path replaces itself and anything under it; a path under an
 * entry already held (`payout.x` under `payout`) is set inside that entry's value, so no two entries
 * overlap (a `$set` of both would be refused as a conflict).
 */
export function withChanges(state: StateEntry[], changes: Record<string, unknown>): StateEntry[] {
  let next = state.map((e) => ({ ...e }));
  for (const [path, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const holder = next.find((e) => path.startsWith(`${e.path}.`));
    if (holder && holder.value !== null && typeof holder.value === 'object') {
      const copy = structuredClone(holder.value) as Record<string, unknown>;
      setPath(copy, path.slice(holder.path.length + 1), value);
      holder.value = copy;
      continue;
    }
    next = next.filter((e) => e.path !== path && !e.path.startsWith(`${path}.`));
    next.push({ path, value });
  }
  return next;
}

/** The document with the state's paths set (both are fresh reads: changed in place, shared as is). */
export function overlay<T extends object>(doc: T, state: StateEntry[]): T {
  for (const e of state) setPath(doc as Record<string, unknown>, e.path, e.value);
  return doc;
}

/** The `$set` that copies a version onto the record's document (its hint). */
export function hintUpdate(seq: number, state: StateEntry[]): Record<string, unknown> {
  return { stateSeq: seq, ...Object.fromEntries(state.map((e) => [e.path, e.value])) };
}

/**
 * The versions this process inserted itself, by collection and `_id`, bounded: a version is immutable
 * once inserted, so the single writer's next write takes its base state from here instead of
 * reading it back (one `_id` read per state write). Only inserts that succeeded are kept.
 */
const inserted = new Map<string, StateEntry[]>();
const INSERTED_KEPT = 20_000;

export class StateVersions {
  constructor(
    private readonly conn: Connection,
    private readonly collectionName: string,
  ) {}

  private get versions() {
    return this.conn.collection<StateVersionDoc>(this.collectionName);
  }

  /** The last of the contiguous versions from `fromSeq` on, or null when `fromSeq` itself is missing. */
  async newest(recordId: string, fromSeq: number): Promise<StateVersionDoc | null> {
    let found: StateVersionDoc | null = null;
    for (let seq = fromSeq; ; seq++) {
      const v = await this.versions.findOne({ _id: versionId(recordId, seq) });
      if (!v) return found;
      found = v;
    }
  }

  /** The record's last applied write: its hint, or a newer version. */
  async latestSeq(recordId: string, hint: number): Promise<number> {
    return (await this.newest(recordId, Math.max(hint, 1)))?.seq ?? hint;
  }

  /** A stored document (with its hint `stateSeq`) as the record's latest state, without `stateSeq`. */
  async read<T extends object>(recordId: string, doc: (T & { stateSeq?: number }) | null): Promise<T | null> {
    if (!doc) return null;
    const { stateSeq, ...rest } = doc;
    const newer = await this.newest(recordId, (stateSeq ?? 0) + 1);
    return newer ? overlay(rest as T, newer.state) : (rest as T);
  }

  /**
   * As read(), with the seq of the state read: versions are immutable, so that state is exactly the
   * one after write `seq` (a writer deciding from it takes `seq + 1`, and loses to any other).
   */
  async readWithSeq<T extends object>(
    recordId: string,
    doc: (T & { stateSeq?: number }) | null,
  ): Promise<{ value: T; seq: number } | null> {
    if (!doc) return null;
    const { stateSeq, ...rest } = doc;
    const newer = await this.newest(recordId, (stateSeq ?? 0) + 1);
    return newer
      ? { value: overlay(rest as T, newer.state), seq: newer.seq }
      : { value: rest as T, seq: stateSeq ?? 0 };
  }

  /**
   * Applies write `seq` on top of the latest state; `hint` is the document's `stateSeq` as just read
   * (0 when absent) and `writeHint` copies a version onto the document. Answers whether this call
   * applied it: false for a retry of an applied seq or a late attempt overtaken by a newer seq.
   */
  async apply(
    recordId: string,
    hint: number,
    seq: number,
    changes: Record<string, unknown>,
    writeHint: (set: Record<string, unknown>) => Promise<unknown>,
  ): Promise<boolean> {
    if (!Number.isSafeInteger(seq) || seq < 1)
      throw new RangeError(`state seq must be a positive integer: ${seq}`);
    // From the hint's own version: its state is the base of the next one.
    const newest = await this.newest(recordId, Math.max(hint, 1));
    const latest = newest?.seq ?? hint;
    if (seq < latest) return false;
    if (seq === latest) {
      // A retry: its first attempt may have stopped between the version and the hint.
      if (newest && hint < seq) await retryOnWriteConflict(() => writeHint(hintUpdate(seq, newest.state)));
      return false;
    }
    if (seq - latest > MAX_GAP)
      throw new RangeError(`state seq ${seq} skips more than ${MAX_GAP} after ${latest}`);
    const base = newest?.state ?? [];
    // The probe stops at the first missing seq, so skipped ones (a writer that began numbering after
    // unversioned writes) hold the previous state. Should one exist already, start over from it.
    for (let gap = latest + 1; gap < seq; gap++)
      if (!(await this.insert(recordId, gap, base)))
        return this.apply(recordId, hint, seq, changes, writeHint);
    const state = withChanges(base, changes);
    if (!(await this.insert(recordId, seq, state))) return false;
    await retryOnWriteConflict(() => writeHint(hintUpdate(seq, state)));
    return true;
  }

  /**
   * apply() for the record's single writer, which knows its write `seq` and so needs no look at the
   * document's hint: the base state is version `seq - 1` itself (immutable, exactly the state after
   * the previous write), read by `_id`, and the insert of `<id>:<seq>` still decides once whether
   * this write applies. One read, one insert, one update, where apply() reads the hint and probes
   * two versions first. Anything unusual (a retry that finds its version stored, a gap in the seqs,
   * a first write over a record written before versions) falls back to apply() from `readHint()`.
   */
  async applyNext(
    recordId: string,
    seq: number,
    changes: Record<string, unknown>,
    writeHint: (set: Record<string, unknown>) => Promise<unknown>,
    readHint: () => Promise<number>,
  ): Promise<boolean> {
    if (!Number.isSafeInteger(seq) || seq < 1)
      throw new RangeError(`state seq must be a positive integer: ${seq}`);
    const slow = async () => this.apply(recordId, await readHint(), seq, changes, writeHint);
    const remembered = seq === 1 ? undefined : inserted.get(this.memoryKey(recordId, seq - 1));
    const previous =
      seq === 1 || remembered ? null : await this.versions.findOne({ _id: versionId(recordId, seq - 1) });
    if (seq > 1 && !remembered && !previous) return slow();
    const state = withChanges(remembered ?? previous?.state ?? [], changes);
    if (!(await this.insert(recordId, seq, state))) return slow();
    await retryOnWriteConflict(() => writeHint(hintUpdate(seq, state)));
    return true;
  }

  /**
   * applyNext() onto a record kept as a document of `model` (its `_id` the record's id, its hint in
   * `stateSeq`): the copy is a `$set` on it, the fallback reads its `stateSeq`. `what` names the
   * record in the error for a missing document.
   */
  async applyNextOnDocument<D>(
    model: Model<D>,
    what: string,
    recordId: string,
    seq: number,
    changes: Record<string, unknown>,
  ): Promise<boolean> {
    const missing = () => new Error(`${what} ${recordId} not found`);
    return this.applyNext(
      recordId,
      seq,
      changes,
      async (set) => {
        const { matchedCount } = await model.updateOne({ _id: recordId } as never, { $set: set }).exec();
        if (matchedCount === 0) throw missing();
      },
      async () => {
        const doc = await model
          .findOne({ _id: recordId }, { stateSeq: 1 })
          .lean<{ stateSeq?: number }>()
          .exec();
        if (!doc) throw missing();
        return doc.stateSeq ?? 0;
      },
    );
  }

  /** The state after write `seq` when this process inserted that version itself (no read), else undefined. */
  inserted(recordId: string, seq: number): StateEntry[] | undefined {
    return inserted.get(this.memoryKey(recordId, seq));
  }

  private memoryKey(recordId: string, seq: number): string {
    // By database too: one process may hold connections to several (tests do).
    return `${this.conn.name}|${this.collectionName}|${versionId(recordId, seq)}`;
  }

  /** Removes a record's versions (before its document: a record re-created under its id starts clean). */
  async remove(recordId: string): Promise<void> {
    for (let seq = 1; ; seq++) {
      inserted.delete(this.memoryKey(recordId, seq));
      const { deletedCount } = await this.versions.deleteOne({ _id: versionId(recordId, seq) });
      if (!deletedCount) return;
    }
  }

  private async insert(recordId: string, seq: number, state: StateEntry[]): Promise<boolean> {
    try {
      await retryOnWriteConflict(() =>
        this.versions.insertOne({
          _id: versionId(recordId, seq),
          recordId,
          seq,
          state,
          createdAt: new Date(),
        }),
      );
      inserted.set(this.memoryKey(recordId, seq), state);
      if (inserted.size > INSERTED_KEPT) inserted.delete(inserted.keys().next().value!);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }
}
