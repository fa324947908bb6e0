import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { INSUFFICIENT_FUNDS } from '../src/ledger/errors';

/** The type of the application failure an activity ended with (its error's name), or null. */
export function activityFailureType(err: unknown): string | null {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure
    ? (err.cause.type ?? null)
    : null;
}

/** Only the ledger's own insufficient-funds refusal: anything else (a cancellation, a fault) is not. */
export const isInsufficientFunds = (err: unknown) => activityFailureType(err) === INSUFFICIENT_FUNDS;
