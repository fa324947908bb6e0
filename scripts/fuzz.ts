// `npm run fuzz`: schemathesis against the API's own OpenAPI document (/openapi.json), on the real
// stack (FerretDB, Temporal's test server, worker, simulator, API), authenticated as a real merchant.
// Fails on any 5xx, any response that does not conform to the document, an operation that answers
// without its credentials (`ignored_auth`), or any other of schemathesis' checks (`--checks all`).
// Deterministic and bounded: fixed seed, fixed examples per operation, one worker, no example
// database or crash cache carried between runs, a per-request timeout and a timeout for the run.
// Prints and writes the generated test cases, the requests the API served and the times to
// bench-results/fuzz-<time>.json, and schemathesis' own output to bench-results/fuzz-<time>.log.
// `npm run test:sdks -- --fuzz` runs the same fuzz (fuzz() below) on the stack the SDK suites
// started, after them (CI: one stack for both, issue 42); `npm run fuzz` starts a stack of its own.
//   FUZZ_MAX_EXAMPLES  examples per operation and phase (default 100; CI runs 50, see .ci/run)
//   FUZZ_SEED          seed (default 1: the same run twice)
//   FUZZ_TIMEOUT       seconds before the whole run is stopped and failed (default 1200)
// Extra arguments go to `st run` as they are, e.g. `npx tsx scripts/fuzz.ts --include-path /v1/events`.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort, startFerretDB } from '../src/infra/local-servers';
import { repoRoot } from '../src/infra/tools';
import { failureConverterPath } from '../src/temporal/codec';
import { httpRequestDuration } from '../src/infra/metrics';
import { basic } from '../test/helpers/http';
import { echoLine } from './schemathesis-output';
import { createTestMerchant } from '../test/helpers/merchants';
import { served, type Served } from './fuzz-requests';
import { startStack } from '../test/helpers/stack';

/** A single HTTP request never takes this long here; one that does is a hang, reported as an error. */
const REQUEST_TIMEOUT_S = 15;

// Statuses `positive_data_acceptance` accepts for schema-valid requests (schemathesis' default)...
const accepted = ['2xx', '3xx', 401, 403, 404, 409, 429, '5xx'];
/**
 * ...and what a few operations may also answer to one, each for a deliberate, documented reason
 * that JSON Schema cannot express. Everything else keeps every check
 * (docs/decisions/testing/api-fuzzing.md).
 */
const crossField =
  'rules across fields, each a documented 400 code: the number valid in the chosen country and not of another network than the provider, the country currency, the Orange OTP, the provider offered in the country, the amount within its band (GET /v1/providers)';
const opaqueCursor =
  'opaque page cursor: only a cursor this API returned is valid (else 400 on cursor), which no schema can state';
const positiveDataExceptions: { method: string; path: string; also: number[]; why: string }[] = [
  ...['/v1/direct/payin', '/v1/payin/sessions', '/v1/direct/payout', '/v1/payout'].map((path) => ({
    method: 'POST',
    path,
    also: [400],
    why: crossField,
  })),
  {
    method: 'POST',
    path: '/v1/payin/{reference}/refund',
    also: [400],
    why: "rules on the payin refunded, each a documented 400: the amount's decimals are its currency's (none for XOF, XAF) and at most what remains of it",
  },
  {
    method: 'GET',
    path: '/v1/providers/recipient',
    also: [400],
    why: 'a rule across fields, a documented 400: the number valid in the chosen country',
  },
  {
    method: 'POST',
    path: '/checkout/{id}/confirm',
    also: [400],
    why: "a rule across the request and the session, a documented 400: the number valid in the payin's country",
  },
  ...['/v1/statements', '/v1/webhooks/{id}/replay'].map((path) => ({
    method: 'POST',
    path,
    also: [400],
    why: 'a rule across fields, a documented 400 on `to`: the period ends after it starts and spans at most 31 days',
  })),
  ...[
    '/v1/accounts/{id}/entries',
    '/v1/events',
    '/v1/webhooks/{id}/deliveries',
    '/v1/transactions',
    '/v1/payment-links',
    '/v1/payment-links/{id}/payments',
    '/v1/statements',
  ].map((path) => ({
    method: 'GET',
    path,
    also: [400],
    why: opaqueCursor,
  })),
  {
    method: 'POST',
    path: '/v1/payment-links',
    also: [400],
    why: "rules across fields, a documented 400: each country's currency (CI pays in XOF, CM in XAF), the amounts within the operators' limits and min at most max, a cap not below a fixed amount, an expiry in the future",
  },
  {
    method: 'PATCH',
    path: '/v1/payment-links/{id}',
    also: [400],
    why: 'a rule no schema can state, a documented 400: a new expiry is in the future',
  },
  ...['POST /v1/webhooks', 'PATCH /v1/webhooks/{id}'].map((name) => ({
    method: name.split(' ')[0]!,
    path: name.split(' ')[1]!,
    also: [400],
    why: 'a rule no schema can state, a documented 400 (WEBHOOK_URL_NOT_ALLOWED): the URL must reach a public address (SSRF guard); links the API itself returns point to it',
  })),
  // A link deactivated, expired or spent (an SDK suite on the same stack deactivates one) answers
  // its page saying so; the form's fields are checked against the link and the operators.
  {
    method: 'GET',
    path: '/l/{slug}',
    also: [410],
    why: 'a state of the link, not of the request: a deactivated, expired or spent link answers a page saying so (documented 410)',
  },
  {
    method: 'POST',
    path: '/l/{slug}',
    also: [400, 410],
    why: "the link's state (documented 410) and rules across the form and the link, a documented 400 page: the number valid in the chosen country, the amount within the link's bounds and its operators' limits",
  },
  {
    method: 'GET',
    path: '/v1/ws',
    also: [426],
    why: 'a WebSocket endpoint: a plain GET answers 426 Upgrade Required (documented); schemathesis speaks no WebSocket',
  },
];

// Statuses `negative_data_rejection` accepts for schema-violating requests (schemathesis' default)...
const rejected = [400, 401, 403, 404, 405, 406, 409, 415, 422, 428, 429, '5xx'];
/** ...and what an operation may also answer to one, for a documented reason. */
const negativeDataExceptions: { method: string; path: string; also: number[]; why: string }[] = [
  {
    method: 'POST',
    path: '/v1/payouts/bulk',
    also: [201],
    why: 'each item is checked on its own: an invalid item is refused in the 201 (its problem in its result), the others are paid (docs/bulk-payouts.md)',
  },
];

/** The statuses `not_a_server_error` accepts (schemathesis' default: no 5xx)... */
const notServerErrors = ['1xx', '2xx', '3xx', '4xx'];
/** ...and a 5xx an operation answers for a documented, transient reason. */
const serverErrorExceptions: { method: string; path: string; also: number[]; why: string }[] = [
  '/v1/sandbox/payins/{reference}/settle',
  '/v1/sandbox/payins/{reference}/collected',
].map((path) => ({
  method: 'POST',
  path,
  also: [503],
  why: 'a documented 503 NOT_AT_OPERATOR_YET with Retry-After: the payin is not at the operator yet (sent moments after its creation, or a session its customer has not confirmed)',
}));

/** schemathesis.toml, written next to the run (the repository keeps no schemathesis state). */
function config(): string {
  const lines = ['# Generated by scripts/fuzz.ts for one run.', '[cache]', 'enabled = false', ''];
  const section = (e: { method: string; path: string; why: string }, check: string, statuses: unknown[]) =>
    lines.push(
      `# ${e.why}`,
      '[[operations]]',
      // By name ("GET /v1/ws"): schemathesis ORs separate include-path and include-method filters.
      `include-name = ${JSON.stringify(`${e.method} ${e.path}`)}`,
      `checks.${check}.expected-statuses = ${JSON.stringify(statuses)}`,
      '',
    );
  for (const e of positiveDataExceptions) section(e, 'positive_data_acceptance', [...accepted, ...e.also]);
  for (const e of negativeDataExceptions) section(e, 'negative_data_rejection', [...rejected, ...e.also]);
  for (const e of serverErrorExceptions) section(e, 'not_a_server_error', [...notServerErrors, ...e.also]);
  return lines.join('\n');
}

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

const positiveInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

/**
 * Runs `st`, echoing its output line by line (without its pytest-style banners: echoLine); stops
 * it (SIGTERM, then SIGKILL) after `timeoutMs`.
 */
function runSchemathesis(
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ status: number; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const chunks: string[] = [];
    const st = spawn(schemathesisBin(), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`\nfuzz: still running after ${timeoutMs / 1000}s (FUZZ_TIMEOUT): stopping schemathesis`);
      st.kill('SIGTERM');
      setTimeout(() => st.kill('SIGKILL'), 10_000).unref();
    }, timeoutMs);
    for (const stream of [st.stdout, st.stderr]) {
      stream.setEncoding('utf8'); // a character split between two chunks stays whole
      stream.on('data', (c: string) => chunks.push(c));
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        const echoed = echoLine(line);
        if (echoed !== null) process.stdout.write(`${echoed}\n`);
      });
    }
    st.on('error', (err) => chunks.push(String(err)));
    st.on('close', (exit) => {
      clearTimeout(timer);
      resolve({ status: timedOut ? 124 : (exit ?? 1), output: chunks.join(''), timedOut });
    });
  });
}

/** The requests the API in this process served (the fuzz's own stack). */
async function requestsServed(): Promise<Served> {
  return served(
    (await httpRequestDuration.get()).values
      .filter((v) => v.metricName === 'payments_http_request_duration_seconds_count')
      .map((v) => ({ route: String(v.labels.route), status: String(v.labels.status), value: v.value })),
  );
}

/** What the fuzz runs against: an API, a merchant's Authorization header, its request counts. */
export interface FuzzTarget {
  baseUrl: string;
  authorization: string;
  requestsServed(): Promise<Served>;
}

/** Limits off: the fuzzer checks contracts, not throttling, and sends far more than a client would. */
export const FUZZ_LIMITS_OFF = {
  RATE_LIMIT_PER_MINUTE: '0',
  RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '0',
  CHECKOUT_REQUESTS_PER_MINUTE: '0',
  CHECKOUT_ANSWERS_PER_MINUTE: '0',
  OPERATOR_CALLBACKS_PER_MINUTE: '0',
};

/**
 * schemathesis against `target` at FUZZ_MAX_EXAMPLES, FUZZ_SEED, FUZZ_TIMEOUT; writes the result to
 * bench-results/fuzz-<time>.json (and .log); its exit status. `extra`: more `st run` arguments.
 */
export async function fuzz(target: FuzzTarget, extra: string[] = [], started = Date.now()): Promise<number> {
  const maxExamples = positiveInt('FUZZ_MAX_EXAMPLES', 100);
  const seed = positiveInt('FUZZ_SEED', 1);
  const timeoutS = positiveInt('FUZZ_TIMEOUT', 1200);
  const dir = mkdtempSync(join(tmpdir(), 'momo-fuzz-st-'));
  try {
    writeFileSync(join(dir, 'schemathesis.toml'), config());
    const options = [
      '--checks',
      'all',
      '--max-examples',
      String(maxExamples),
      '--seed',
      String(seed),
      // One worker: the same requests in the same order every run (two gain little on 2 cores).
      '--workers',
      '1',
      '--generation-database',
      'none',
      '--request-timeout',
      String(REQUEST_TIMEOUT_S),
      '--no-color',
      ...extra,
    ];
    const args = [
      '--config-file',
      join(dir, 'schemathesis.toml'),
      'run',
      `${target.baseUrl}/openapi.json`,
      '--url',
      target.baseUrl,
      '--header',
      `Authorization: ${target.authorization}`,
      ...options,
    ];
    const stStarted = Date.now();
    const { status, output, timedOut } = await runSchemathesis(args, dir, timeoutS * 1000);
    const seconds = (ms: number) => Math.round(ms / 100) / 10;
    // schemathesis 4 ends with a summary such as "Test cases: 812 generated, 812 passed".
    const generated = Number(/Test cases:\s*(\d+) generated/.exec(output)?.[1] ?? NaN);
    const served = await target.requestsServed();
    const at = new Date().toISOString();
    const result = {
      at,
      status,
      timedOut,
      generatedTestCases: generated,
      requestsServed: served.total,
      requestsByStatus: served.byStatus,
      schemathesisSeconds: seconds(Date.now() - stStarted),
      wallSeconds: seconds(Date.now() - started),
      options, // never the credentials
    };
    mkdirSync(join(repoRoot, 'bench-results'), { recursive: true });
    const out = join(repoRoot, 'bench-results', `fuzz-${at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(out.replace(/\.json$/, '.log'), output);
    console.log(
      `\nfuzz: ${generated} generated test cases, ${served.total} requests served ` +
        `(${JSON.stringify(served.byStatus)}) in ${result.schemathesisSeconds}s ` +
        `(${result.wallSeconds}s with the stack), exit ${status}; written ${out}`,
    );
    return status;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm run fuzz`: the fuzz on a stack of its own (`npm run test:sdks -- --fuzz` runs it on theirs). */
async function main(): Promise<number> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'momo-fuzz-'));
  const port = await freePort();
  const ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port });
  // The test stack helper reads these (normally set by jest's global setup).
  process.env.TEST_MONGODB_URL = `mongodb://127.0.0.1:${port}`;
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(repoRoot, 'workflows/index.ts'),
    failureConverterPath,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  process.env.TEST_WORKFLOW_BUNDLE = join(dir, 'workflow-bundle.js');
  writeFileSync(process.env.TEST_WORKFLOW_BUNDLE, code);
  const stack = await startStack(FUZZ_LIMITS_OFF);
  try {
    const merchant = await createTestMerchant(stack, 'Fuzz merchant');
    return await fuzz(
      { baseUrl: stack.baseUrl, authorization: basic(merchant.credentials), requestsServed },
      process.argv.slice(2),
      started,
    );
  } finally {
    await stack.stop();
    await ferret.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(
    (status) => process.exit(status),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
