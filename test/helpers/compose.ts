import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

// docker-compose.yml, .env.example and the Dockerfile read for the deployment files' tests
// (test/unit/docker-compose.test.ts, dockerfile.test.ts): the parsed file and what Compose would
// make of it (merge keys, environment lists, ports, interpolation).

export const root = resolve(__dirname, '../..');
export const read = (file: string): string => readFileSync(resolve(root, file), 'utf8');

export type Scalar = string | number | boolean | null;
export interface Service {
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
export interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  configs?: Record<string, unknown>;
}

// `merge: true` resolves the `<<: *app` keys the way Compose does.
export const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;

export function service(name: string): Service {
  const svc = compose.services[name];
  if (!svc) throw new Error(`docker-compose.yml has no service "${name}"`);
  return svc;
}

export const words = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : value.split(/\s+/).filter(Boolean);

/** Entrypoint and command as one string, as the container would run them. */
export const commandLine = (svc: Service): string =>
  [...words(svc.entrypoint), ...words(svc.command)].join(' ');

export function env(svc: Service): Record<string, string> {
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
export function dependsOn(svc: Service): Record<string, string> {
  const deps = svc.depends_on ?? [];
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, 'service_started']));
  return Object.fromEntries(
    Object.entries(deps).map(([name, d]) => [name, d.condition ?? 'service_started']),
  );
}

/** Host ports a service publishes; undefined for an ephemeral one ("3000"). */
export function publishedPorts(svc: Service): (string | undefined)[] {
  return (svc.ports ?? []).map((port) => {
    if (typeof port === 'object') return port.published === undefined ? undefined : String(port.published);
    const parts = String(port).split(':'); // [ip:]host:container or container alone
    return parts.length >= 2 ? parts[parts.length - 2] : undefined;
  });
}

export const healthcheckText = (svc: Service): string => words(svc.healthcheck?.test).join(' ');

/** Every string (key or value) anywhere in a parsed YAML tree. */
export function allStrings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(allStrings);
  if (node !== null && typeof node === 'object') {
    return Object.entries(node).flatMap(([key, value]) => [key, ...allStrings(value)]);
  }
  return [];
}

/** `${NAME...}` references in a value: the variable names Compose interpolates. */
export const references = (value: string): string[] => [...value.matchAll(/\$\{(\w+)/g)].map((m) => m[1]!);

/** A value as Compose renders it with `vars` in the env file (`${A}`, `${A:?msg}`, `${A:-def}`). */
export const interpolate = (value: string, vars: Record<string, string>): string =>
  value.replace(
    /\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g,
    (_m, name: string, op?: string, arg?: string) => vars[name] ?? (op?.endsWith('-') ? (arg ?? '') : ''),
  );

/** The env file a user creates (.env.example's names, with made-up values). */
export const example = read('.env.example');
export const exampleVars = Object.fromEntries(
  example
    .split('\n')
    .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!]),
);
export const sampleEnv: Record<string, string> = {
  ...Object.fromEntries(Object.keys(exampleVars).map((name) => [name, `sample-${name.toLowerCase()}`])),
  PUBLIC_BASE_URL: 'https://pay.example.com',
  OPERATOR_BASE_URL: 'https://operators.example.com',
  OPERATOR_ROUTES: '{"*":"pawapay"}',
  OPERATOR_CALLBACK_SECRETS:
    '{"ORANGE":"o-0123456789abcdef","MTN":"m-0123456789abcdef","MOOV":"v-0123456789abcdef","WAVE":"w-0123456789abcdef"}',
};

/** Names that hold a secret wherever they appear (environment keys of any service). */
export const secretName = /PASSWORD|PWD|SECRET|_KEY$|KEYS?$|TOKEN/;
