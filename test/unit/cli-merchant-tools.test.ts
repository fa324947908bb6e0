import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { deriveListenSecret, describeAnswer, parseEventFilter } from '../../src/cli/webhooks-listen';

// The CLI as a user meets it without any server: `help <group> <command>`, and what
// `webhooks listen` says before it reaches the API.
const bin = join(__dirname, '../../bin/payments.js');

function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NODE_ENV: 'test', API_KEY: '', API_CLIENT: '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('payments help', () => {
  it("`help merchants create` prints the command's help, not its group's", async () => {
    const [command, viaFlag, group] = await Promise.all([
      cli(['help', 'merchants', 'create']),
      cli(['merchants', 'create', '--help']),
      cli(['help', 'merchants']),
    ]);
    expect(command).toMatchObject({ code: 0, stderr: '' });
    expect(command.stdout).toMatch(/^Usage: payments merchants create \[options\]/);
    expect(command.stdout).toContain('--name <name>');
    expect(command.stdout).toBe(viaFlag.stdout);
    expect(group.stdout).toMatch(/^Usage: payments merchants \[options\] \[command\]/);
  }, 60_000);

  it('names the unknown command and lists the known ones', async () => {
    const r = await cli(['help', 'merchants', 'explode']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: unknown command "merchants explode"; commands of merchants: create, list, suspend, reactivate, configure\n',
    );
  }, 60_000);
});

describe('payments webhooks listen, before the API', () => {
  it('says which setting is missing or wrong, in one line', async () => {
    const [noKeys, badEvents, unreachable, badSecret] = await Promise.all([
      cli(['webhooks', 'listen', '--forward-to', 'http://localhost:8000/hook']),
      cli(
        [
          'webhooks',
          'listen',
          '--forward-to',
          'http://localhost:8000/hook',
          '--events',
          'payin.completed,payin.done',
        ],
        {
          API_KEY: 'mk_test_a',
          API_CLIENT: 'sk_test_b',
        },
      ),
      cli(
        [
          'webhooks',
          'listen',
          '--forward-to',
          'http://localhost:8000/hook',
          '--api-url',
          'http://127.0.0.1:1',
        ],
        {
          API_KEY: 'mk_test_a',
          API_CLIENT: 'sk_test_b',
        },
      ),
      cli(['webhooks', 'listen', '--forward-to', 'http://localhost:8000/hook', '--secret', 'nope'], {
        API_KEY: 'mk_test_a',
        API_CLIENT: 'sk_test_b',
      }),
    ]);
    expect(noKeys).toMatchObject({ code: 1, stdout: '' });
    expect(noKeys.stderr).toMatch(/^error: an API key pair is needed: set API_KEY and API_CLIENT/);
    expect(badEvents.stderr).toMatch(
      /^error: unknown event type "payin.done" in --events; one of: payin.completed, /,
    );
    expect(unreachable.stderr).toBe(
      'error: cannot reach the API at http://127.0.0.1:1 (ECONNREFUSED); is `npm start` running, or --api-url (API_URL) set?\n',
    );
    expect(badSecret.stderr).toMatch(/^error: --secret must be a Standard Webhooks secret/);
    for (const r of [noKeys, badEvents, unreachable, badSecret]) expect(r.code).toBe(1);
  }, 60_000);

  it('derives the same signing secret from the same key pair, usable by standardwebhooks', () => {
    const secret = deriveListenSecret('mk_test_a', 'sk_test_b');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(deriveListenSecret('mk_test_a', 'sk_test_b')).toBe(secret);
    expect(deriveListenSecret('mk_test_a', 'sk_test_c')).not.toBe(secret);
    const wh = new Webhook(secret);
    const at = new Date();
    const signature = wh.sign('evt_1', at, '{}');
    expect(
      wh.verify('{}', {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      }),
    ).toEqual({});
  });

  it('reads the event filter and words the answers', () => {
    expect(parseEventFilter(' payin.completed, refund.completed ')).toEqual([
      'payin.completed',
      'refund.completed',
    ]);
    expect(() => parseEventFilter(',')).toThrow(/unknown event type/);
    expect(describeAnswer({ statusCode: 204, latencyMs: 12, error: null, retryAfterMs: null })).toBe(
      '[204] (12 ms)',
    );
    expect(
      describeAnswer({ statusCode: null, latencyMs: 3, error: 'connection refused', retryAfterMs: null }),
    ).toBe('[failed: connection refused] (3 ms)');
  });
});
