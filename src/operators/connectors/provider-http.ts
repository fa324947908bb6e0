import { OperatorNotTakenError, OperatorUnavailableError } from '../gateway';

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
