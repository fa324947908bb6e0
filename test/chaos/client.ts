import { randomUUID } from 'node:crypto';
import type { ApiClient, ApiResponse } from '../helpers/http';

// A merchant's client that rides out the chaos (test/integration/chaos.test.ts): it retries what a
// real client would retry and keeps every status it was answered, for the "never a 500" check.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PatientClient {
  /** Every status answered, in order. */
  readonly statuses: number[] = [];
  /** Set by abort(): every call from then on throws it instead of waiting out the budget. */
  private aborted: Error | null = null;

  constructor(
    readonly api: ApiClient,
    /** When `create` gives up (ms since epoch). */
    private readonly deadline: number,
    /** What the budget's error adds: why the API may still be answering 503. */
    private readonly explain: () => Promise<string> = async () => '',
  ) {}

  /** Stops every retry loop with `err`: the run has failed (e.g. the store did not come back). */
  abort(err: Error): void {
    this.aborted = err;
  }

  /**
   * POSTs until the API accepts it (same idempotency key): 503 and in-flight answers are retried,
   * as a client would, for as long as the run's budget lasts (a refund waits for its payin's
   * workflow to decide, behind the backlog of every transaction in flight).
   */
  async create(path: string, body: unknown): Promise<ApiResponse<any>> {
    const key = randomUUID();
    for (;;) {
      if (this.aborted) throw this.aborted;
      let res: ApiResponse<any> | null = null;
      try {
        res = await this.api.post(path, body, { 'x-idempotency-key': key });
        this.statuses.push(res.status);
      } catch {
        // the connection dropped: retry
      }
      if (res && (res.status === 200 || res.status === 201)) return res;
      if (res && ![409, 503].includes(res.status))
        throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (Date.now() > this.deadline)
        throw new Error(
          `${path} not accepted within the budget (last ${res?.status} ${res?.body?.code ?? ''}): ${await this.explain()}`,
        );
      await sleep(300);
    }
  }

  /** GETs until the API answers other than 503 (FerretDB down) or the connection drops. */
  async read(path: string): Promise<ApiResponse<any>> {
    for (let i = 0; ; i++) {
      if (this.aborted) throw this.aborted;
      try {
        const res = await this.api.get(path);
        this.statuses.push(res.status);
        if (res.status !== 503 || i > 100) return res;
      } catch (err) {
        if (i > 100) throw err;
      }
      await sleep(300);
    }
  }
}

/** Runs `fn` over `items` with `concurrency` at a time. */
export async function pool<T>(
  items: T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}
