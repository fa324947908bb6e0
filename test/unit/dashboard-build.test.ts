// `npm start` builds the dashboard page only when dist/dashboard is missing or older than its sources.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dashboardIsStale, dashboardOutput } from '../../scripts/build-dashboard-if-stale';

describe('dashboard build when stale', () => {
  let base: string;
  const at = (path: string, seconds: number) => utimesSync(join(base, path), seconds, seconds);
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'dashboard-'));
    mkdirSync(join(base, 'dashboard/src'), { recursive: true });
    writeFileSync(join(base, 'dashboard/src/App.tsx'), 'x');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('builds when the output is missing', () => {
    expect(dashboardIsStale(base)).toBe(true);
  });

  it('builds when a source is newer than the output, not otherwise', () => {
    mkdirSync(join(base, 'dist/dashboard'), { recursive: true });
    writeFileSync(join(base, dashboardOutput), '<html></html>');
    for (const p of ['dashboard/src/App.tsx', 'dashboard/src', 'dashboard']) at(p, 1_000);
    at(dashboardOutput, 2_000);
    expect(dashboardIsStale(base)).toBe(false);
    at('dashboard/src/App.tsx', 3_000);
    expect(dashboardIsStale(base)).toBe(true);
  });
});
