// The ledger's errors. This module imports nothing, so a workflow may read the type names below
// (an activity's failure carries its error's name as its type, and that name is kept in history).

/**
 * The failure type of a movement the balance does not cover, as activities fail with it and
 * workflows list it non-retryable. Recorded in histories: never rename it.
 */
export const INSUFFICIENT_FUNDS = 'InsufficientFundsError';

export class LedgerError extends Error {
  override name = 'LedgerError';
}

/**
 * A non-system account would go below zero; nothing was applied. The one insufficient-funds type:
 * the API maps it to INSUFFICIENT_BALANCE, and an activity fails with it as is (non-retryable).
 */
export class InsufficientFundsError extends LedgerError {
  override name = INSUFFICIENT_FUNDS;
  constructor(
    readonly accountId: string,
    readonly available: number,
    readonly requested: number,
  ) {
    super(`insufficient funds on ${accountId}: available ${available}, requested ${requested}`);
  }
}
/**
 * A debit would take a system account that must stay non-negative (`payout-holds`) below zero;
 * nothing was applied. Never a merchant's shortfall: it means a movement out of the account was
 * not covered by the money moved in (a bug to look at), so it is not an InsufficientFundsError.
 */
export class SystemAccountOverdrawnError extends LedgerError {
  override name = 'SystemAccountOverdrawnError';
  constructor(
    readonly accountName: string,
    readonly accountId: string,
    readonly available: number,
    readonly requested: number,
  ) {
    super(
      `system account ${accountName} (${accountId}) cannot go below zero: available ${available}, requested ${requested}`,
    );
  }
}

/** The sourceRef was already used for a different movement (other accounts or amount). */
export class SourceRefConflictError extends LedgerError {
  override name = 'SourceRefConflictError';
  constructor(readonly sourceRef: string) {
    super(`sourceRef ${sourceRef} was already used for a different transfer`);
  }
}

/** Too many lost races in a row on one account; safe to retry (nothing half-applied is lost). */
export class LedgerContentionError extends LedgerError {
  override name = 'LedgerContentionError';
}
