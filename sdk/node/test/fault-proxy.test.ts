import { MomoApiError } from '../src/index';
import { action, client, env, msisdn, ref, stackAvailable } from './helpers';

// Retries proven on the wire, through the harness's fault proxy (MOMO_FAULT_URL, test/sdk/
// fault-proxy.ts): its log shows each request the SDK sent, with its idempotency key.

interface LogEntry {
  method: string;
  path: string;
  idempotencyKey: string | null;
  status: number;
  injected: boolean;
}

const describeFaults = stackAvailable && env.faultUrl ? describe : describe.skip;

describeFaults('retries through the fault proxy', () => {
  const viaProxy = client({ baseUrl: env.faultUrl });
  const direct = client();

  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${env.faultUrl}${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`fault proxy ${method} ${path}: ${res.status}`);
    return res.status === 204 ? undefined : await res.json().catch(() => undefined);
  }
  const log = async () =>
    ((await control('GET', '/__faults/log')) as LogEntry[]).filter((e) => e.path.startsWith('/v1/'));

  beforeEach(async () => {
    await control('DELETE', '/__faults/log');
  });

  const payin = (reference: string) => ({
    reference,
    sandboxScenario: 'completed' as const,
    payin: { amount: 1200, msisdn, provider: 'MTN' as const, country: 'CI' as const },
    action,
  });

  test('a POST answered 503 after the API acted is retried with the same key: one payin', async () => {
    const reference = ref('f503');
    await control('POST', '/__faults', { status: 503, retryAfter: 1, times: 1, forward: true });
    const answer = await viaProxy.payins.createDirect(payin(reference));
    const entries = await log();
    // The retry is answered the stored answer of the first request (201 replayed as stored).
    expect(entries.map((e) => [e.method, e.path, e.injected])).toEqual([
      ['POST', '/v1/direct/payin', true],
      ['POST', '/v1/direct/payin', false],
    ]);
    expect(entries[0]?.status).toBe(503);
    expect([200, 201]).toContain(entries[1]?.status);
    expect(entries[0]?.idempotencyKey).toBeTruthy();
    expect(entries[1]?.idempotencyKey).toBe(entries[0]?.idempotencyKey);
    // The object the API created on the first (thrown away) request is the one answered.
    const stored = await direct.payins.get(reference);
    expect(answer.id).toBe(stored.id);
    const listed = await direct.transactions.list({ reference });
    expect(listed.data).toHaveLength(1);
  });

  test('a POST answered 409 REQUEST_IN_PROGRESS after the API acted is retried with the same key', async () => {
    // What a merchant meets when its retry reaches another API process while the first answer is stored.
    const reference = ref('f409');
    await control('POST', '/__faults', { status: 409, retryAfter: 1, times: 1, forward: true });
    const answer = await viaProxy.payins.createDirect(payin(reference));
    const entries = await log();
    expect(entries.map((e) => [e.status, e.injected])).toEqual([
      [409, true],
      [expect.any(Number), false],
    ]);
    expect([200, 201]).toContain(entries[1]?.status);
    expect(entries[1]?.idempotencyKey).toBe(entries[0]?.idempotencyKey);
    expect(answer.id).toBe((await direct.payins.get(reference)).id);
    expect((await direct.transactions.list({ reference })).data).toHaveLength(1);
  });

  test('a 429 not forwarded is retried after Retry-After with the same key', async () => {
    const reference = ref('f429');
    await control('POST', '/__faults', { status: 429, retryAfter: 1, times: 1, forward: false });
    const started = Date.now();
    const answer = await viaProxy.payins.createDirect(payin(reference));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const entries = await log();
    expect(entries.map((e) => [e.status, e.injected])).toEqual([
      [429, true],
      [201, false],
    ]);
    expect(entries[1]?.idempotencyKey).toBe(entries[0]?.idempotencyKey);
    expect(answer.reference).toBe(reference);
  });

  test('a GET answered 503 is retried too', async () => {
    await control('POST', '/__faults', { status: 503, retryAfter: 0, times: 2, forward: false });
    const accounts = await viaProxy.accounts.list();
    expect(accounts.data.length).toBeGreaterThan(0);
    expect((await log()).map((e) => e.status)).toEqual([503, 503, 200]);
  });

  test('a 4xx is sent once', async () => {
    const err = await viaProxy.payins
      .createDirect({ ...payin(ref('f400')), payin: { amount: -1, msisdn, provider: 'MTN', country: 'CI' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MomoApiError);
    expect((err as MomoApiError).status).toBe(400);
    const entries = await log();
    expect(entries).toHaveLength(1);
    expect(entries[0]?.status).toBe(400);
  });

  test('the retries give up after maxRetries and the 503 is thrown', async () => {
    await control('POST', '/__faults', { status: 503, retryAfter: 0, times: 3, forward: false });
    const err = await client({ baseUrl: env.faultUrl, maxRetries: 2 })
      .accounts.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MomoApiError);
    expect((err as MomoApiError).status).toBe(503);
    expect(await log()).toHaveLength(3);
  });
});
