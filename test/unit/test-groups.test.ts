import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECTS, entries, plan, root, testFiles } from '../groups/plan.js';

// A whole run groups the unit, integration and workflow files (test/groups/plan.js): no file may
// be dropped or run twice, and what makes a file run alone must keep it alone.
describe('test groups', () => {
  const projects = Object.keys(PROJECTS);

  it.each(projects)('%s: every test file is in exactly one group or alone', (project) => {
    const { groups, alone } = plan(project);
    const placed = [...groups.flat(), ...alone];
    expect([...placed].sort()).toEqual(testFiles(PROJECTS[project]!.dir));
    expect(new Set(placed).size).toBe(placed.length);
    expect(groups.every((g) => g.length > 0)).toBe(true);
  });

  it.each(projects)('%s: each group has its entry file, and no entry is left over', (project) => {
    for (const [i, entry] of entries(project).entries()) {
      expect(readFileSync(join(root, entry), 'utf8')).toContain(`runGroup('${project}', ${i + 1});`);
    }
    const onDisk = readdirSync(join(root, 'test/groups')).filter((f) => f.startsWith(`${project}-`));
    expect(onDisk.map((f) => `test/groups/${f}`).sort()).toEqual(entries(project));
  });

  it('a file that sets a timeout, mocks a module or writes process.env runs alone', () => {
    const alone = new Set(projects.flatMap((p) => plan(p).alone));
    for (const file of projects.flatMap((p) => testFiles(PROJECTS[p]!.dir))) {
      const text = readFileSync(join(root, file), 'utf8');
      const registryWide = /jest\.(setTimeout|mock|doMock)\(|process\.env\.\w+ = /.test(text);
      if (registryWide) expect({ file, alone: alone.has(file) }).toEqual({ file, alone: true });
    }
    expect(alone.has('test/integration/mongo-outage.test.ts')).toBe(true);
  });

  it('JEST_GROUPS=1 lists the group entries and the lone files; by default every file runs by itself', () => {
    const list = (args: string[], env: Record<string, string> = {}) => {
      const out = spawnSync(
        process.execPath,
        [join(root, 'node_modules/jest/bin/jest.js'), '--listTests', ...args],
        {
          cwd: root,
          env: { ...process.env, ...env },
          encoding: 'utf8',
        },
      );
      return out.stdout
        .split('\n')
        .filter(Boolean)
        .map((f) => f.slice(root.length + 1))
        .sort();
    };
    const grouped = list([], { JEST_GROUPS: '1' });
    const expected = projects.flatMap((p) => [...entries(p), ...plan(p).alone]);
    expect(grouped).toEqual(expect.arrayContaining(expected));
    expect(grouped.filter((f) => /^test\/(unit|integration|workflows)\//.test(f)).sort()).toEqual(
      projects.flatMap((p) => plan(p).alone).sort(),
    );
    const byFile = list([], { JEST_GROUPS: '' });
    expect(byFile.some((f) => f.startsWith('test/groups/'))).toBe(false);
    expect(byFile).toEqual(expect.arrayContaining(projects.flatMap((p) => testFiles(PROJECTS[p]!.dir))));
    expect(list(['test/unit/money-types.test.ts'], { JEST_GROUPS: '' })).toEqual([
      'test/unit/money-types.test.ts',
    ]);
    expect(existsSync(join(root, 'test/unit/money-types.test.ts'))).toBe(true);
  });
});
