import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { freePort } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';
import { configSchema } from '../../src/config';
import { EncryptionCodec } from '../../src/temporal/codec';

// `npm start` (src/main/embedded.ts) as a user runs it, on free ports: its Temporal dev server's UI
// is given the codec server's URL, and the UI's origin (the browser) decodes with no token, so ops
// still read histories in clear in development. The external MongoDB of the test run stands in
// for the embedded FerretDB.

describe('npm start: the embedded UI decodes through the codec server', () => {
  let proc: ChildProcess;
  let dir: string;
  let output = '';
  const ports = { ui: 0, codec: 0 };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'momo-embedded-'));
    ports.ui = await freePort();
    ports.codec = await freePort();
    proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/embedded.ts'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        DATA_DIR: dir,
        MONGODB_URI: `${process.env.TEST_MONGODB_URL}/embedded_${Date.now()}`,
        PORT: String(await freePort()),
        EMBEDDED_TEMPORAL_PORT: String(await freePort()),
        EMBEDDED_TEMPORAL_UI_PORT: String(ports.ui),
        EMBEDDED_SIMULATOR_PORT: String(await freePort()),
        CODEC_SERVER_PORT: String(ports.codec),
        TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not start:\n${output}`)), 110_000);
      const check = setInterval(() => {
        if (output.includes('momo-payments is running')) {
          clearInterval(check);
          clearTimeout(timer);
          resolve();
        }
      }, 200);
      proc.once('exit', (code) => {
        clearInterval(check);
        clearTimeout(timer);
        reject(new Error(`npm start exited (${code}):\n${output}`));
      });
    });
  }, 120_000);

  afterAll(async () => {
    if (proc && proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('prints the codec server and gives the UI its URL', async () => {
    const codecUrl = `http://127.0.0.1:${ports.codec}`;
    expect(output).toContain(`Codec server ${codecUrl}`);
    const settings = (await (await fetch(`http://127.0.0.1:${ports.ui}/api/v1/settings`)).json()) as {
      Codec: { Endpoint: string };
    };
    expect(settings.Codec.Endpoint).toBe(codecUrl);
  });

  it("answers the UI origin's preflight and decodes its request with no token", async () => {
    const origin = `http://127.0.0.1:${ports.ui}`;
    const preflight = await fetch(`http://127.0.0.1:${ports.codec}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);

    // A payload as the worker of this `npm start` seals it (the development keys).
    const codec = new EncryptionCodec(configSchema.parse({}).PAYLOAD_CODEC_KEYS);
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload({ msisdn: '+2250500000001' })]);
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(sealed!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(sealed!.data!).toString('base64'),
        },
      ],
    });
    const post = (from: string) =>
      fetch(`http://127.0.0.1:${ports.codec}/decode`, {
        method: 'POST',
        headers: { origin: from, 'content-type': 'application/json', 'x-namespace': 'default' },
        body,
      });
    const res = await post(origin);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    const out = (await res.json()) as { payloads: { data: string }[] };
    expect(Buffer.from(out.payloads[0]!.data, 'base64').toString()).toContain('+2250500000001');
    // A page of another site, in the same browser, gets nothing.
    expect((await post('https://evil.example')).status).toBe(401);
  });
});
