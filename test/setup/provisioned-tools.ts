import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../src/infra/tools';

// A test run's servers must all be built by its own provision target, or a new machine (an empty
// tool cache) fails where a warm one passes. The tools a run used are noted as it uses them
// (noteToolUsed, the test server's wrapper); the run's target is named by its npm script.

/** What `scripts/provision TARGET` builds, from the script's own table. */
export function toolsOfTarget(target: string): string[] {
  return execFileSync('bash', [join(repoRoot, 'scripts/provision'), 'list', target], { encoding: 'utf8' })
    .trim()
    .split(/\s+/);
}

/** The tools noted in `log` that `target` does not provision, sorted. */
export function unprovisionedTools(target: string, log: string): string[] {
  const used = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const provisioned = new Set(toolsOfTarget(target));
  return [...new Set(used)].filter((tool) => !provisioned.has(tool)).sort();
}

/** Throws (failing the jest run) when the run started a server its target would not build. */
export function checkProvisioned(target: string | undefined, log: string): void {
  if (!target) return;
  const missing = unprovisionedTools(target, log);
  if (missing.length > 0)
    throw new Error(
      `these tests started ${missing.join(', ')}, which \`scripts/provision ${target}\` does not build: ` +
        `a new machine (an empty MOMO_CACHE_DIR) would fail them. Add them to the ${target} target.`,
    );
}
