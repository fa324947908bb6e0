// The merchant money ledger: import it from here.
export { Ledger, decodeCursor, encodeCursor, type EntriesQuery, type LedgerOptions } from './ledger';
export {
  INSUFFICIENT_FUNDS,
  InsufficientFundsError,
  LedgerContentionError,
  LedgerError,
  SourceRefConflictError,
  SystemAccountOverdrawnError,
  nonNegativeSystemAccounts,
  systemAccountNames,
  type Account,
  type AccountKind,
  type Leg,
  type LedgerEntry,
  type SystemAccountName,
  type TransferRequest,
  type TransferResult,
} from './types';
export type { TransferDoc } from './models';
export { accountKeys, parseAccountKey, type ParsedAccountKey } from './accounts';
export type { ModeSplitReport, ScopeOfTransaction } from './mode-split';
