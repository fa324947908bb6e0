// npm run test:sdks: each SDK's suite (sdk/<lang>/run-tests.sh) against the real stack started the
// way the README starts it (`npm start`: src/main/embedded.ts with its own FerretDB and Temporal dev
// server, on free ports, data in a temporary folder), each with a sandbox merchant the CLI creates
// and funds, and the fault proxy (test/sdk/fault-proxy.ts) in front of the API. docs/sdks.md.
// Prints one `sdk <lang>: N passed, F failed, S skipped (T s)` line per suite; exits 1 if one failed.
// `-- --fuzz` then runs the API fuzz (scripts/fuzz.ts, FUZZ_* settings) on the same stack, started
// with the fuzz's limits off (the SDK suites meet 429s through the fault proxy only), with a merchant
// of its own: CI starts one stack for both (issue 42). It needs `bash scripts/provision-fuzz`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../src/infra/local-servers';
import { echoLine } from './schemathesis-output';
import { startFaultProxy, type FaultProxy } from '../test/sdk/fault-proxy';
import { startEmbedded } from '../test/helpers/embedded';
import { basic } from '../test/helpers/http';
import { requestsServedFrom } from './fuzz-requests';

const root = join(__dirname, '..');
const languages = ['node', 'python', 'php'] as const;
type Language = (typeof languages)[number];

/** A suite's totals as its runner printed them. */
export interface SuiteTotals {
  passed: number;
  failed: number;
  skipped: number;
}

/**
 * The totals in a suite's output, from whichever runner printed them: jest's `Tests: … total` lines,
 * pytest's closing `N passed, M skipped in 3.2s`, PHPUnit's `OK (N tests, …)` or `Tests: N, …`.
 * Several runs in one output add up; null when no runner's total is there.
 */
export function suiteTotals(output: string): SuiteTotals | null {
  // eslint-disable-next-line no-control-regex
  const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split(/\r?\n/);
  const totals: SuiteTotals = { passed: 0, failed: 0, skipped: 0 };
  let found = false;
  const num = (line: string, re: RegExp) => Number(re.exec(line)?.[1] ?? 0);
  for (const line of lines) {
    if (/^Tests:\s+.*\d+ total/.test(line)) {
      // jest
      totals.passed += num(line, /(\d+) passed/);
      totals.failed += num(line, /(\d+) failed/);
      totals.skipped += num(line, /(\d+) skipped/) + num(line, /(\d+) todo/);
      found = true;
    } else if (
      /^=*\s*(\d+ (passed|failed|skipped|errors?|deselected|xfailed|xpassed),? ?)+.* in [\d.]+s/.test(line)
    ) {
      // pytest's closing line; an error (in a fixture or collection) is a failure here.
      totals.passed += num(line, /(\d+) passed/) + num(line, /(\d+) xpassed/);
      totals.failed += num(line, /(\d+) failed/) + num(line, /(\d+) errors?/);
      totals.skipped += num(line, /(\d+) skipped/) + num(line, /(\d+) xfailed/);
      found = true;
    } else if (/^OK \((\d+) tests?, /.test(line)) {
      // PHPUnit, all passed
      totals.passed += num(line, /^OK \((\d+) tests?/);
      found = true;
    } else if (/^Tests: \d+, Assertions: /.test(line)) {
      // PHPUnit with failures, errors, skipped or incomplete tests
      const tests = num(line, /^Tests: (\d+)/);
      const failed = num(line, /Failures: (\d+)/) + num(line, /Errors: (\d+)/);
      const skipped = num(line, /Skipped: (\d+)/) + num(line, /Incomplete: (\d+)/);
      totals.passed += tests - failed - skipped;
      totals.failed += failed;
      totals.skipped += skipped;
      found = true;
    }
  }
  return found ? totals : null;
}

const PYTEST_CLOSING =
  /^=*\s*(\d+ (?:passed|failed|skipped|errors?|deselected|xfailed|xpassed|warnings?)\b.*?) in [\d.]+s\b.*$/;

/**
 * How a suite's output line is echoed. CI's result reader takes a pytest-style closing line ("12
 * passed in 3.2s", with or without its `=` rule) for the whole run's result and ignores .ci/run's
 * own total after it (scripts/schemathesis-output.ts), so those lines are echoed reworded; the totals
 * are in this script's `sdk <lang>:` line.
 */
export function echoSuiteLine(line: string): string | null {
  // eslint-disable-next-line no-control-regex
  const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
  const closing = PYTEST_CLOSING.exec(plain.trim());
  if (closing) return `── pytest: ${closing[1]!.replace(/^=+\s*/, '')} ──`;
  return echoLine(plain);
}

/** Echoes a stream line by line through echoSuiteLine, each line after `prefix`. */
function echoLines(out: NodeJS.WriteStream, prefix: string): { write(chunk: string): void; end(): void } {
  let pending = '';
  // Suites run side by side: each line says whose it is.
  const emit = (line: string) => {
    const echoed = echoSuiteLine(line);
    if (echoed !== null) out.write(`${prefix}${echoed}\n`);
  };
  return {
    write(chunk) {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) emit(line);
    },
    end() {
      if (pending) emit(pending);
      pending = '';
    },
  };
}

/** Runs a command to its end, its output shown as it comes (through echoSuiteLine) and returned. */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  prefix = '',
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const stdout = echoLines(process.stdout, prefix);
    const stderr = echoLines(process.stderr, prefix);
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      stdout.write(c.toString());
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
      stderr.write(c.toString());
    });
    child.on('error', (err) => resolve({ code: 127, output: `${output}\n${err.message}` }));
    child.on('close', (code) => {
      stdout.end();
      stderr.end();
      resolve({ code, output });
    });
  });
}

interface Stack {
  apiUrl: string;
  mongoUri: string;
  stop(): Promise<void>;
}

/**
 * `npm start`'s stack on free ports, in a user's environment (not pointed at any other server), as
 * the integration tests start it (test/helpers/embedded.ts). Its dashboard build step is left out:
 * the SDKs call the API only.
 */
async function startStack(settings: NodeJS.ProcessEnv = {}): Promise<Stack> {
  const provision = spawnSync('bash', ['scripts/provision', 'start'], { cwd: root, stdio: 'inherit' });
  if (provision.status !== 0) throw new Error('bash scripts/provision start failed');
  const port = await freePort();
  const mongoPort = await freePort();
  const { MONGODB_URI: _m, TEMPORAL_ADDRESS: _t, ...shell } = process.env;
  // A developer's machine: loopback webhook receivers are allowed (the suites run theirs there).
  const embedded = await startEmbedded(
    shell,
    { NODE_ENV: 'development', ...settings },
    { PORT: port, EMBEDDED_MONGODB_PORT: mongoPort },
    180_000,
  );
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    mongoUri: `mongodb://127.0.0.1:${mongoPort}/payments`,
    stop: () => embedded.stop(),
  };
}

/** The CLI as the README has a user run it; its --json answer. */
export function cli(args: string[], mongoUri: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['payments', ...args, '--json'], {
      cwd: root,
      env: { ...process.env, MONGODB_URI: mongoUri, NODE_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`npx payments ${args.join(' ')} failed:\n${stderr}`));
      try {
        resolve(JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        reject(new Error(`npx payments ${args.join(' ')} printed no JSON:\n${stdout}`));
      }
    });
  });
}

interface Merchant {
  merchantId: string;
  apiKey: string;
  apiClient: string;
}

/** A new merchant with its XOF and XAF test accounts funded, by one CLI call (each costs seconds). */
async function sandboxMerchant(lang: Language, mongoUri: string): Promise<Merchant> {
  const created = await cli(
    ['merchants', 'create', '--name', `SDK ${lang} tests`, '--fund', '100000000'],
    mongoUri,
  );
  return {
    merchantId: String(created.merchantId),
    apiKey: String(created.apiKey),
    apiClient: String(created.apiClient),
  };
}

async function main(): Promise<void> {
  // `npm run test:sdks -- python php` runs only those; no argument runs all three.
  const withFuzz = process.argv.includes('--fuzz');
  const asked = process.argv.slice(2).filter((a) => a !== '--fuzz');
  const unknown = asked.filter((a) => !(languages as readonly string[]).includes(a));
  if (unknown.length > 0)
    throw new Error(`test:sdks: no SDK named ${unknown.join(', ')} (${languages.join(', ')})`);
  const chosen = asked.length > 0 ? languages.filter((lang) => asked.includes(lang)) : [...languages];
  const present = chosen.filter((lang) => {
    if (existsSync(join(root, 'sdk', lang, 'run-tests.sh'))) return true;
    console.error(`\n!!!!! sdk ${lang}: SKIPPED, there is no sdk/${lang}/run-tests.sh !!!!!\n`);
    return false;
  });
  if (present.length === 0 && !withFuzz) return;

  const started = Date.now();
  // Loaded only to fuzz: it brings the test stack's modules (its own `npm run fuzz` stack).
  const fuzzing = withFuzz ? await import('./fuzz') : null;
  const stack = await startStack(fuzzing ? fuzzing.FUZZ_LIMITS_OFF : {});
  const proxies: FaultProxy[] = [];
  const stopAll = async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await stack.stop();
  };
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results: { lang: Language | 'fuzz'; ok: boolean; line: string }[] = [];
  try {
    console.log(
      `test:sdks: the stack runs at ${stack.apiUrl} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
    // Each suite has a merchant and a fault proxy of its own, so the three run side by side (they
    // mostly wait on the stack's payins in real time).
    for (const _ of present) proxies.push(await startFaultProxy(stack.apiUrl));
    const t = Date.now();
    // The fuzz starts as soon as its own merchant exists (it needs no funds): the suites' merchants
    // are made meanwhile.
    const fuzzed = fuzzing
      ? (async () => {
          const fuzzMerchant = await cli(['merchants', 'create', '--name', 'Fuzz merchant'], stack.mongoUri);
          console.log('\ntest:sdks: the API fuzz (scripts/fuzz.ts) on the same stack, beside the suites');
          const t0 = Date.now();
          const status = await fuzzing.fuzz({
            baseUrl: stack.apiUrl,
            authorization: basic({
              apiKey: String(fuzzMerchant.apiKey),
              apiClient: String(fuzzMerchant.apiClient),
            }),
            requestsServed: await requestsServedFrom(stack.apiUrl),
          });
          const seconds = ((Date.now() - t0) / 1000).toFixed(1);
          return { lang: 'fuzz' as const, ok: status === 0, line: `fuzz: exit ${status} (${seconds} s)` };
        })()
      : null;
    const merchants = await Promise.all(present.map((lang) => sandboxMerchant(lang, stack.mongoUri)));
    console.log(
      `test:sdks: ${merchants.length} merchants created and funded by the CLI (${((Date.now() - t) / 1000).toFixed(0)} s)`,
    );
    const suites = present.map(async (lang, i) => {
      const merchant = merchants[i] as Merchant;
      console.log(`\ntest:sdks: sdk/${lang}/run-tests.sh (merchant ${merchant.merchantId})`);
      const t0 = Date.now();
      const { code, output } = await run(
        'bash',
        [`sdk/${lang}/run-tests.sh`],
        {
          ...process.env,
          MOMO_BASE_URL: stack.apiUrl,
          MOMO_API_KEY: merchant.apiKey,
          MOMO_API_CLIENT: merchant.apiClient,
          MOMO_MERCHANT_ID: merchant.merchantId,
          MOMO_FAULT_URL: proxies[i]!.url,
        },
        `[${lang}] `,
      );
      const seconds = ((Date.now() - t0) / 1000).toFixed(1);
      const totals = suiteTotals(output);
      const ok = code === 0;
      const counts = totals
        ? `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`
        : 'no test total found';
      return { lang, ok, line: `sdk ${lang}: ${counts} (${seconds} s, exit ${code})` };
    });
    results.push(...(await Promise.all(suites)));
    if (fuzzed) results.push(await fuzzed);
  } finally {
    const t = Date.now();
    await stopAll();
    console.log(`test:sdks: the stack stopped (${((Date.now() - t) / 1000).toFixed(0)} s)`);
  }
  console.log('');
  for (const r of results) console.log(r.line);
  console.log(`test:sdks: ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
  const failed = results.filter((r) => !r.ok).map((r) => r.lang);
  if (failed.length) {
    console.error(`test:sdks: FAILED: ${failed.join(', ')}`);
    process.exit(1);
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
