import type { z } from 'zod';
import {
  OperatorConflictError,
  OperatorNotTakenError,
  OperatorRejectedError,
  OperatorUnavailableError,
} from '../gateway';

/** A provider's answer: its HTTP status and its body parsed as JSON (null when empty). */
export interface ProviderAnswer {
  status: number;
  json: unknown;
}

/**
 * One HTTP exchange with a provider. No answer within `timeoutMs`, a network error, an answer cut
 * off, a 5xx, a 429 or an unreadable 2xx body throw OperatorUnavailableError: the provider did not
 * answer, so the activity retries with the same id. Any other answer is the connector's to read.
 * Messages name the provider and the route only, never the request (it may hold phone numbers).
 */
export async function exchange(
  provider: string,
  where: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<ProviderAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    // Refused at connect: not a byte of the request left, so the provider certainly did not take it.
    if (connectionRefused(err)) throw new OperatorNotTakenError(`${provider} ${where}: connection refused`);
    const reason = (err as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : 'network error';
    throw new OperatorUnavailableError(`${provider} ${where}: ${reason}`);
  }
  let raw: string;
  try {
    raw = await res.text();
  } catch {
    throw new OperatorUnavailableError(`${provider} ${where}: answer cut off`);
  }
  if (res.status >= 500 || res.status === 429)
    throw new OperatorUnavailableError(`${provider} ${where}: HTTP ${res.status}`);
  let json: unknown = null;
  if (raw.length > 0) {
    try {
      json = JSON.parse(raw);
    } catch {
      if (res.status < 300) throw new OperatorUnavailableError(`${provider} ${where}: unreadable answer`);
    }
  }
  return { status: res.status, json };
}

/** fetch's failure when the connection itself was refused (undici puts the socket error in `cause`). */
function connectionRefused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } } | null)?.cause;
  return cause?.code === 'ECONNREFUSED' || (cause?.errors?.every((e) => e.code === 'ECONNREFUSED') ?? false);
}

/**
 * How a connector reads its provider's answers. Only the provider's error code (`codeOf`, a short
 * slug or a placeholder) travels in messages: its message may echo the request.
 */
export function answersOf(provider: string, codeOf: (json: unknown) => string) {
  return {
    /**
     * A request's 4xx: 401/403 a wrong or revoked key, ours to fix, retried like an outage
     * (docs/decisions/operators/wrong-credentials-are-an-outage.md); 409 our id held in conflict;
     * any other the provider refusing the request itself (nothing was done).
     */
    refuse(where: string, res: ProviderAnswer): void {
      if (res.status < 400) return;
      const code = codeOf(res.json);
      if (res.status === 401 || res.status === 403)
        throw new OperatorUnavailableError(`${provider} ${where}: HTTP ${res.status} ${code}`);
      if (res.status === 409) throw new OperatorConflictError(`${provider} ${where}: HTTP 409 ${code}`);
      throw new OperatorRejectedError(`${provider} ${where}: HTTP ${res.status} ${code}`);
    },
    /** A read's error proves nothing about the transaction: retry. */
    read(where: string, res: ProviderAnswer): void {
      if (res.status >= 400)
        throw new OperatorUnavailableError(`${provider} ${where}: HTTP ${res.status} ${codeOf(res.json)}`);
    },
    /** The answer's body by its documented schema; anything else is no answer. */
    parse<S extends z.ZodType>(where: string, res: ProviderAnswer, schema: S): z.infer<S> {
      const parsed = schema.safeParse(res.json);
      if (!parsed.success) throw new OperatorUnavailableError(`${provider} ${where}: unreadable answer`);
      return parsed.data;
    },
  };
}
