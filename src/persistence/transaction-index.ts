import { createHash } from 'node:crypto';
import type { Connection, mongo } from 'mongoose';
import { chainKey, duplicateKey, splitChainKey } from './append-at-head';
import {
  ReadChains,
  type AppendOptions,
  type ChainEntry,
  type HoleRepairResult,
  type WalkResult,
} from './read-chains';
import type { Metadata } from '../domain/metadata';

// The read model of GET /v1/transactions: one read chain (src/persistence/read-chains.ts) per list a
// search may start from, so a page costs the same `_id` reads however many transactions are stored.
// Each payin, payout and refund joins its merchant's list of everything and the lists of its type,
// provider and each metadata pair; a query walks the most selective of those and checks the
// rest on the records. Joining is idempotent (one place per member and list), so the stores join
// before they insert: a retry joins nothing twice, and a member whose insert lost (a duplicate
// reference) is skipped by readers, as its record does not exist.

export type SearchableKind = 'payin' | 'payout' | 'refund';

export interface IndexMember {
  kind: SearchableKind;
  id: string;
  /**
   * The merchant's reference and the last four digits of the customer's number, for the
   * dashboard's search (src/dashboard/data/search.ts) to match on the entry without reading the
   * record; absent on entries appended before it. The page shows those four digits anyway.
   */
  ref?: string;
  p4?: string;
}

/** What places a transaction or refund in the lists. */
export interface Indexable extends IndexMember {
  /** The scope of the merchant's mode (test and live never share a list). */
  merchantId: string;
  createdAt: Date;
  country: string;
  provider: string | null;
  metadata?: Metadata | undefined;
  /** What the dashboard's search matches on (IndexMember): a transaction's, or a refund's. */
  reference?: string;
  externalReference?: string;
  customer?: { phoneNumber: string };
  customerMsisdn?: string;
}

/** A list a search walks: by one criterion, or everything of the merchant. */
export type IndexList =
  | { by: 'all' }
  | { by: 'type'; value: SearchableKind }
  | { by: 'country'; value: string }
  | { by: 'provider'; value: string }
  | { by: 'metadata'; key: string; value: string };

// Metadata values run to 200 characters: their lists are named by a digest, not the text.
const pairDigest = (key: string, value: string) =>
  createHash('sha256')
    .update(JSON.stringify([key, value]))
    .digest('base64url')
    .slice(0, 27);

export function streamOf(merchantId: string, list: IndexList): string {
  switch (list.by) {
    case 'all':
      return `${merchantId}|all`;
    case 'metadata':
      return `${merchantId}|metadata:${pairDigest(list.key, list.value)}`;
    default:
      return `${merchantId}|${list.by}:${list.value}`;
  }
}

/**
 * The lists a member joins. Not its country's any more: a merchant works in one or two countries,
 * so that list is nearly its list of everything and did not earn its three writes per transaction
 * (docs/decisions/persistence/no-country-list.md); lists written before stay, unread.
 */
export function listsOf(x: Omit<Indexable, 'id' | 'createdAt'>): IndexList[] {
  return [
    { by: 'all' },
    { by: 'type', value: x.kind },
    ...(x.provider ? [{ by: 'provider' as const, value: x.provider }] : []),
    ...Object.entries(x.metadata ?? {}).map(([key, value]) => ({ by: 'metadata' as const, key, value })),
  ];
}

/**
 * Where a member's first joining put it: one document per member (`_id` its key, `kind:id`), its
 * places as the chain entries' `_id`s (`<stream>:<seq>`), instead of one position document per list
 * (three writes for a payin, a payout or a refund, one now). Written by a `fresh` add only, once;
 * a list joined later (a session's provider), a retry's and the sweep's re-listing keep their
 * position documents, which readers take when the member's document lacks the list.
 */
interface MemberPlaces {
  _id: string;
  at: string[];
}
const MEMBERS_COLLECTION = 'transaction_index_members';

export class TransactionIndex {
  constructor(
    private readonly chains: ReadChains<IndexMember>,
    private readonly members?: mongo.Collection<MemberPlaces>,
  ) {}

  static on(conn: Connection): TransactionIndex {
    return new TransactionIndex(
      new ReadChains<IndexMember>(conn, 'transaction_index'),
      conn.collection<MemberPlaces>(MEMBERS_COLLECTION),
    );
  }

  async init(): Promise<void> {
    await this.chains.init();
  }

  /** The places a member's fresh add took (its entries' `_id`s); null without that document. */
  private async placesOf(key: string): Promise<string[] | null> {
    if (!this.members) return null;
    return (await this.members.findOne({ _id: key }))?.at ?? null;
  }

  /**
   * Joins every list of the member (or only `lists`): idempotent, in parallel. Listed under its
   * `createdAt`: a retry carrying another one than the attempt that joined first (whose record was
   * never stored) joins again under a key naming it, and readers keep the entry whose time is the
   * stored record's (listed()).
   */
  async add(x: Indexable, lists: IndexList[] = listsOf(x), opts: AppendOptions = {}): Promise<void> {
    const phone = x.customer?.phoneNumber ?? x.customerMsisdn;
    const ref = x.kind === 'refund' ? x.externalReference : x.reference;
    const member: IndexMember = {
      kind: x.kind,
      id: x.id,
      ...(ref ? { ref } : {}),
      ...(phone && phone.length > 8 ? { p4: phone.slice(-4) } : {}),
    };
    const key = `${x.kind}:${x.id}`;
    const at = x.createdAt;
    if (opts.fresh && this.members) {
      // No earlier attempt listed it: its places go in one document, after the entries (a crash
      // before it leaves entries the (stream, member) index keeps from being appended twice).
      const places = await Promise.all(
        lists.map(async (l) => {
          const stream = streamOf(x.merchantId, l);
          const seq = await this.chains.append(stream, key, at, member, { fresh: true, position: false });
          return chainKey(stream, seq);
        }),
      );
      try {
        await this.members.insertOne({ _id: key, at: places });
      } catch (err) {
        if (!duplicateKey(err)) throw err;
        // Listed before under this key (never on the usual path): position documents, as a retry's.
        await Promise.all(
          places.map((p) => {
            const { chain, seq } = splitChainKey(p);
            return this.chains.keepPosition(chain, key, seq);
          }),
        );
      }
      return;
    }
    // One read of the member's places serves every list it holds.
    const places = opts.fresh ? null : await this.placesOf(key);
    await Promise.all(
      lists.map(async (l) => {
        const stream = streamOf(x.merchantId, l);
        if (opts.fresh) return this.chains.append(stream, key, at, member, opts);
        const place = places?.map(splitChainKey).find((p) => p.chain === stream);
        const seq = place ? place.seq : await this.chains.position(stream, key);
        if (seq === null) return this.chains.append(stream, key, at, member, { fresh: true });
        const there = await this.chains.at(stream, seq);
        // Lost (a hole): the recovery sweep lists it again from its record.
        if (!there || there.hole || new Date(there.at).getTime() === new Date(at).getTime()) return seq;
        return this.chains.append(stream, `${key}@${new Date(at).getTime()}`, at, member);
      }),
    );
  }

  /** Newest first below `before`, stopping where every entry left was created before `stopBelow`. */
  async walk(
    merchantId: string,
    list: IndexList,
    opts: {
      before?: number;
      limit: number;
      budget: number;
      stopBelow?: Date;
      /** Keeps only the entries that pass (the dashboard's search matches on the entry). */
      keep?: (e: ChainEntry<IndexMember>) => boolean;
    },
  ): Promise<WalkResult<IndexMember>> {
    return this.chains.walkDown(streamOf(merchantId, list), {
      ...(opts.before !== undefined ? { before: opts.before } : {}),
      ...(opts.keep ? { keep: opts.keep } : {}),
      limit: opts.limit,
      budget: opts.budget,
      ...(opts.stopBelow ? { stopBelow: opts.stopBelow } : {}),
    });
  }

  /**
   * Closes the holes readers found (the recovery sweep). `createdAtOf` reads the member's record:
   * none (its insert lost, or never made) leaves the hole marked, nothing listed.
   */
  async repairHoles(
    createdAtOf: (m: IndexMember) => Promise<Date | null>,
    limit?: number,
  ): Promise<HoleRepairResult> {
    return this.chains.repairHoles(
      async (stream, key) => {
        const [, kind, id, suffix] = /^(payin|payout|refund):([^@]+)(?:@(\d+))?$/.exec(key) ?? [];
        if (!kind || !id) return null;
        const doc: IndexMember = { kind: kind as SearchableKind, id };
        const createdAt = await createdAtOf(doc);
        if (!createdAt) return null;
        const at = createdAt.getTime();
        // Only the entry under the record's time is listed: a stale one stays a hole.
        if (suffix !== undefined ? Number(suffix) !== at : await this.chains.position(stream, `${key}@${at}`))
          return null;
        return { at: createdAt, doc };
      },
      limit,
      // A member whose places document names the position: a scan, off the usual path (the sweep).
      async (stream, seq) =>
        (await this.members?.findOne({ at: chainKey(stream, seq) }, { projection: { _id: 1 } }))?._id ?? null,
    );
  }
}

/** Whether an entry lists its record: it carries the record's own `createdAt` (see add()). */
export function listed(e: ChainEntry<IndexMember>, createdAt: Date): boolean {
  return new Date(e.at).getTime() === new Date(createdAt).getTime();
}
