import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';
import { startEmbedded, type EmbeddedStack } from '../helpers/embedded';
import { rawRequest } from '../helpers/http';

// The quick start as a newcomer runs it: `npm start` (src/main/embedded.ts, on free ports, the test
// run's MongoDB standing in for the embedded FerretDB), then `bash scripts/quickstart.sh` with only
// the API's URL and MongoDB's. Then every curl line it printed, pasted into bash.

describe('scripts/quickstart.sh against npm start', () => {
  let embedded: EmbeddedStack;
  let apiUrl = '';
  const mongoUri = `${process.env.TEST_MONGODB_URL}/quickstart_${Date.now()}`;
  // A newcomer's shell: no NODE_ENV (jest sets `test`), nothing of the test run's settings.
  const { NODE_ENV: _jest, ...shell } = process.env;

  beforeAll(async () => {
    const port = await freePort();
    apiUrl = `http://localhost:${port}`;
    embedded = await startEmbedded(shell, { MONGODB_URI: mongoUri }, { PORT: port });
  }, 120_000);

  afterAll(() => embedded?.stop(), 30_000);

  const run = (script: string, env: NodeJS.ProcessEnv = {}) =>
    spawnSync('bash', ['-c', script], {
      cwd: repoRoot,
      env: { ...shell, ...env },
      encoding: 'utf8',
      timeout: 90_000,
    });

  // One run of the script for the file: each takes seconds (the CLI's start, the payin's round trip).
  let once: ReturnType<typeof run> | undefined;
  const quickstartOnce = () =>
    (once ??= run('bash scripts/quickstart.sh', { API_URL: apiUrl, MONGODB_URI: mongoUri }));

  it('makes a payin, receives its verified webhook, and prints curl lines that answer 2xx', () => {
    const quickstart = quickstartOnce();
    const out = `${quickstart.stdout}\n${quickstart.stderr}`;
    expect([quickstart.status, out]).toEqual([0, expect.any(String)]);
    expect(quickstart.stdout).toContain('final status: success');
    expect(quickstart.stdout).toMatch(
      /webhook verified: payin\.completed evt_\S+ reference=quickstart-\d+ status=success/,
    );
    expect(quickstart.stdout).not.toContain('REFUSED');

    // The printed block, pasted into a shell: every curl line answers 2xx.
    const block = /# --- 8< ---\n([\s\S]*?)# --- >8 ---/.exec(quickstart.stdout)?.[1] ?? '';
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    const curls = lines.filter((l) => l.startsWith('curl '));
    expect(curls.length).toBeGreaterThanOrEqual(3);
    expect(curls.every((l) => l.includes('-u "$API_KEY:$API_CLIENT"'))).toBe(true);
    const pasted = [
      'set -euo pipefail',
      ...lines.map((l) => (l.startsWith('curl ') ? `${l} -o /dev/null -w '%{http_code}\\n'` : l)),
    ].join('\n');
    const result = run(pasted);
    expect([result.status, result.stderr]).toEqual([0, '']);
    const codes = result.stdout.trim().split('\n');
    expect(codes).toHaveLength(curls.length);
    for (const code of codes) expect(code).toMatch(/^2\d\d$/);
  }, 120_000);

  it("runs the README quick start's payin as pasted, with the keys the script exported", () => {
    const quickstart = quickstartOnce();
    expect(quickstart.status).toBe(0);
    const exports = quickstart.stdout.split('\n').filter((l) => l.startsWith('export API_'));
    expect(exports).toHaveLength(2);
    // The quick start's runnable blocks: those not marked `<!-- example: skip -->`.
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('### Production entry points'),
    );
    const blocks = [...section.matchAll(/(<!-- example: skip -->\n)?( *)```sh\n([\s\S]*?)\n *```/g)]
      .filter((m) => !m[1])
      .map((m) => m[3]!.replace(new RegExp(`^${m[2]}`, 'gm'), ''));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).not.toMatch(/uuidgen|base64/);
    const pasted = run(
      ['set -euo pipefail', ...exports, blocks[0]!.replaceAll('http://localhost:3000', apiUrl)].join('\n'),
    );
    expect([pasted.status, pasted.stderr]).toEqual([0, '']);
    const [created, read] = pasted.stdout.split(/(?<=\})(?=\{)/).map((t) => JSON.parse(t));
    expect(created).toMatchObject({ reference: expect.stringMatching(/^order-/), status: 'processing' });
    expect(read).toMatchObject({ reference: created.reference });
  }, 120_000);

  it('answers a header split by base64 wrapping with a problem document, not a bare 400', async () => {
    const token = Buffer.from(`mk_test_${'a'.repeat(24)}:sk_test_${'b'.repeat(43)}`).toString('base64');
    const res = await rawRequest(
      apiUrl,
      `GET /v1/payin/order-1001 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic ${token.slice(0, 76)}\n${token.slice(76)}\r\n\r\n`,
    );
    expect(res.status).toBe(400);
    expect(res.headers).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'MALFORMED_REQUEST', status: 400 });
  });

  it('tells where the API is not running', () => {
    const r = run('bash scripts/quickstart.sh', { API_URL: 'http://127.0.0.1:9', MONGODB_URI: mongoUri });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('npm start');
  });
});
