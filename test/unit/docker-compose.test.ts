import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  root,
  read,
  compose,
  service,
  words,
  commandLine,
  env,
  dependsOn,
  publishedPorts,
  healthcheckText,
  allStrings,
  references,
  interpolate,
  exampleVars,
  sampleEnv,
  secretName,
} from '../helpers/compose';

// No Docker engine runs in CI, so the deployment files are checked structurally: this catches
// a renamed service, a missing dependency or an unescaped `$` before a user's `compose up` does.
// The Dockerfile and .dockerignore: dockerfile.test.ts.

const searchAttributes = [
  'MerchantId',
  'TransactionKind',
  'TransactionReference',
  'Provider',
  'TransactionStatus',
];
const appServices = ['api', 'worker'];

describe('docker-compose.yml', () => {
  it('defines the whole stack', () => {
    for (const name of [
      'mongodb',
      'temporal-db',
      'temporal',
      'temporal-setup',
      'temporal-ui',
      'api',
      'worker',
      'gateway',
    ]) {
      expect(compose.services).toHaveProperty([name]);
    }
  });

  it('runs MongoDB as a replica set that the health check initiates', () => {
    const mongodb = service('mongodb');
    const args = commandLine(mongodb).split(/\s+/);
    expect(args[args.indexOf('--replSet') + 1]).toBe('rs0');
    expect(args).toContain('--bind_ip_all');
    const check = healthcheckText(mongodb);
    expect(check).toContain('rs.initiate(');
    // The member must be addressable from the other containers under the service name.
    expect(check).toContain("_id:'rs0'");
    expect(check).toContain("host:'mongodb:27017'");
  });

  it('backs Temporal with its own Postgres and checks both are healthy', () => {
    const db = service('temporal-db');
    expect(db.image).toMatch(/^postgres:16/);
    expect(healthcheckText(db)).toContain('pg_isready');
    const temporal = service('temporal');
    expect(temporal.image).toMatch(/^temporalio\/auto-setup:1\.2\d\.\d+$/);
    expect(env(temporal)).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'temporal-db' });
    expect(dependsOn(temporal)).toEqual({ 'temporal-db': 'service_healthy' });
    expect(healthcheckText(temporal)).toMatch(/temporal operator cluster health|tctl/);
  });

  it.each(appServices)('%s builds from the repo and waits for its dependencies', (name) => {
    const svc = service(name);
    const context = typeof svc.build === 'string' ? svc.build : svc.build?.context;
    expect(context).toBe('.');
    expect(svc.deploy?.replicas).toBe(2);
    expect(dependsOn(svc)).toEqual({
      mongodb: 'service_healthy',
      temporal: 'service_healthy',
      'temporal-setup': 'service_completed_successfully',
    });
  });

  it('starts the API and the worker from the built output', () => {
    expect(words(service('api').command)).toEqual(['node', 'dist/src/main/api.js']);
    expect(words(service('worker').command)).toEqual(['node', 'dist/src/main/worker.js']);
  });

  it.each(appServices)('%s reaches MongoDB through the replica set and Temporal by service name', (name) => {
    const vars = env(service(name));
    const mongoUri = new URL(interpolate(vars.MONGODB_URI ?? '', sampleEnv));
    expect(mongoUri.host).toBe('mongodb:27017');
    expect(mongoUri.searchParams.get('replicaSet')).toBe('rs0');
    expect(vars).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'payments',
    });
  });

  it('gives only the API a PORT and a readiness health check', () => {
    expect(env(service('api')).PORT).toBe('3000');
    expect(healthcheckText(service('api'))).toContain('/health/ready');
    expect(env(service('worker'))).not.toHaveProperty('PORT');
  });

  it('registers every custom search attribute as a Keyword on the default namespace', () => {
    const setup = service('temporal-setup');
    expect(setup.image).toMatch(/^temporalio\/admin-tools:/);
    expect(dependsOn(setup)).toEqual({ temporal: 'service_healthy' });
    const script = commandLine(setup);
    expect(script).toContain('temporal operator search-attribute create');
    expect(script).toContain('--namespace default');
    expect(script).toContain('--address temporal:7233');
    // Re-running the job against an existing server must not fail.
    expect(script).toContain('already exists');
    for (const name of searchAttributes) expect(script).toMatch(new RegExp(`\\b${name}\\s+Keyword\\b`));
  });

  it('keeps the search attributes in step with the code that upserts them', () => {
    const source = read('workflows/shared/search-attributes.ts');
    for (const name of searchAttributes) expect(source).toMatch(new RegExp(`\\b${name}: 'Keyword'`));
  });

  it('publishes the gateway on 3000 and keeps the Temporal UI on the internal network', () => {
    expect(publishedPorts(service('gateway'))).toEqual(['3000']);
    expect(dependsOn(service('gateway'))).toEqual({ api: 'service_healthy' });
    expect(env(service('temporal-ui')).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(service('temporal-ui').ports ?? []).toEqual([]);
  });

  it("publishes no port but the gateway's (no database, Temporal frontend, UI or metrics)", () => {
    const published = Object.entries(compose.services)
      .filter(([, svc]) => (svc.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(published).toEqual(['gateway']);
    // `expose` only documents a port; a host mapping would need `ports`, so nothing else is reachable.
    for (const [name, svc] of Object.entries(compose.services)) {
      expect({ name, network_mode: (svc as { network_mode?: string }).network_mode }).toEqual({
        name,
        network_mode: undefined,
      });
    }
  });

  it('takes every secret from the env file, never a default or placeholder written here', () => {
    const inline: string[] = [];
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(env(svc))) {
        if (!secretName.test(key)) continue;
        // `${VAR:?message}`: Compose refuses to start when the env file lacks it.
        if (!/^\$\{\w+:\?[^}]*\}$/.test(value)) inline.push(`${name}.${key}=${value}`);
      }
    }
    expect(inline).toEqual([]);
    // No `${VAR:-default}` / `${VAR-default}` anywhere: a default would be a secret in the repo.
    const defaults = allStrings(compose).filter((s) => /\$\{\w+:?-/.test(s));
    expect(defaults).toEqual([]);
    // Nor the development callback secrets, in any form.
    expect(allStrings(compose).filter((s) => /dev-\w+-callback-secret/.test(s))).toEqual([]);
  });

  it('gives the api and worker a metrics token from the env file, so a scraper on the network can read /metrics', () => {
    for (const name of ['api', 'worker'])
      expect(env(service(name)).METRICS_TOKEN).toMatch(/^\$\{METRICS_TOKEN:\?[^}]*\}$/);
  });

  it('lists every variable it needs in .env.example, with no secret value in it', () => {
    const needed = new Set(allStrings(compose).flatMap(references));
    expect([...needed].filter((name) => !(name in exampleVars))).toEqual([]);
    for (const name of needed)
      if (secretName.test(name)) expect({ name, value: exampleVars[name] }).toEqual({ name, value: '' });
    // The README tells users to create the env file from the example.
    expect(read('README.md')).toContain('cp .env.example .env');
  });

  it('runs MongoDB with authentication: a root user from the env file, a key file, the app with its own credentials', () => {
    const mongodb = service('mongodb');
    const vars = env(mongodb);
    expect(references(vars.MONGO_INITDB_ROOT_USERNAME ?? '')).toHaveLength(1);
    expect(references(vars.MONGO_INITDB_ROOT_PASSWORD ?? '')).toHaveLength(1);
    // A replica set with access control needs a key file (internal authentication).
    expect(commandLine(mongodb)).toMatch(/--keyFile\s+\S+/);
    // The health check must log in to read the replica set's status.
    expect(healthcheckText(mongodb)).toMatch(/(-u|--username)\s+\S+/);
    expect(healthcheckText(mongodb)).toMatch(/(-p|--password)\s+\S+/);
    for (const name of appServices) {
      const raw = env(service(name)).MONGODB_URI ?? '';
      const uri = new URL(interpolate(raw, sampleEnv));
      expect(uri.username).not.toBe('');
      expect(uri.password).toBe(sampleEnv.MONGODB_APP_PASSWORD);
      expect(references(raw)).toContain('MONGODB_APP_PASSWORD');
    }
  });

  it.each(appServices)('%s runs with production settings', (name) => {
    const vars = env(service(name));
    expect(vars.NODE_ENV).toBe('production');
    expect(vars.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe('false');
    // Required from the env file: no default operator, public URL or callback secrets.
    for (const key of ['OPERATOR_BASE_URL', 'PUBLIC_BASE_URL', 'OPERATOR_CALLBACK_SECRETS'])
      expect({ key, value: vars[key] }).toEqual({
        key,
        value: expect.stringMatching(new RegExp(`^\\$\\{${key}:\\?[^}]+\\}$`)),
      });
  });

  it.each(appServices)(
    '%s seals payloads and stored secrets with keys from the env file, no default',
    (name) => {
      const vars = env(service(name));
      for (const key of ['PAYLOAD_CODEC_KEYS', 'DATA_ENCRYPTION_KEYS'])
        expect({ key, value: vars[key] }).toEqual({
          key,
          value: expect.stringMatching(new RegExp(`^\\$\\{${key}:\\?[^}]+\\}$`)),
        });
    },
  );

  it('runs the codec server on the internal network only, with the codec keys and tokens alone', () => {
    const codec = service('codec-server');
    const context = typeof codec.build === 'string' ? codec.build : codec.build?.context;
    expect(context).toBe('.');
    expect(words(codec.command)).toEqual(['node', 'dist/src/main/codec-server.js']);
    expect(codec.ports ?? []).toEqual([]);
    const vars = env(codec);
    expect(vars).toMatchObject({ NODE_ENV: 'production', CODEC_SERVER_HOST: '0.0.0.0' });
    for (const key of ['PAYLOAD_CODEC_KEYS', 'CODEC_SERVER_TOKENS'])
      expect(vars[key]).toMatch(new RegExp(`^\\$\\{${key}:\\?[^}]+\\}$`));
    // It needs nothing else: no database, no stored-secret keys, no operator secrets.
    for (const key of ['MONGODB_URI', 'DATA_ENCRYPTION_KEYS', 'OPERATOR_CALLBACK_SECRETS'])
      expect(vars).not.toHaveProperty(key);
    expect(healthcheckText(codec)).toContain(`127.0.0.1:${vars.CODEC_SERVER_PORT}/health`);
    // The app services never get the tokens.
    for (const name of appServices) expect(env(service(name))).not.toHaveProperty('CODEC_SERVER_TOKENS');
  });

  it('gives Temporal and its PostgreSQL the same password, from the env file', () => {
    const dbPassword = env(service('temporal-db')).POSTGRES_PASSWORD ?? '';
    expect(dbPassword).toMatch(/^\$\{\w+:\?[^}]+\}$/);
    expect(references(env(service('temporal')).POSTGRES_PWD ?? '')).toEqual(references(dbPassword));
  });

  it('does not pin a host port on a replicated service', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      if ((svc.deploy?.replicas ?? 1) > 1)
        expect({ name, ports: publishedPorts(svc) }).toEqual({ name, ports: [] });
    }
  });

  it('routes the gateway to the api service', () => {
    const mounts = service('gateway').configs ?? [];
    const names = mounts.map((c) => (typeof c === 'string' ? c : c.source));
    const contents = names.map((n) => String((compose.configs?.[n] as { content?: string }).content));
    expect(contents.join('\n')).toMatch(/proxy_pass\s+\S+/);
    expect(contents.join('\n')).toContain('http://api:3000');
    // Metrics stay on the internal network.
    expect(contents.join('\n')).toMatch(/location = \/metrics \{\s*return 404;/);
  });

  it('depends only on defined services', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const target of Object.keys(dependsOn(svc))) {
        expect({ service: name, dependsOn: target, defined: target in compose.services }).toEqual({
          service: name,
          dependsOn: target,
          defined: true,
        });
      }
    }
  });

  it('declares every named volume and config it uses', () => {
    const declaredVolumes = Object.keys(compose.volumes ?? {});
    const declaredConfigs = Object.keys(compose.configs ?? {});
    for (const svc of Object.values(compose.services)) {
      for (const volume of svc.volumes ?? []) {
        const source =
          typeof volume === 'string'
            ? volume.split(':')[0]
            : volume.type === undefined || volume.type === 'volume'
              ? volume.source
              : undefined;
        // Bind mounts and anonymous volumes are paths; only names refer to top-level volumes.
        if (source && !/^[./~]/.test(source)) expect(declaredVolumes).toContain(source);
      }
      for (const config of svc.configs ?? []) {
        expect(declaredConfigs).toContain(typeof config === 'string' ? config : config.source);
      }
    }
  });

  it('escapes every `$` that Compose must not interpolate', () => {
    // `$$` reaches the container as `$`; `${VAR}` is deliberate interpolation; anything else
    // would be silently replaced by an (usually empty) host variable.
    const unescaped = allStrings(compose).filter((s) => /\$(?!\{)/.test(s.replace(/\$\$/g, '')));
    expect(unescaped).toEqual([]);
  });
});

// Compose itself, where it is installed (not in CI: no Docker there); the parsing above runs everywhere.
const composeVersion = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
const describeWithCompose = composeVersion.status === 0 ? describe : describe.skip;

describeWithCompose('docker compose config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'compose-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const config = (envFile: string | null) =>
    spawnSync(
      'docker',
      [
        'compose',
        '--project-directory',
        root,
        '-f',
        resolve(root, 'docker-compose.yml'),
        ...(envFile ? ['--env-file', envFile] : []),
        'config',
        '--format',
        'json',
      ],
      // Only the env file counts, not whatever the shell running the tests exports.
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, cwd: dir },
    );

  it('accepts the file with an env file made from the example, publishing only the gateway', () => {
    const envFile = join(dir, 'complete.env');
    writeFileSync(
      envFile,
      Object.entries(sampleEnv)
        .map(([k, v]) => `${k}='${v}'`)
        .join('\n'),
    );
    const out = config(envFile);
    expect(out.stderr).not.toMatch(/error/i);
    expect(out.status).toBe(0);
    const rendered = JSON.parse(out.stdout) as {
      services: Record<string, { ports?: { published?: string }[] }>;
    };
    const published = Object.entries(rendered.services).flatMap(([name, svc]) =>
      (svc.ports ?? []).map((p) => `${name}:${p.published ?? ''}`),
    );
    expect(published).toEqual(['gateway:3000']);
  });

  it('refuses to render without the env file, naming a missing variable', () => {
    const empty = join(dir, 'empty.env');
    writeFileSync(empty, '');
    const out = config(empty);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/required variable \w+ is missing|\w+ (is )?(missing|required)/i);
  });
});
