import { existsSync, readFileSync } from 'node:fs';
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
  const v = versions().TEMPORAL_CLI_VERSION;
  return resolveTool(
    process.env.TEMPORAL_CLI_BIN,
    'temporal',
    join(toolsCacheDir(), `temporal-cli-${v}`, 'temporal'),
  );
}

export function ferretdbPath(): string {
  const { FERRETDB_VERSION: v, FERRETDB_BUILD: build } = versions();
  return resolveTool(
    process.env.FERRETDB_BIN,
    'ferretdb',
    join(toolsCacheDir(), `ferretdb-${v}-${build}`, 'ferretdb'),
  );
}

/** The wrapper script @temporalio/testing spawns as its time-skipping server. */
export const testServerWrapper = join(repoRoot, 'scripts/test-server/temporal-test-server');
