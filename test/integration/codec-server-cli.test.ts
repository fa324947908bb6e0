import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { parseKeyRing } from '../../src/security/key-ring';
import { dataConverter, EncryptionCodec } from '../../src/temporal/codec';
import { startCodecServer, type RunningCodecServer } from '../../src/api/codec-server';
import { freePort, startTemporalDevServer, type LocalServer } from '../../src/infra/local-servers';
import { temporalCliPath } from '../../src/infra/tools';

// The `temporal` CLI (the version the project runs) reads sealed histories through the codec
// server with `--codec-endpoint` and `--codec-auth 'Bearer …'`, as docs/operations.md tells ops;
// without them, or with a wrong token, it shows no personal data.

const run = promisify(execFile);

describe('temporal CLI through the codec server', () => {
  let dir: string;
  let server: LocalServer;
  let connection: Connection;
  let codecServer: RunningCodecServer;
  let address: string;
  const token = 'c'.repeat(48);
  const ring = parseKeyRing(`k9:${'09'.repeat(32)}`);
  const workflowId = `codec-cli-${Date.now()}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'momo-codec-cli-'));
    const port = await freePort();
    server = await startTemporalDevServer({
      dataDir: dir,
      port,
      uiPort: await freePort(),
      namespace: 'default',
    });
    address = `127.0.0.1:${port}`;
    connection = await Connection.connect({ address });
    codecServer = await startCodecServer({
      codec: new EncryptionCodec(ring),
      tokens: [token],
      origins: [],
      openToLoopback: false,
      host: '127.0.0.1',
      port: 0,
    });
    // A workflow no worker runs: its sealed input is in its first event.
    const client = new Client({ connection, dataConverter: dataConverter(ring) });
    await client.workflow.start('payinWorkflow', {
      taskQueue: 'nobody-polls',
      workflowId,
      args: [{ collection: { msisdn: '+2250500000077' } }],
    });
  }, 120_000);
  afterAll(async () => {
    await connection?.close();
    await codecServer?.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const show = (...extra: string[]) =>
    run(temporalCliPath(), [
      'workflow',
      'show',
      '--address',
      address,
      '--workflow-id',
      workflowId,
      '--output',
      'json',
      ...extra,
    ]).then(
      (r) => ({ ok: true, out: r.stdout + r.stderr }),
      (err: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${err.stdout}${err.stderr}` }),
    );

  /** The start event's input as the CLI printed it: its encoding and its data, base64 read. */
  const input = (out: string) => {
    const history = JSON.parse(out) as {
      events: {
        workflowExecutionStartedEventAttributes?: {
          input: { payloads: { metadata: Record<string, string>; data: string }[] };
        };
      }[];
    };
    const p = history.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!;
    const text = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('utf8');
    return { encoding: text(p.metadata.encoding), data: text(p.data) };
  };

  it('shows the payload in clear with the endpoint and a token', async () => {
    const r = await show('--codec-endpoint', codecServer.url, '--codec-auth', `Bearer ${token}`);
    expect(r.ok).toBe(true);
    expect(input(r.out)).toEqual({ encoding: 'json/plain', data: expect.stringContaining('+2250500000077') });
  });

  it('shows it sealed without the codec server, and refuses a wrong token', async () => {
    const plain = await show();
    expect(plain.ok).toBe(true);
    expect(input(plain.out).encoding).toBe('binary/encrypted');
    expect(input(plain.out).data).not.toContain('+2250500000077');
    const wrong = await show('--codec-endpoint', codecServer.url, '--codec-auth', `Bearer ${'x'.repeat(48)}`);
    expect(wrong.out).not.toContain('+2250500000077');
    // The CLI retries the refused decoding until its deadline, then fails: nothing shown.
    expect(wrong.ok).toBe(false);
  }, 60_000);
});
