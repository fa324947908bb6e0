import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

// No Docker engine runs in CI, so the deployment files are checked structurally: this catches
// a renamed service, a missing dependency or an unescaped `$` before a user's `compose up` does.

const root = resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(resolve(root, file), 'utf8');

type Scalar = string | number | boolean | null;
interface Service {
  image?: string;
  build?: string | { context?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, Scalar> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number | { published?: string | number; target?: number })[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  configs?: (string | { source: string; target?: string })[];
  healthcheck?: { test?: string | string[] };
  deploy?: { replicas?: number };
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  configs?: Record<string, unknown>;
}

// `merge: true` resolves the `<<: *app` keys the way Compose does.
const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;

function service(name: string): Service {
  const svc = compose.services[name];
  if (!svc) throw new Error(`docker-compose.yml has no service "${name}"`);
  return svc;
}

const words = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : value.split(/\s+/).filter(Boolean);

/** Entrypoint and command as one string, as the container would run them. */
const commandLine = (svc: Service): string => [...words(svc.entrypoint), ...words(svc.command)].join(' ');

function env(svc: Service): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(svc.environment)) {
    for (const entry of svc.environment) {
      const eq = entry.indexOf('=');
      if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
  } else {
    for (const [key, value] of Object.entries(svc.environment ?? {})) out[key] = String(value);
  }
  return out;
}

/** depends_on target -> condition (the short list form means service_started). */
function dependsOn(svc: Service): Record<string, string> {
  const deps = svc.depends_on ?? [];
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, 'service_started']));
  return Object.fromEntries(
    Object.entries(deps).map(([name, d]) => [name, d.condition ?? 'service_started']),
  );
}

/** Host ports a service publishes; undefined for an ephemeral one ("3000"). */
function publishedPorts(svc: Service): (string | undefined)[] {
  return (svc.ports ?? []).map((port) => {
    if (typeof port === 'object') return port.published === undefined ? undefined : String(port.published);
    const parts = String(port).split(':'); // [ip:]host:container or container alone
    return parts.length >= 2 ? parts[parts.length - 2] : undefined;
  });
}

const healthcheckText = (svc: Service): string => words(svc.healthcheck?.test).join(' ');

/** Every string (key or value) anywhere in a parsed YAML tree. */
function allStrings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(allStrings);
  if (node !== null && typeof node === 'object') {
    return Object.entries(node).flatMap(([key, value]) => [key, ...allStrings(value)]);
  }
  return [];
}

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
    const args = words(mongodb.command);
    expect(args[args.indexOf('--replSet') + 1]).toBe('rs0');
    expect(args).toContain('--bind_ip_all');
    const check = healthcheckText(mongodb);
    expect(check).toContain('rs.initiate(');
    // The member must be addressable from the other containers under the service name.
    expect(check).toContain("_id:'rs0'");
    expect(check).toContain("host:'mongodb:27017'");
    expect(publishedPorts(mongodb)).toContain('27017');
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
    const mongoUri = new URL(vars.MONGODB_URI ?? '');
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
    const source = read('src/temporal/search-attributes.ts');
    for (const name of searchAttributes) expect(source).toMatch(new RegExp(`\\b${name}: 'Keyword'`));
  });

  it('publishes the Temporal UI on 8233 and the gateway on 3000', () => {
    expect(publishedPorts(service('temporal-ui'))).toContain('8233');
    expect(env(service('temporal-ui')).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(publishedPorts(service('gateway'))).toContain('3000');
    expect(dependsOn(service('gateway'))).toEqual({ api: 'service_healthy' });
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

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  // Stages start at each FROM; the last one is the image that ships.
  const stages = dockerfile.split(/^FROM\s/m).slice(1);
  const finalStage = stages[stages.length - 1] ?? '';

  it('builds in a separate stage from the bookworm-slim Node 20 image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/node:20-bookworm-slim/);
    expect(dockerfile).toMatch(/^FROM\s+\S+\s+AS\s+build$/im);
    expect(dockerfile).toMatch(/^RUN\s.*npm run build/m);
  });

  it('ships production dependencies and dist/ only, as the non-root node user', () => {
    expect(finalStage).toMatch(/^RUN\s.*npm ci --omit=dev/m);
    expect(finalStage).toMatch(/^COPY --from=build \S*dist/m);
    expect(finalStage).toMatch(/^ENV NODE_ENV=production$/m);
    expect(finalStage).toMatch(/^USER node$/m);
    expect(finalStage).toMatch(/^CMD \["node", ?"dist\/src\/main\/api\.js"\]$/m);
  });

  it('points the worker at the pre-built workflow bundle', () => {
    expect(finalStage).toMatch(/^ENV WORKFLOW_BUNDLE_PATH=\S*dist\/workflow-bundle\.js$/m);
  });
});

describe('.dockerignore', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('keeps host dependencies, build output and local data out of the build context', () => {
    for (const entry of ['node_modules', 'dist', '.data', '.git']) expect(ignored).toContain(entry);
  });
});
