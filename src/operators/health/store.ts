import type { Connection } from 'mongoose';
import type { Mode } from '../../domain/modes';
import type { ProviderName } from '../../domain/operators';
import type { HealthOperation, HealthOverride, HealthState, MeasuredOutcome, MinuteCounts } from './state';
import type { ConnectorName } from '../connectors/connector';
import type { RouteMeasure, RouteMinute } from '../routes/ranking';

// Measured outcomes live in memory per process, in one-minute buckets, and are written every few
// seconds to `provider_health` as documents only this process writes (`_id` starts with its process
// id): FerretDB loses concurrent read-modify-writes of one document, so no two writers share one.
// Readers sum every process's buckets over the window. The collection stays small (an hour of
// buckets per process, pruned), so the window read is a bounded scan. Overrides are documents of
// their own, written by ops only.

const COLLECTION = 'provider_health';
const KEEP_MINUTES = 60;

interface BucketDoc {
  _id: string;
  kind: 'bucket';
  process: string;
  minute: number;
  mode: Mode;
  provider: ProviderName;
  operation: HealthOperation;
  ok: number;
  refused: number;
  unavailable: number;
}

interface OverrideDoc {
  _id: string;
  kind: 'override';
  mode: Mode;
  provider: ProviderName;
  operation: HealthOperation;
  state: HealthState;
  until: string;
  since: string;
  reason: string;
}

/** One minute of one route's measures (issue 43 §2), written like the buckets: one writer each. */
interface RouteBucketDoc extends RouteMinute {
  _id: string;
  kind: 'route-bucket';
  process: string;
  provider: ProviderName;
  operation: HealthOperation;
  route: ConnectorName;
}

type HealthDoc = BucketDoc | OverrideDoc | RouteBucketDoc;

export interface HealthSnapshot {
  minutes: Map<string, MinuteCounts[]>;
  overrides: Map<string, HealthOverride>;
}

export const healthKey = (mode: Mode, provider: ProviderName, operation: HealthOperation): string =>
  `${mode}:${provider}:${operation}`;
/** A live route's key: its provider × operation, and the connector. */
export const routeKey = (provider: ProviderName, operation: HealthOperation, route: ConnectorName): string =>
  `${healthKey('live', provider, operation)}@${route}`;
const overrideId = (mode: Mode, provider: ProviderName, operation: HealthOperation) =>
  `override:${healthKey(mode, provider, operation)}`;

export class HealthStore {
  private readonly buckets = new Map<string, BucketDoc | RouteBucketDoc>();
  private readonly dirty = new Set<string>();
  private lastPruneMinute = 0;

  constructor(
    private readonly conn: Connection,
    readonly processId: string,
    private readonly now: () => number = Date.now,
  ) {}

  private get collection() {
    return this.conn.collection<HealthDoc>(COLLECTION);
  }

  record(mode: Mode, provider: ProviderName, operation: HealthOperation, outcome: MeasuredOutcome): void {
    const minute = Math.floor(this.now() / 60_000);
    const id = `${this.processId}:${minute}:${healthKey(mode, provider, operation)}`;
    let bucket = this.buckets.get(id) as BucketDoc | undefined;
    if (!bucket) {
      bucket = {
        _id: id,
        kind: 'bucket',
        process: this.processId,
        minute,
        mode,
        provider,
        operation,
        ok: 0,
        refused: 0,
        unavailable: 0,
      };
      this.buckets.set(id, bucket);
    }
    bucket[outcome] += 1;
    this.dirty.add(id);
  }

  /** Adds one call's measures to a live route's bucket of this minute (written by flush). */
  recordRoute(
    provider: ProviderName,
    operation: HealthOperation,
    route: ConnectorName,
    m: RouteMeasure,
  ): void {
    const minute = Math.floor(this.now() / 60_000);
    const id = `${this.processId}:${minute}:${routeKey(provider, operation, route)}`;
    let bucket = this.buckets.get(id) as RouteBucketDoc | undefined;
    if (!bucket) {
      bucket = {
        _id: id,
        kind: 'route-bucket',
        process: this.processId,
        minute,
        provider,
        operation,
        route,
        success: 0,
        failure: 0,
        customer: 0,
        technical: 0,
        answers: 0,
        answerMs: 0,
      };
      this.buckets.set(id, bucket);
    }
    for (const k of Object.keys(m) as Array<keyof RouteMeasure>) bucket[k] += m[k];
    this.dirty.add(id);
  }

  /** Every process's route buckets since `fromMinute`, keyed by routeKey. */
  async readRoutes(fromMinute: number): Promise<Map<string, RouteMinute[]>> {
    const docs = await this.collection
      .find({ kind: 'route-bucket', minute: { $gte: fromMinute } })
      .limit(100_000)
      .toArray();
    const minutes = new Map<string, RouteMinute[]>();
    for (const doc of docs) {
      if (doc.kind !== 'route-bucket') continue;
      const { minute, success, failure, customer, technical, answers, answerMs } = doc;
      const key = routeKey(doc.provider, doc.operation, doc.route);
      minutes.set(key, [
        ...(minutes.get(key) ?? []),
        { minute, success, failure, customer, technical, answers, answerMs },
      ]);
    }
    return minutes;
  }

  /** Writes this process's changed buckets (whole documents, one writer each) and prunes old ones. */
  async flush(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    try {
      for (const id of ids) {
        const doc = this.buckets.get(id);
        if (doc) await this.collection.replaceOne({ _id: id }, { ...doc }, { upsert: true });
      }
    } catch (err) {
      for (const id of ids) this.dirty.add(id);
      throw err;
    }
    const minute = Math.floor(this.now() / 60_000);
    for (const [id, doc] of this.buckets) if (doc.minute < minute - KEEP_MINUTES) this.buckets.delete(id);
    if (minute !== this.lastPruneMinute) {
      this.lastPruneMinute = minute;
      // Any process may delete any old bucket: a deleted document is never written again.
      await this.collection.deleteMany({
        kind: { $in: ['bucket', 'route-bucket'] },
        minute: { $lt: minute - KEEP_MINUTES },
      });
    }
  }

  /** Every process's buckets since `fromMinute`, and every override, keyed by healthKey. */
  async read(fromMinute: number): Promise<HealthSnapshot> {
    const docs = await this.collection
      .find({ $or: [{ kind: 'override' }, { kind: 'bucket', minute: { $gte: fromMinute } }] })
      .limit(100_000)
      .toArray();
    const minutes = new Map<string, MinuteCounts[]>();
    const overrides = new Map<string, HealthOverride>();
    for (const doc of docs) {
      if (doc.kind === 'route-bucket') continue;
      const key = healthKey(doc.mode, doc.provider, doc.operation);
      if (doc.kind === 'override') {
        overrides.set(key, { state: doc.state, until: doc.until, since: doc.since, reason: doc.reason });
      } else {
        const list = minutes.get(key) ?? [];
        list.push({ minute: doc.minute, ok: doc.ok, refused: doc.refused, unavailable: doc.unavailable });
        minutes.set(key, list);
      }
    }
    return { minutes, overrides };
  }

  async setOverride(
    mode: Mode,
    provider: ProviderName,
    operation: HealthOperation,
    override: HealthOverride,
  ): Promise<void> {
    const _id = overrideId(mode, provider, operation);
    await this.conn
      .collection<OverrideDoc>(COLLECTION)
      .replaceOne({ _id }, { kind: 'override', mode, provider, operation, ...override }, { upsert: true });
  }

  async clearOverride(mode: Mode, provider: ProviderName, operation: HealthOperation): Promise<boolean> {
    const res = await this.collection.deleteOne({ _id: overrideId(mode, provider, operation) });
    return res.deletedCount > 0;
  }
}
