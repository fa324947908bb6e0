import { z } from 'zod';
import { countries, operatorCodes, type Country } from '../../domain/operators';
import { OperatorRejectedError, OperatorUnavailableError } from '../gateway';
import type { RecipientInfo } from './connector';

// The sandbox simulator's recipient check (src/simulator/recipient-routes.ts), for SimulatorConnector.
// The number travels in the path: errors name the route, never the path.

const answer = z.object({
  operator: z.enum(operatorCodes).nullable(),
  country: z.enum(countries),
  active: z.boolean().nullable(),
  holderName: z.string().nullable(),
});

export async function sandboxRecipient(
  opts: { baseUrl: string; timeoutMs: number },
  msisdn: string,
  country: Country,
): Promise<RecipientInfo> {
  const where = 'GET /recipients/{msisdn}';
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/recipients/${encodeURIComponent(msisdn)}?country=${country}`;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const reason =
      (err as Error).name === 'TimeoutError' ? `no answer in ${opts.timeoutMs} ms` : 'network error';
    throw new OperatorUnavailableError(`${where}: ${reason}`);
  }
  if (res.status >= 500 || res.status === 429)
    throw new OperatorUnavailableError(`${where}: HTTP ${res.status}`);
  if (!res.ok) throw new OperatorRejectedError(`${where}: HTTP ${res.status}`);
  let parsed;
  try {
    parsed = answer.safeParse(JSON.parse(text));
  } catch {
    throw new OperatorUnavailableError(`${where}: the answer is not JSON`);
  }
  if (!parsed.success) throw new OperatorUnavailableError(`${where}: unexpected answer`);
  return parsed.data;
}
