import { Schema, type Connection, type Model } from 'mongoose';
import type { Mode } from '../domain/modes';
import type { Currency } from '../domain/money';
import type { AccountKind, LedgerEntry } from './types';
import { chainKey } from '../persistence/append-at-head';

// Storage of the journal. Every concurrency guarantee rests on the unique keys declared here:
// FerretDB has no multi-document transactions and its conditional updates are not atomic.
// Every hot read and write names one document by `_id` alone: FerretDB 1.24's SQLite backend pushes
// only an exact `{ _id }` filter down to SQLite (any other filter decodes the whole collection in
// Go). The `_id` of each document is therefore its identity: the account's key, the entry's chain
// position (`<accountId>:<seq>`), the transfer's sourceRef, the head hint's account id.

export interface AccountDoc {
  id: string;
  /** Identity for get-or-create: accountKeys in ./accounts.ts (main, sub, system by mode). */
  key: string;
  merchantId: string | null;
  currency: Currency;
  kind: AccountKind;
  name: string;
  /** System accounts: the mode whose money it holds. Absent: a shared one of before the split. */
  mode?: Mode | null;
  createdAt: Date;
}

export type EntryDoc = LedgerEntry;

/** An entry's `_id`: its position in its account's chain, unique by construction. */
export function entryKey(accountId: string, seq: number): string {
  return chainKey(accountId, seq);
}

/**
 * Where an account's chain was last seen to end: `seq` and `balanceAfter` copied from a real entry.
 * Best effort and possibly behind (never ahead: entries are never removed), so it is only where a
 * search for the head starts, never the head itself.
 */
export interface HeadHint {
  _id: string;
  seq: number;
  balanceAfter: number;
  updatedAt: Date;
}

export interface TransferDoc {
  id: string;
  sourceRef: string;
  fromAccountId: string;
  toAccountId: string;
  amount: number;
  currency: Currency;
  reason: string;
  transactionId: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
}

// `_id` is the account's key: get-or-create is an insert, and a lookup by key one `_id` read.
const accountSchema = new Schema<AccountDoc & { _id: string }>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true, unique: true },
    key: { type: String, required: true, unique: true },
    merchantId: { type: String, default: null },
    currency: { type: String, required: true },
    kind: { type: String, required: true },
    name: { type: String, required: true },
    mode: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'ledger_accounts' },
);
accountSchema.index({ merchantId: 1, createdAt: 1 });

// `_id` is entryKey(accountId, seq).
const entrySchema = new Schema<EntryDoc & { _id: string }>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true, unique: true },
    accountId: { type: String, required: true },
    seq: { type: Number, required: true },
    amount: { type: Number, required: true },
    balanceAfter: { type: Number, required: true },
    currency: { type: String, required: true },
    transferId: { type: String, required: true },
    sourceRef: { type: String, required: true },
    leg: { type: String, required: true },
    counterpartyAccountId: { type: String, required: true },
    reason: { type: String, required: true },
    transactionId: { type: String, default: null },
    metadata: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'ledger_entries' },
);
// One writer wins each position of an account's chain (the `_id` says it too); the loser moves on.
// Also what a statement (newest first) reads on MongoDB.
entrySchema.index({ accountId: 1, seq: 1 }, { unique: true });
// A movement's leg exists at most once, whatever the retries, replays or races.
entrySchema.index({ sourceRef: 1, leg: 1 }, { unique: true });

// `_id` is the sourceRef: recording an intent is an insert, a replay finds it by `_id`.
const transferSchema = new Schema<TransferDoc & { _id: string }>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true, unique: true },
    sourceRef: { type: String, required: true },
    fromAccountId: { type: String, required: true },
    toAccountId: { type: String, required: true },
    amount: { type: Number, required: true },
    currency: { type: String, required: true },
    reason: { type: String, required: true },
    transactionId: { type: String, default: null },
    metadata: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'ledger_transfers' },
);

const headSchema = new Schema<HeadHint>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true },
    balanceAfter: { type: Number, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'ledger_heads' },
);

/** An account's id -> its key (the account document's `_id`): getAccount() by two `_id` reads. */
export interface AccountIdDoc {
  _id: string;
  key: string;
}
const accountIdSchema = new Schema<AccountIdDoc>(
  { _id: { type: String, required: true }, key: { type: String, required: true } },
  { versionKey: false, collection: 'ledger_account_ids' },
);

export interface LedgerModels {
  accounts: Model<AccountDoc & { _id: string }>;
  accountIds: Model<AccountIdDoc>;
  entries: Model<EntryDoc & { _id: string }>;
  transfers: Model<TransferDoc & { _id: string }>;
  heads: Model<HeadHint>;
}

function bind<T>(conn: Connection, name: string, schema: Schema<T>): Model<T> {
  return (conn.models[name] as Model<T> | undefined) ?? conn.model<T>(name, schema);
}

export function ledgerModels(conn: Connection): LedgerModels {
  return {
    accounts: bind(conn, 'LedgerAccount', accountSchema),
    accountIds: bind(conn, 'LedgerAccountId', accountIdSchema),
    entries: bind(conn, 'LedgerEntry', entrySchema),
    transfers: bind(conn, 'LedgerTransfer', transferSchema),
    heads: bind(conn, 'LedgerHead', headSchema),
  };
}
