import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { INSUFFICIENT_FUNDS } from '../../src/ledger/errors';

/**
 * The application failure an activity ended with: an ActivityFailure's cause, or the failure itself
 * when a local activity failed (the SDK hands a local activity's failure over unwrapped).
 */
export function activityApplicationFailure(err: unknown): ApplicationFailure | null {
  if (err instanceof ActivityFailure) return err.cause instanceof ApplicationFailure ? err.cause : null;
  return err instanceof ApplicationFailure ? err : null;
}

/** The type of the application failure an activity ended with (its error's name), or null. */
export function activityFailureType(err: unknown): string | null {
  return activityApplicationFailure(err)?.type ?? null;
}

/** Only the ledger's own insufficient-funds refusal: anything else (a cancellation, a fault) is not. */
export const isInsufficientFunds = (err: unknown) => activityFailureType(err) === INSUFFICIENT_FUNDS;
