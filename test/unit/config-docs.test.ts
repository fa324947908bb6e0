import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configSchema, loadConfig } from '../../src/config';
import {
  composeVariables,
  configDocsPath,
  envExamplePath,
  settings,
} from '../../scripts/generate-config-docs';

// docs/configuration.md and .env.example are generated from the configuration schema
// (npm run generate:config); `npm run lint` runs the same comparison with --check.

const names = Object.keys(configSchema.in.shape);
const page = readFileSync(configDocsPath, 'utf8');
const example = readFileSync(envExamplePath, 'utf8');

describe('configuration documentation', () => {
  it('documents every variable of the schema in the schema itself', () => {
    expect(settings().map((s) => s.name)).toEqual(names);
    expect(settings().filter((s) => s.description.length < 10)).toEqual([]);
  });

  it('has a row for every variable in docs/configuration.md and a line in .env.example', () => {
    const rows = names.filter((n) => !new RegExp(`^\\| \`${n}\` +\\|`, 'm').test(page));
    const lines = names.filter((n) => !new RegExp(`^(# )?${n}=`, 'm').test(example));
    expect({ rows, lines }).toEqual({ rows: [], lines: [] });
    // MTN's per-country credentials, once named in schema comments only.
    expect(names.filter((n) => /^MTN_(CI|CM)_/.test(n))).toHaveLength(14);
  });

  it('is what the generator writes (npm run generate:config)', () => {
    // A child process: the generator formats the page with prettier, which jest's VM cannot load.
    const root = join(__dirname, '../..');
    const check = spawnSync(
      process.execPath,
      [join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/generate-config-docs.ts', '--check'],
      { cwd: root, encoding: 'utf8' },
    );
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
  }, 60_000);

  it('leaves every variable docker-compose.yml requires empty and uncommented in .env.example', () => {
    for (const name of composeVariables()) expect(example).toMatch(new RegExp(`^${name}=$`, 'm'));
  });

  it('marks "required" exactly the variables production refuses to start without', () => {
    const production: NodeJS.ProcessEnv = {
      NODE_ENV: 'production',
      OPERATOR_BASE_URL: 'https://operators.example.com',
      OPERATOR_ROUTES: '{"*":"pawapay"}',
      PUBLIC_BASE_URL: 'https://pay.example.com',
      OPERATOR_CALLBACK_SECRETS: JSON.stringify({
        ORANGE: 'prod-orange-8b1f0c7e5a2d4f96',
        MTN: 'prod-mtn-3c9e1a7b5d2f8046',
        MOOV: 'prod-moov-6a4d2e8c1b9f7035',
        WAVE: 'prod-wave-0f7b3d9a5c1e8264',
      }),
      PAYLOAD_CODEC_KEYS: `k1:${'ab'.repeat(32)}`,
      DATA_ENCRYPTION_KEYS: `d1:${'cd'.repeat(32)}`,
    };
    expect(loadConfig(production).NODE_ENV).toBe('production');
    const refusedWithout = names.filter((name) => {
      const { [name]: _unset, ...env } = production;
      try {
        loadConfig(env);
        return false;
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return true;
      }
    });
    const required = settings()
      .filter((s) => s.production?.startsWith('required') && !s.production.startsWith('required by'))
      .filter((s) => !s.production!.startsWith('required (API and worker)'))
      .map((s) => s.name);
    // NODE_ENV itself: without it, not production.
    expect(refusedWithout).toEqual(required);
  });
});
