import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { DashboardBrowser } from '../helpers/dashboard';
import { startStack, type TestStack } from '../helpers/stack';
import { freePort, waitForPort } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';

// The limits that protect hold across API replicas (docs/decisions/api/shared-limit-counters.md),
// proven here with two real API processes (`src/main/api.ts`, the production entry point) on one
// database, a client alternating between them as behind a round-robin load balancer. Each process
// counting alone would allow twice the limit. shared-limits.test.ts walks every limit the same way
// with a second replica inside the test process.

const PER_ADDRESS = 4;

describe('two API processes share the sign-in limit per client address', () => {
  let stack: TestStack;
  const apis: { proc: ChildProcess; baseUrl: string }[] = [];

  beforeAll(async () => {
    stack = await startStack();
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
        cwd: repoRoot,
        stdio: 'ignore',
        env: {
          ...process.env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'silent',
          HOST: '127.0.0.1',
          PORT: String(port),
          MONGODB_URI: `${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`,
          TEMPORAL_ADDRESS: stack.env.address,
          TEMPORAL_TASK_QUEUE: stack.taskQueue,
          DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
        },
      });
      apis.push({ proc, baseUrl: `http://127.0.0.1:${port}` });
    }
    await Promise.all(apis.map((p) => waitForPort(Number(new URL(p.baseUrl).port), 60_000, p.proc)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      apis.map(
        (p) =>
          new Promise<void>((res) => {
            if (p.proc.exitCode !== null) return res();
            p.proc.once('exit', () => res());
            p.proc.kill('SIGTERM');
          }),
      ),
    );
    await stack?.stop();
  });

  it(`${PER_ADDRESS} failures from one address, then 429, whichever process answers`, async () => {
    // A fresh minute, so the window does not end in the middle of the tries.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((res) => setTimeout(res, 60_000 - intoMinute + 200));
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
