import { randomUUID } from 'node:crypto';
import { DashboardBrowser } from '../helpers/dashboard';
import { startStack, type TestStack } from '../helpers/stack';
import { startApiProcesses, stopApiProcesses, type ApiProcess } from '../helpers/api-processes';
import { awayFromWindowEnd } from '../helpers/fixed-windows';

// The limits that protect hold across API replicas (docs/decisions/api/shared-limit-counters.md),
// proven here with two real API processes (`src/main/api.ts`, the production entry point) on one
// database, a client alternating between them as behind a round-robin load balancer. Each process
// counting alone would allow twice the limit. shared-limits.test.ts walks every limit the same way
// with a second replica inside the test process.

const PER_ADDRESS = 4;

describe('two API processes share the sign-in limit per client address', () => {
  let stack: TestStack;
  const apis: ApiProcess[] = [];

  beforeAll(async () => {
    stack = await startStack();
    apis.push(
      ...(await startApiProcesses(stack, 2, { DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: String(PER_ADDRESS) })),
    );
  }, 120_000);

  afterAll(async () => {
    await stopApiProcesses(apis);
    await stack?.stop();
  });

  it(`${PER_ADDRESS} failures from one address, then 429, whichever process answers`, async () => {
    // Away from the minute's end, so the window does not end in the middle of the tries.
    await awayFromWindowEnd(60_000);
    const address = '192.0.2.77';
    const browsers = apis.map((a) => new DashboardBrowser(a.baseUrl, address));
    const answers: string[] = [];
    for (let i = 0; i < PER_ADDRESS + 2; i++) {
      const res = await browsers[i % 2]!.signIn(
        `nobody-${i}-${randomUUID().slice(0, 6)}@example.test`,
        'guess',
      );
      answers.push(`${res.status} ${(res.body as { code?: string } | undefined)?.code ?? ''}`);
    }
    expect(answers).toEqual([
      ...Array<string>(PER_ADDRESS).fill('401 SIGN_IN_FAILED'),
      '429 RATE_LIMITED',
      '429 RATE_LIMITED',
    ]);
  });
});
