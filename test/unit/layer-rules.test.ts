import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The layer ladder and the cycle rule of .dependency-cruiser.mjs (docs/decisions/architecture/
// layers-and-cycles.md), run by dependency-cruiser's own CLI: on a fixture tree, each climbing import
// and each cycle is found, and the allowed imports are not; on the real tree, nothing is (what
// `npm run lint` runs).

const root = join(__dirname, '../..');
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const config = join(root, '.dependency-cruiser.mjs');
const scanned = ['src', 'workflows', 'activities', 'dashboard/src'];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** dependency-cruiser's CLI on `scanned` from `cwd`, with the project's config. */
const depcruiseIn = (cwd: string, outputType: 'json' | 'err') =>
  spawnSync(depcruise, [...scanned, '--config', config, '--output-type', outputType], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });

function cruise(cwd: string): Violation[] {
  const run = depcruiseIn(cwd, 'json');
  if (!run.stdout) throw new Error(`depcruise failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** Every fixture file, by its path in a repository shaped like ours. */
const fixtures: Record<string, string> = {
  // Climbing imports, one per kind (types count: `import type` is an edge too).
  'src/domain/up-to-api.ts': "import { problem } from '../api/problem';\nexport const x = problem;\n",
  'src/domain/type-up.ts': "import type { Code } from '../contract/problems';\nexport type X = Code;\n",
  'src/contract/framework.ts': "import express from 'express';\nexport const x = express;\n",
  'src/temporal/seam-to-workflow.ts':
    "import { flow } from '../../workflows/payin/flow';\nexport const x = flow;\n",
  'src/reconciliation/store-to-workflow.ts':
    "import { flow } from '../../workflows/payin/flow';\nexport const x = flow;\n",
  'activities/payin/to-workflow.ts':
    "import type { Input } from '../../workflows/payin/flow';\nexport type X = Input;\n",
  'activities/payin/to-service.ts':
    "import { service } from '../../src/services/service';\nexport const x = service;\n",
  'workflows/payin/to-service.ts':
    "import { service } from '../../src/services/service';\nexport const x = service;\n",
  'src/api/to-dashboard.ts': "import { door } from '../dashboard/app';\nexport const x = door;\n",
  'src/services/to-main.ts': "import { wired } from '../main/wiring';\nexport const x = wired;\n",
  // Allowed: downwards, inside a layer, the interface facts beside their owners, the wiring.
  'src/contract/problems.ts':
    "import { days } from '../domain/days';\nimport { catalogue } from '../events/catalogue';\nimport { cursor } from '../ledger/cursor';\nexport type Code = string;\nexport const x = [days, catalogue, cursor];\n",
  'src/domain/days.ts': 'export const days = 1;\n',
  'src/events/catalogue.ts': 'export const catalogue = 1;\n',
  'src/ledger/cursor.ts': 'export const cursor = 1;\n',
  'src/api/problem.ts': 'export const problem = 1;\n',
  'src/temporal/workflow-ids.ts': 'export const id = 1;\n',
  'workflows/payin/flow.ts':
    "import type { activity } from '../../activities/payin/activity';\nimport { id } from '../../src/temporal/workflow-ids';\nexport type Input = typeof activity;\nexport const flow = id;\n",
  'activities/payin/activity.ts':
    "import { id } from '../../src/temporal/workflow-ids';\nexport const activity = id;\n",
  'src/services/service.ts':
    "import { flow } from '../../workflows/payin/flow';\nexport const service = flow;\n",
  'src/dashboard/app.ts': "import { problem } from '../api/problem';\nexport const door = problem;\n",
  'src/main/wiring.ts':
    "import { door } from '../dashboard/app';\nimport { service } from '../services/service';\nexport const wired = [door, service];\n",
  // Cycles: two modules of one layer, and the browser page's (TSX).
  'src/persistence/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
  'src/persistence/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
  'dashboard/src/components/Chart.tsx':
    "import type { Day } from '../pages/Home';\nexport default function Chart(p: { days: Day[] }) { return <svg>{p.days.length}</svg>; }\n",
  'dashboard/src/pages/Home.tsx':
    "import { lazy } from 'react';\nconst Chart = lazy(() => import('../components/Chart'));\nexport type Day = { date: string };\nexport const Home = () => <Chart days={[]} />;\n",
};

describe('layer rules (.dependency-cruiser.mjs)', () => {
  let dir: string;
  let found: Violation[];
  const violationsOf = (from: string) =>
    found.filter((v) => v.from === from).map((v) => `${v.rule.name} ${v.to}`);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'layers-'));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { jsx: 'react-jsx', esModuleInterop: true, moduleResolution: 'node' },
      }),
    );
    for (const [file, source] of Object.entries(fixtures)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), source);
    }
    found = cruise(dir);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds every climbing import, type-only ones included, whatever folder a flow sits in', () => {
    expect(violationsOf('src/domain/up-to-api.ts')).toEqual(['layer-domain src/api/problem.ts']);
    expect(violationsOf('src/domain/type-up.ts')).toEqual(['layer-domain src/contract/problems.ts']);
    expect(violationsOf('src/temporal/seam-to-workflow.ts')).toEqual([
      'layer-ground workflows/payin/flow.ts',
    ]);
    expect(violationsOf('src/reconciliation/store-to-workflow.ts')).toEqual([
      'layer-stores workflows/payin/flow.ts',
    ]);
    expect(violationsOf('activities/payin/to-workflow.ts')).toEqual([
      'layer-activities workflows/payin/flow.ts',
    ]);
    expect(violationsOf('activities/payin/to-service.ts')).toEqual([
      'layer-activities src/services/service.ts',
    ]);
    expect(violationsOf('workflows/payin/to-service.ts')).toEqual([
      'layer-workflows src/services/service.ts',
    ]);
    expect(violationsOf('src/api/to-dashboard.ts')).toEqual(['layer-api src/dashboard/app.ts']);
    expect(violationsOf('src/services/to-main.ts')).toEqual(['layer-services src/main/wiring.ts']);
  });

  it('keeps the contract free of frameworks', () => {
    expect(violationsOf('src/contract/framework.ts')).toEqual([
      expect.stringMatching(/^contract-no-framework (?:.*\/)?node_modules\/express\//),
    ]);
  });

  it('allows imports downwards, inside a layer, and the interface facts beside their owners', () => {
    for (const file of [
      'src/contract/problems.ts',
      'workflows/payin/flow.ts',
      'activities/payin/activity.ts',
      'src/services/service.ts',
      'src/dashboard/app.ts',
      'src/main/wiring.ts',
    ])
      expect([file, violationsOf(file)]).toEqual([file, []]);
  });

  it('finds cycles, through type-only imports and in the TSX page too', () => {
    const cycles = found.filter((v) => v.rule.name === 'no-circular').map((v) => v.from);
    // One violation per cycle, named by one of its modules.
    expect(cycles).toHaveLength(2);
    expect(cycles).toContain('dashboard/src/components/Chart.tsx');
    expect(cycles.filter((f) => /^src\/persistence\/[ab]\.ts$/.test(f))).toHaveLength(1);
  });

  it('fails the lint run (its exit status) on them', () => {
    const lint = depcruiseIn(dir, 'err');
    expect(lint.status).not.toBe(0);
    expect(lint.stdout).toMatch(/no-circular/);
  }, 120_000);

  it('passes on the real tree, as `npm run lint` runs it', () => {
    const lint = depcruiseIn(root, 'err');
    expect(lint.stdout).toMatch(/no dependency violations found/);
    expect(lint.status).toBe(0);
  }, 120_000);
});
