import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadConfig,
  ConfigError,
  devOperatorCallbackSecrets,
  devPayloadCodecKeys,
  devDataEncryptionKeys,
  codecServerRefusals,
} from '../../src/config';

describe('configuration', () => {
  it('applies documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'payments',
      PAYIN_EXPIRY: 900_000,
    });
    expect(c.REFUND_WINDOW).toBe(7 * 86_400_000);
  });

  it('names each bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc', PAYIN_EXPIRY: 'soon', MONGODB_URI: 'not a url' })).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ PORT: 'abc', PAYIN_EXPIRY: 'soon' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT:/);
      expect((err as Error).message).toMatch(/PAYIN_EXPIRY: a duration/);
    }
  });
});

describe('production refusals', () => {
  // What a deployment sets (docker-compose.yml and .env.example); each test breaks one thing.
  const production = {
    NODE_ENV: 'production',
    OPERATOR_BASE_URL: 'https://operators.example.com',
    OPERATOR_ROUTES: '{"*":"pawapay","WAVE_CI":"wave"}',
    PUBLIC_BASE_URL: 'https://pay.example.com',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
    OPERATOR_CALLBACK_SECRETS: JSON.stringify({
      ORANGE: 'prod-orange-8b1f0c7e5a2d4f96',
      MTN: 'prod-mtn-3c9e1a7b5d2f8046',
      MOOV: 'prod-moov-6a4d2e8c1b9f7035',
      WAVE: 'prod-wave-0f7b3d9a5c1e8264',
    }),
    PAYLOAD_CODEC_KEYS: `k2:${'ab'.repeat(32)},k1:${'cd'.repeat(32)}`,
    DATA_ENCRYPTION_KEYS: `d1:${Buffer.alloc(32, 7).toString('base64')}`,
  };

  function refusal(env: NodeJS.ProcessEnv): string {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('loadConfig accepted the configuration');
  }

  it('accepts a complete production configuration', () => {
    const c = loadConfig(production);
    expect(c.NODE_ENV).toBe('production');
    expect(c.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
  });

  it('refuses unset operator callback secrets (the development defaults would apply)', () => {
    const { OPERATOR_CALLBACK_SECRETS: _unset, ...env } = production;
    expect(refusal(env)).toMatch(/OPERATOR_CALLBACK_SECRETS: required in production/);
  });

  it('refuses the development operator callback secrets, all of them or one', () => {
    expect(
      refusal({ ...production, OPERATOR_CALLBACK_SECRETS: JSON.stringify(devOperatorCallbackSecrets) }),
    ).toMatch(/OPERATOR_CALLBACK_SECRETS: .*development secret.* ORANGE, MTN, MOOV, WAVE/);
    const oneDev = {
      ...JSON.parse(production.OPERATOR_CALLBACK_SECRETS),
      MTN: devOperatorCallbackSecrets.MTN,
    };
    const message = refusal({ ...production, OPERATOR_CALLBACK_SECRETS: JSON.stringify(oneDev) });
    expect(message).toMatch(/OPERATOR_CALLBACK_SECRETS: .*development secret.* MTN/);
    expect(message).not.toMatch(/ORANGE|MOOV|WAVE/);
    // A development secret under another operator's name is still a published secret.
    const moved = {
      ...JSON.parse(production.OPERATOR_CALLBACK_SECRETS),
      WAVE: devOperatorCallbackSecrets.ORANGE,
    };
    expect(refusal({ ...production, OPERATOR_CALLBACK_SECRETS: JSON.stringify(moved) })).toMatch(/WAVE/);
  });

  it('refuses to start without an operator URL', () => {
    const { OPERATOR_BASE_URL: _unset, ...env } = production;
    expect(refusal(env)).toMatch(/OPERATOR_BASE_URL: required in production/);
  });

  it('refuses to start without live routes', () => {
    const { OPERATOR_ROUTES: _unset, ...env } = production;
    expect(refusal(env)).toMatch(/OPERATOR_ROUTES: required in production/);
  });

  it('refuses webhooks allowed to private networks or loopback', () => {
    for (const value of ['true', '1', 'loopback'])
      expect(refusal({ ...production, WEBHOOK_ALLOW_PRIVATE_NETWORKS: value })).toMatch(
        /WEBHOOK_ALLOW_PRIVATE_NETWORKS: must be false in production/,
      );
  });

  it('refuses to start without a public base URL', () => {
    const { PUBLIC_BASE_URL: _unset, ...env } = production;
    expect(refusal(env)).toMatch(/PUBLIC_BASE_URL: required in production/);
  });

  it.each(['PAYLOAD_CODEC_KEYS', 'DATA_ENCRYPTION_KEYS'] as const)(
    'refuses %s unset, or holding a published development key under any id',
    (name) => {
      const { [name]: _unset, ...env } = production;
      expect(refusal(env)).toMatch(new RegExp(`${name}: required in production`));
      const dev = name === 'PAYLOAD_CODEC_KEYS' ? devPayloadCodecKeys : devDataEncryptionKeys;
      const renamed = `mine:${dev.split(':')[1]}`;
      expect(refusal({ ...production, [name]: `${production[name]},${renamed}` })).toMatch(
        new RegExp(`${name}: a published development key`),
      );
    },
  );

  it('reads key rings from files (the file wins) and validates them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    const file = join(dir, 'codec.keys');
    writeFileSync(file, `# newest first\nfile2:${'ef'.repeat(32)}\n\nfile1:${'12'.repeat(32)}\n`);
    const c = loadConfig({ ...production, PAYLOAD_CODEC_KEYS_FILE: file });
    expect(c.PAYLOAD_CODEC_KEYS.kids).toEqual(['file2', 'file1']);
    expect(c.PAYLOAD_CODEC_KEYS.current).toBe('file2');
    writeFileSync(file, 'short:abcd');
    expect(refusal({ ...production, PAYLOAD_CODEC_KEYS_FILE: file })).toMatch(
      /PAYLOAD_CODEC_KEYS: key "short": 32 bytes/,
    );
    expect(refusal({ ...production, PAYLOAD_CODEC_KEYS_FILE: join(dir, 'missing') })).toMatch(/ENOENT/);
  });

  it('names every refusal at once', () => {
    const message = refusal({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    for (const name of [
      'OPERATOR_CALLBACK_SECRETS',
      'OPERATOR_BASE_URL',
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
      'PUBLIC_BASE_URL',
      'PAYLOAD_CODEC_KEYS',
      'DATA_ENCRYPTION_KEYS',
    ])
      expect(message).toContain(`${name}:`);
  });

  it('lets webhooks reach loopback by default in development only (npm start and a laptop receiver)', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe('loopback');
    expect(loadConfig({ NODE_ENV: 'development' }).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe('loopback');
    expect(loadConfig({ NODE_ENV: 'test' }).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
    const { WEBHOOK_ALLOW_PRIVATE_NETWORKS: _unset, ...unset } = production;
    expect(loadConfig(unset).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' })).toMatchObject({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: false,
    });
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'loopback' })).toMatchObject({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'loopback',
    });
  });

  it.each(['development', 'test'])('keeps the development defaults working with NODE_ENV=%s', (nodeEnv) => {
    const c = loadConfig({ NODE_ENV: nodeEnv, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(c.OPERATOR_CALLBACK_SECRETS).toEqual(devOperatorCallbackSecrets);
    expect(c.OPERATOR_BASE_URL).toBeUndefined();
  });
});

describe('production entry points', () => {
  // The processes themselves, not only loadConfig: each stops before connecting to anything.
  const root = resolve(__dirname, '../..');
  const run = (args: string[]) =>
    spawnSync(process.execPath, args, {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      // Only what a misconfigured deployment would have: production, nothing else.
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
  const tsx = ['--import', 'tsx'];

  it.each([
    ['the API', [...tsx, 'src/main/api.ts']],
    ['the worker', [...tsx, 'src/main/worker.ts']],
    ['the CLI', ['bin/payments.js', 'merchants', 'list']],
  ])(
    '%s refuses to start, naming each variable',
    (_name, args) => {
      const out = run(args);
      expect(out.status).toBe(1);
      for (const name of [
        'OPERATOR_CALLBACK_SECRETS',
        'OPERATOR_BASE_URL',
        'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
        'PUBLIC_BASE_URL',
      ])
        expect(out.stderr).toContain(name);
    },
    90_000,
  );
});

describe('codec server settings (src/main/codec-server.ts)', () => {
  const production = {
    NODE_ENV: 'production',
    PAYLOAD_CODEC_KEYS: `k2:${'ab'.repeat(32)}`,
    CODEC_SERVER_TOKENS: `${'t'.repeat(40)},${'u'.repeat(40)}`,
  };

  it('needs only its own settings in production: codec keys and tokens', () => {
    const c = loadConfig(production, codecServerRefusals);
    expect(c.CODEC_SERVER_TOKENS).toEqual(['t'.repeat(40), 'u'.repeat(40)]);
  });

  it('refuses to start in production without tokens, or with the development codec keys', () => {
    const { CODEC_SERVER_TOKENS: _unset, ...noTokens } = production;
    expect(() => loadConfig(noTokens, codecServerRefusals)).toThrow(
      /CODEC_SERVER_TOKENS: required in production/,
    );
    expect(() =>
      loadConfig({ ...production, PAYLOAD_CODEC_KEYS: devPayloadCodecKeys }, codecServerRefusals),
    ).toThrow(/PAYLOAD_CODEC_KEYS: a published development key/);
    // Development: tokens optional (the embedded UI on loopback needs none).
    expect(loadConfig({ NODE_ENV: 'development' }, codecServerRefusals).CODEC_SERVER_TOKENS).toBeUndefined();
  });

  it('refuses short tokens without echoing them, and takes origins as origins', () => {
    expect(() => loadConfig({ CODEC_SERVER_TOKENS: 'short-secret-value' })).toThrow(
      /CODEC_SERVER_TOKENS\.0: each token at least 32 characters/,
    );
    try {
      loadConfig({ CODEC_SERVER_TOKENS: 'short-secret-value' });
    } catch (err) {
      expect((err as Error).message).not.toContain('short-secret-value');
    }
    const c = loadConfig({ CODEC_SERVER_ORIGINS: 'https://ui.example/, http://127.0.0.1:8233' });
    expect(c.CODEC_SERVER_ORIGINS).toEqual(['https://ui.example', 'http://127.0.0.1:8233']);
  });

  it('the entry point refuses to start in production without tokens, naming only its own settings', () => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/codec-server.ts'], {
      cwd: resolve(__dirname, '../..'),
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('CODEC_SERVER_TOKENS');
    expect(out.stderr).toContain('PAYLOAD_CODEC_KEYS');
    expect(out.stderr).not.toContain('OPERATOR_BASE_URL');
  }, 90_000);
});
