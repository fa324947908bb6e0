import { ApiProblem } from '../../contract/problems';
import { modeOfScope } from '../../domain/modes';
import type { Country, OperatorCode } from '../../domain/operators';
import type { HealthState } from './state';
import { DEFAULT_RETRY_AFTER_SECONDS } from './state';

// The payin side of provider states: a payin to a closed provider is refused before anything is
// stored or started (the customer would only wait for an expiry). Kept structural so services
// take any reader; unset, every provider is operational.

export interface PayinStateReader {
  stateOf(
    mode: 'test' | 'live',
    operator: OperatorCode,
    country: Country,
    operation: 'payin',
  ): Promise<{ state: HealthState; retryAfterSeconds: number | null }>;
}

/** Throws PROVIDER_UNAVAILABLE (503, Retry-After) when the scope's mode has this provider closed. */
export async function refuseClosedPayin(
  reader: PayinStateReader | undefined,
  scope: string,
  operator: OperatorCode,
  country: Country,
): Promise<void> {
  if (!reader) return;
  let answer: { state: HealthState; retryAfterSeconds: number | null };
  try {
    answer = await reader.stateOf(modeOfScope(scope), operator, country, 'payin');
  } catch {
    // The states are advice: unreadable, the provider is taken as operational (the payin's own
    // retries and expiry still protect it).
    return;
  }
  if (answer.state !== 'closed') return;
  throw new ApiProblem('PROVIDER_UNAVAILABLE', {
    headers: { 'Retry-After': String(answer.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) },
  });
}

/**
 * A session's customer chooses the provider later: throws PROVIDER_UNAVAILABLE only when every
 * offered provider is closed (the shortest Retry-After of them).
 */
export async function refuseWhenAllClosed(
  reader: PayinStateReader | undefined,
  scope: string,
  offers: readonly { code: OperatorCode }[],
  country: Country,
): Promise<void> {
  if (!reader || offers.length === 0) return;
  let retryAfter = Infinity;
  for (const p of offers) {
    try {
      await refuseClosedPayin(reader, scope, p.code, country);
      return;
    } catch (err) {
      if (!(err instanceof ApiProblem)) throw err;
      retryAfter = Math.min(
        retryAfter,
        Number(err.extra.headers?.['Retry-After'] ?? DEFAULT_RETRY_AFTER_SECONDS),
      );
    }
  }
  throw new ApiProblem('PROVIDER_UNAVAILABLE', { headers: { 'Retry-After': String(retryAfter) } });
}
