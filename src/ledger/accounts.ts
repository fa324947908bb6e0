import type { Connection } from 'mongoose';
import { newId } from '../domain/ids';
import type { Mode } from '../domain/modes';
import type { Currency } from '../domain/money';
import { ReadChains } from '../persistence/read-chains';
import { backfillOnce } from '../persistence/backfill-once';
import type { Chains } from './chain';
import { LedgerError } from './errors';
import type { AccountDoc, LedgerModels } from './models';
import { duplicateKey, insertRaw, perConnection } from './raw';
import type { Account, SystemAccountName } from './types';

// Accounts: get-or-create by a unique key (the `_id`), and the reads on request paths name `_id`s
// too: a merchant's accounts are a read chain (`ledger_account_index`), and an account's id maps to
// its key in `ledger_account_ids`. Both are written when an account is first resolved in a process
// (idempotent), and filled once from the accounts stored before them (init()).

const ACCOUNT_INDEX = 'ledger_account_index';
/** Most accounts listed for one merchant (main ones per currency and its sub-accounts). */
const MAX_ACCOUNTS_LISTED = 1_000;

type AccountSpec = Omit<AccountDoc, 'id' | 'createdAt'>;

// Account documents never change once created, so they can be remembered, by id and by key.
const knownAccounts = new WeakMap<Connection, Map<string, AccountDoc>>();
const knownKeys = new WeakMap<Connection, Map<string, AccountDoc>>();

/**
 * Every account's key (its `_id` in ledger_accounts): built here and nowhere else. System accounts
 * are the platform's own, one per mode, name and currency: test money and live money never meet.
 */
export const accountKeys = {
  main: (merchantId: string, currency: Currency) => `main:${merchantId}:${currency}`,
  sub: (merchantId: string, currency: Currency, name: string) => `sub:${merchantId}:${currency}:${name}`,
  system: (mode: Mode, name: SystemAccountName, currency: Currency) => `system:${mode}:${name}:${currency}`,
  /**
   * A system account shared by both modes, as stored before they were keyed by mode: nothing posts
   * to it any more, and the split (./mode-split.ts) moves what it holds to the accounts of each mode.
   */
  sharedSystem: (name: SystemAccountName, currency: Currency) => `system:${name}:${currency}`,
};

/** What an account key names; `mode` null: a shared system account of before the split. */
export type ParsedAccountKey =
  | { kind: 'main'; merchantId: string; currency: string }
  | { kind: 'sub'; merchantId: string; currency: string; name: string }
  | { kind: 'system'; mode: Mode | null; name: string; currency: string };

/** The parts of an account key (accountKeys), or null when it is not one. */
export function parseAccountKey(key: string): ParsedAccountKey | null {
  const parts = key.split(':');
  const [kind] = parts;
  if (kind === 'main' && parts.length === 3) return { kind, merchantId: parts[1]!, currency: parts[2]! };
  if (kind === 'sub' && parts.length >= 4)
    return { kind, merchantId: parts[1]!, currency: parts[2]!, name: parts.slice(3).join(':') };
  if (kind === 'system' && parts.length === 3)
    return { kind, mode: null, name: parts[1]!, currency: parts[2]! };
  if (kind === 'system' && parts.length === 4 && (parts[1] === 'test' || parts[1] === 'live'))
    return { kind, mode: parts[1], name: parts[2]!, currency: parts[3]! };
  return null;
}

export const mainSpec = (merchantId: string, currency: Currency): AccountSpec => ({
  key: accountKeys.main(merchantId, currency),
  merchantId,
  currency,
  kind: 'main',
  name: 'main',
});

/** `name` is the bare name (`payout-holds`…): rules about a system account go by it, in both modes. */
export const systemSpec = (mode: Mode, name: SystemAccountName, currency: Currency): AccountSpec => ({
  key: accountKeys.system(mode, name, currency),
  merchantId: null,
  currency,
  kind: 'system',
  name,
  mode,
});

export function subSpec(merchantId: string, currency: Currency, name: string): AccountSpec {
  const trimmed = name.trim();
  if (!trimmed || trimmed === 'main') throw new LedgerError(`invalid sub-account name: "${name}"`);
  return {
    key: accountKeys.sub(merchantId, currency, trimmed),
    merchantId,
    currency,
    kind: 'sub',
    name: trimmed,
  };
}

export class Accounts {
  private readonly accountDocs: Map<string, AccountDoc>;
  private readonly accountKeys: Map<string, AccountDoc>;
  private readonly accountIndex: ReadChains<AccountDoc>;
  /** Per merchant, the entries of its account list this process read, positions 1 to `upTo`. */
  private readonly listedEntries = new Map<string, { upTo: number; docs: AccountDoc[] }>();

  constructor(
    private readonly m: LedgerModels,
    private readonly conn: Connection,
    private readonly chains: Pick<Chains, 'head'>,
  ) {
    this.accountIndex = new ReadChains<AccountDoc>(conn, ACCOUNT_INDEX);
    this.accountDocs = perConnection(knownAccounts, conn);
    this.accountKeys = perConnection(knownKeys, conn);
  }

  async init(): Promise<void> {
    await Promise.all([this.m.accounts.init(), this.m.accountIds.init(), this.accountIndex.init()]);
  }

  /** Once per database (a marker says so): indexes the accounts stored before the index existed. */
  async backfillAccountIndex(): Promise<void> {
    await backfillOnce(this.conn.db!, ACCOUNT_INDEX, async () => {
      const cursor = this.m.accounts
        .find({}, { _id: 0 })
        .sort({ createdAt: 1 })
        .lean<AccountDoc[]>()
        .cursor();
      for await (const doc of cursor) await this.indexAccount(doc);
    });
  }

  /** Its id -> key, and its place in its merchant's list: both fixed `_id`s, so a retry is harmless. */
  private async indexAccount(doc: AccountDoc): Promise<void> {
    try {
      await insertRaw(this.m.accountIds, { _id: doc.id, key: doc.key });
    } catch (err) {
      if (!duplicateKey(err)) throw err;
    }
    if (doc.merchantId)
      await this.accountIndex.append(`${doc.merchantId}`, doc.id, new Date(doc.createdAt), doc);
  }

  async accountDoc(accountId: string): Promise<AccountDoc | null> {
    const cached = this.accountDocs.get(accountId);
    if (cached) return cached;
    // Id -> key, then the account by key: two `_id` reads, and remembered once found. An id not
    // mapped is unknown (init() mapped the accounts stored before the map).
    const mapped = await this.m.accountIds.findOne({ _id: accountId }).lean<{ key: string }>().exec();
    if (!mapped) return null;
    const doc = await this.m.accounts.findOne({ _id: mapped.key }, { _id: 0 }).lean<AccountDoc>().exec();
    if (doc) this.accountDocs.set(accountId, doc);
    return doc;
  }

  /**
   * The merchant's accounts, main ones first, then by creation. Accounts are rarely added: the
   * list's head is probed from this process's memory of it, and only the entries above those it
   * read before are read (entries never change; a lost one the sweep lists again goes at the head).
   */
  async listAccounts(merchantId: string): Promise<Account[]> {
    const head = Math.min(await this.accountIndex.headFromMemory(merchantId), MAX_ACCOUNTS_LISTED);
    const known = this.listedEntries.get(merchantId);
    const from = known && known.upTo <= head ? known.upTo : 0;
    const above =
      from < head ? (await this.accountIndex.range(merchantId, from + 1, head)).map((e) => e.doc) : [];
    const docs = [...(from > 0 ? known!.docs : []), ...above];
    this.listedEntries.delete(merchantId);
    if (this.listedEntries.size >= 10_000) this.listedEntries.delete(this.listedEntries.keys().next().value!);
    this.listedEntries.set(merchantId, { upTo: head, docs });
    const accounts = await Promise.all(docs.map((d) => this.withBalance(d)));
    const rank = (a: Account) => (a.kind === 'main' ? 0 : 1);
    return accounts.sort(
      (a, b) =>
        rank(a) - rank(b) ||
        a.currency.localeCompare(b.currency) ||
        a.createdAt.getTime() - b.createdAt.getTime(),
    );
  }

  /** The account stored under `key`, or null: never creates one (the mode split reads old accounts). */
  async findByKey(key: string): Promise<AccountDoc | null> {
    const known = this.accountKeys.get(key);
    if (known) return known;
    const doc = await this.m.accounts.findOne({ _id: key }, { _id: 0 }).lean<AccountDoc>().exec();
    if (!doc) return null;
    await this.indexAccount(doc);
    this.accountKeys.set(key, doc);
    this.accountDocs.set(doc.id, doc);
    return doc;
  }

  /** The account stored under `spec.key` (its `_id`), created if absent; one winner under concurrency. */
  async accountByKey(spec: AccountSpec): Promise<AccountDoc> {
    const known = this.accountKeys.get(spec.key);
    if (known) return known;
    const byKey = () => this.m.accounts.findOne({ _id: spec.key }, { _id: 0 }).lean<AccountDoc>().exec();
    let doc = await byKey();
    if (!doc) {
      const candidate: AccountDoc = { ...spec, id: newId('acc'), createdAt: new Date() };
      try {
        await insertRaw(this.m.accounts, { _id: spec.key, ...candidate });
        doc = candidate;
      } catch (err) {
        if (!duplicateKey(err)) throw err;
        doc = await byKey();
        if (!doc) throw err;
      }
    }
    // Listed and findable by id before any caller learns of it (once per process and account).
    await this.indexAccount(doc);
    this.accountKeys.set(spec.key, doc);
    this.accountDocs.set(doc.id, doc);
    return doc;
  }

  private publicAccount(doc: AccountDoc): Omit<Account, 'balance'> {
    return {
      id: doc.id,
      merchantId: doc.merchantId ?? null,
      currency: doc.currency,
      kind: doc.kind,
      name: doc.name,
      createdAt: new Date(doc.createdAt),
    };
  }

  async withBalance(doc: AccountDoc): Promise<Account> {
    const head = await this.chains.head(doc.id);
    return { ...this.publicAccount(doc), balance: head?.balanceAfter ?? 0 };
  }
}
