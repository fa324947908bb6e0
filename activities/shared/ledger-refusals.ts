import { ApplicationFailure } from '@temporalio/activity';
import { INSUFFICIENT_FUNDS, InsufficientFundsError } from '../../src/ledger';

/**
 * Runs a debit posting (src/ledger/postings.ts) in an activity. A balance that does not cover it
 * fails the activity non-retryable with the ledger's one insufficient-funds type, named explicitly:
 * Temporal would otherwise take the type from the class's name, and retrying cannot help.
 */
export async function debitOrRefuse<T>(post: () => Promise<T>): Promise<T> {
  try {
    return await post();
  } catch (err) {
    if (err instanceof InsufficientFundsError)
      throw ApplicationFailure.nonRetryable(err.message, INSUFFICIENT_FUNDS);
    throw err;
  }
}
