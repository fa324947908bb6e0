import type { Currency, MinorAmount } from '../domain/money';

// The ledger's public vocabulary. Amounts are integers in the currency's minor unit.

/** Accounts the platform itself holds; they may go negative (they mirror money outside the ledger). */
/** `payout-holds` keeps what an atomic bulk payout reserved until its items are debited from it. */
export const systemAccountNames = ['operator-clearing', 'fees', 'sandbox-funding', 'payout-holds'] as const;
export type SystemAccountName = (typeof systemAccountNames)[number];

/**
 * The system accounts that hold only money moved in from merchant accounts, so they can never owe:
 * the ledger refuses a debit that would take one below zero (SystemAccountOverdrawnError). Keyed by
 * the account's name, whatever else its key says (currency, mode).
 */
export const nonNegativeSystemAccounts: ReadonlySet<SystemAccountName> = new Set(['payout-holds']);

export type AccountKind = 'main' | 'sub' | 'system';

export interface Account {
  id: string;
  merchantId: string | null;
  currency: Currency;
  kind: AccountKind;
  name: string;
  /** Running balance of the account's newest entry: always the sum of its entries. */
  balance: MinorAmount;
  createdAt: Date;
}

export type Leg = 'debit' | 'credit';

/** One immutable line of an account's journal. */
export interface LedgerEntry {
  id: string;
  accountId: string;
  /** 1, 2, 3... per account, contiguous; unique with accountId. */
  seq: number;
  /** Signed: negative for a debit, positive for a credit. */
  amount: MinorAmount;
  balanceAfter: MinorAmount;
  currency: Currency;
  transferId: string;
  sourceRef: string;
  leg: Leg;
  counterpartyAccountId: string;
  reason: string;
  transactionId: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
}

export interface TransferRequest {
  /** Unique per movement, e.g. `${transactionId}:debit`: the same sourceRef never applies twice. */
  sourceRef: string;
  fromAccountId: string;
  toAccountId: string;
  /** > 0, minor units. */
  amount: MinorAmount;
  reason: string;
  transactionId?: string;
  metadata?: Record<string, unknown>;
}

export interface TransferResult {
  transferId: string;
  /** True for exactly one call per sourceRef: the one that completed it. */
  applied: boolean;
  /** Balances right after this transfer's legs (the same answer on every replay). */
  fromBalance: MinorAmount;
  toBalance: MinorAmount;
}

// The errors live in ./errors (no imports: workflows read their names too).
export {
  InsufficientFundsError,
  SystemAccountOverdrawnError,
  LedgerContentionError,
  LedgerError,
  SourceRefConflictError,
  INSUFFICIENT_FUNDS,
} from './errors';
