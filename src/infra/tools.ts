import { appendFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

// Mirrors scripts/provision: same versions file, same cache folder, same overrides.
export const repoRoot = resolve(__dirname, '../..');

function versions(): Record<string, string> {
  const text = readFileSync(join(repoRoot, 'scripts/tool-versions.env'), 'utf8');
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split('=', 2) as [string, string]),
  );
}

export function toolsCacheDir(): string {
  const base =
    process.env.MOMO_CACHE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'momo-payments');
  return join(base, 'tools');
}

/** The names scripts/provision gives its tools (`provision list TARGET`). */
export type ProvisionedTool =
  'temporal-cli' | 'ferretdb' | 'temporal-test-server' | 'temporal-server' | 'postgres' | 'chromium';

/**
 * Notes that a run used a provisioned tool, when MOMO_TOOLS_USED names a log (the test runs set it):
 * their teardown checks each one against what their provision target builds on a new machine.
 */
export function noteToolUsed(tool: ProvisionedTool): void {
  const log = process.env.MOMO_TOOLS_USED;
  if (log) appendFileSync(log, `${tool}\n`);
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function resolveTool(override: string | undefined, name: string, cached: string): string {
  const found = override ?? onPath(name) ?? (existsSync(cached) ? cached : undefined);
  if (!found) throw new Error(`${name} is not provisioned: run \`npm run provision\` (looked for ${cached})`);
  return found;
}

export function temporalCliPath(): string {
  noteToolUsed('temporal-cli');
  const v = versions().TEMPORAL_CLI_VERSION;
  return resolveTool(
    process.env.TEMPORAL_CLI_BIN,
    'temporal',
    join(toolsCacheDir(), `temporal-cli-${v}`, 'temporal'),
  );
}

export function ferretdbPath(): string {
  noteToolUsed('ferretdb');
  const { FERRETDB_VERSION: v, FERRETDB_BUILD: build } = versions();
  return resolveTool(
    process.env.FERRETDB_BIN,
    'ferretdb',
    join(toolsCacheDir(), `ferretdb-${v}-${build}`, 'ferretdb'),
  );
}

/** The wrapper script @temporalio/testing spawns as its time-skipping server. */
export const testServerWrapper = join(repoRoot, 'scripts/test-server/temporal-test-server');

/** The Temporal server and its SQL tool of the production topology (scripts/provision production). */
export function temporalServerDir(): string {
  noteToolUsed('temporal-server');
  const dir = join(toolsCacheDir(), `temporal-server-${versions().TEMPORAL_SERVER_VERSION}`);
  if (!existsSync(join(dir, 'temporal-server')))
    throw new Error(
      `the Temporal server is not provisioned: run \`bash scripts/provision production\` (looked in ${dir})`,
    );
  return dir;
}

/** Debian's PostgreSQL binaries (initdb, pg_ctl, postgres): PG_BIN, else the newest installed. */
export function postgresBinDir(): string {
  noteToolUsed('postgres');
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const found = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!found[0]) throw new Error('PostgreSQL not found: apt-get install postgresql, or set PG_BIN');
  return join(root, found[0], 'bin');
}
