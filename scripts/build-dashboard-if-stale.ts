// `npm start` runs this first: builds the dashboard page (dist/dashboard) when it is missing or
// older than its sources, so a fresh checkout serves /dashboard without a separate `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
/** What the page is built from: its folder, and the two files of src/ it reads types from. */
export const dashboardSources = [
  'dashboard',
  'sdk/node/src/generated/openapi.ts',
  'src/dashboard/access/roles.ts',
  'package-lock.json',
];
export const dashboardOutput = 'dist/dashboard/index.html';

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), stat.mtimeMs);
}

export function dashboardIsStale(base = root): boolean {
  const output = join(base, dashboardOutput);
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return dashboardSources.some((s) => newest(join(base, s)) > built);
}

if (require.main === module) {
  if (!dashboardIsStale()) {
    console.log('dashboard: dist/dashboard is up to date');
  } else {
    console.log('dashboard: building the page into dist/dashboard…');
    const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    const result = spawnSync(process.execPath, [vite, 'build', '--config', 'dashboard/vite.config.mts'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}
