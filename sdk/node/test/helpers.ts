import { randomUUID } from 'node:crypto';
import { MomoPayments } from '../src/index';

// The stack the suite runs against (sdk/node/run-tests.sh checks these are set).

export const env = {
  baseUrl: process.env.MOMO_BASE_URL ?? 'http://127.0.0.1:3900',
  apiKey: process.env.MOMO_API_KEY ?? '',
  apiClient: process.env.MOMO_API_CLIENT ?? '',
  merchantId: process.env.MOMO_MERCHANT_ID ?? '',
  faultUrl: process.env.MOMO_FAULT_URL ?? '',
};

export const stackAvailable = env.apiKey !== '' && env.apiClient !== '';

export function client(extra: Partial<ConstructorParameters<typeof MomoPayments>[0]> = {}): MomoPayments {
  return new MomoPayments({
    apiKey: env.apiKey,
    apiClient: env.apiClient,
    baseUrl: env.baseUrl,
    timeoutMs: 15_000,
    ...extra,
  });
}

/** A reference unique to this run. */
export const ref = (prefix: string) => `sdk-node-${prefix}-${randomUUID().slice(0, 12)}`;

/** The sandbox's test number that always succeeds (docs/sandbox.md). */
export const msisdn = '+2250500000001';
export const action = { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' };

/** Polls until `check` answers a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
