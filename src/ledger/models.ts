import { Schema, type Connection, type Model } from 'mongoose';
import type { Currency } from '../domain/money';
import type { AccountKind, LedgerEntry } from './types';

// Storage of the journal. Every concurrency guarantee rests on the unique indexes declared here:
// FerretDB has no multi-document transactions and its conditional updates are not atomic.

export interface AccountDoc {
  id: string;
  /** Identity for get-or-create: main:<merchant>:<currency>, system:<name>:<currency>, sub:<merchant>:<currency>:<name>. */
  key: string;
  merchantId: string | null;
  currency: Currency;
  kind: AccountKind;
  name: string;
  createdAt: Date;
}

export type EntryDoc = LedgerEntry;

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
  /** A hint for operators; the legs are the truth (a transfer with both legs is complete). */
  status: 'pending' | 'completed';
  createdAt: Date;
}

const accountSchema = new Schema<AccountDoc>(
  {
    id: { type: String, required: true, unique: true },
    key: { type: String, required: true, unique: true },
    merchantId: { type: String, default: null },
    currency: { type: String, required: true },
    kind: { type: String, required: true },
    name: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'ledger_accounts' },
);
accountSchema.index({ merchantId: 1, createdAt: 1 });

const entrySchema = new Schema<EntryDoc>(
  {
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
// One writer wins each position of an account's chain; the loser re-reads the head and retries.
entrySchema.index({ accountId: 1, seq: 1 }, { unique: true });
// A movement's leg exists at most once, whatever the retries, replays or races.
entrySchema.index({ sourceRef: 1, leg: 1 }, { unique: true });

const transferSchema = new Schema<TransferDoc>(
  {
    id: { type: String, required: true, unique: true },
    sourceRef: { type: String, required: true, unique: true },
    fromAccountId: { type: String, required: true },
    toAccountId: { type: String, required: true },
    amount: { type: Number, required: true },
    currency: { type: String, required: true },
    reason: { type: String, required: true },
    transactionId: { type: String, default: null },
    metadata: { type: Schema.Types.Mixed, default: null },
    status: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'ledger_transfers' },
);
transferSchema.index({ status: 1, createdAt: 1 });

export interface LedgerModels {
  accounts: Model<AccountDoc>;
  entries: Model<EntryDoc>;
  transfers: Model<TransferDoc>;
}

function bind<T>(conn: Connection, name: string, schema: Schema<T>): Model<T> {
  return (conn.models[name] as Model<T> | undefined) ?? conn.model<T>(name, schema);
}

export function ledgerModels(conn: Connection): LedgerModels {
  return {
    accounts: bind(conn, 'LedgerAccount', accountSchema),
    entries: bind(conn, 'LedgerEntry', entrySchema),
    transfers: bind(conn, 'LedgerTransfer', transferSchema),
  };
}
