// `npm run fuzz`: schemathesis against the API's own OpenAPI document (/openapi.json), on the real
// stack (FerretDB, Temporal's test server, worker, simulator, API), authenticated as a real merchant.
// Fails on any 5xx, any response that does not conform to the document, or an operation that
// answers without its credentials (schemathesis' `ignored_auth` check). Prints and writes the
// number of generated requests to bench-results/fuzz-<time>.json.
//   FUZZ_MAX_EXAMPLES  examples per operation (default 25; CI uses the default)
//   FUZZ_SEED          fixed seed (default 1: the same run twice)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort, startFerretDB } from '../src/infra/local-servers';
import { repoRoot } from '../src/infra/tools';
import { basic } from '../test/helpers/http';
import { createTestMerchant } from '../test/helpers/merchants';
import { startStack } from '../test/helpers/stack';

function schemathesisBin(): string {
  if (process.env.SCHEMATHESIS_BIN) return process.env.SCHEMATHESIS_BIN;
  const version = /SCHEMATHESIS_VERSION=(\S+)/.exec(
    readFileSync(join(repoRoot, 'scripts/tool-versions.env'), 'utf8'),
  )?.[1];
  const cache =
    process.env.MOMO_CACHE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'momo-payments');
  return join(cache, 'tools', `schemathesis-${version}`, 'bin', 'st');
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'momo-fuzz-'));
  const port = await freePort();
  const ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port });
  // The test stack helper reads these (normally set by jest's global setup).
  process.env.TEST_MONGODB_URL = `mongodb://127.0.0.1:${port}`;
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(repoRoot, 'workflows/index.ts'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  process.env.TEST_WORKFLOW_BUNDLE = join(dir, 'workflow-bundle.js');
  writeFileSync(process.env.TEST_WORKFLOW_BUNDLE, code);
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '0' });
  try {
    const merchant = await createTestMerchant(stack, 'Fuzz merchant');
    const args = [
      'run',
      `${stack.baseUrl}/openapi.json`,
      '--url',
      stack.baseUrl,
      '--header',
      `Authorization: ${basic(merchant.credentials)}`,
      '--checks',
      'all',
      '--max-examples',
      process.env.FUZZ_MAX_EXAMPLES ?? '25',
      '--seed',
      process.env.FUZZ_SEED ?? '1',
      '--workers',
      '2',
      '--no-color',
    ];
    const { status, output } = await new Promise<{ status: number; output: string }>((resolve) => {
      const chunks: string[] = [];
      const st = spawn(schemathesisBin(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
      for (const stream of [st.stdout, st.stderr])
        stream.on('data', (c: Buffer) => {
          chunks.push(c.toString());
          process.stdout.write(c);
        });
      st.on('close', (exit) => resolve({ status: exit ?? 1, output: chunks.join('') }));
    });
    // schemathesis 4 ends with a summary such as "Test cases: 812 generated, 812 passed".
    const generated = Number(/Test cases:\s*(\d+) generated/.exec(output)?.[1] ?? NaN);
    const at = new Date().toISOString();
    mkdirSync(join(repoRoot, 'bench-results'), { recursive: true });
    const out = join(repoRoot, 'bench-results', `fuzz-${at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      out,
      `${JSON.stringify({ at, status, generatedTestCases: generated, args: args.slice(6) /* never the credentials */ }, null, 2)}\n`,
    );
    console.log(`\nfuzz: ${generated} generated test cases, exit ${status}; written ${out}`);
    return status;
  } finally {
    await stack.stop();
    await ferret.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (status) => process.exit(status),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
