import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// The README's Layout section is checked against the tree, so it cannot go stale: every folder at
// the top of the repository (but what .gitignore keeps out) and every folder under src/ has its
// line, and every line names a folder that exists. The table "Where each rule lives" names, for
// each rule, the test files that prove it: each must exist.

const root = join(__dirname, '..', '..');

/** The lines of a README section: from its heading to the next heading of the same or a higher level. */
export function section(readme: string, heading: string): string[] {
  const lines = readme.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README.md has no "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+\s/.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The folders the Layout section names: the first word of each line of its code block, ending in `/`. */
export function layoutEntries(readme: string): string[] {
  const lines = section(readme, '## Layout');
  const open = lines.findIndex((l) => l.startsWith('```'));
  const close = lines.findIndex((l, i) => i > open && l.startsWith('```'));
  if (open < 0 || close < 0) throw new Error('the Layout section has no code block');
  return lines
    .slice(open + 1, close)
    .map((l) => /^(\S+\/)(\s|$)/.exec(l)?.[1])
    .filter((e): e is string => e !== undefined)
    .map((e) => e.replace(/\/$/, ''));
}

/** What is wrong between the folders named and the tree: folders without a line, lines without a folder. */
export function layoutProblems(
  entries: readonly string[],
  tree: { top: readonly string[]; src: readonly string[]; isFolder: (path: string) => boolean },
): string[] {
  const named = new Set(entries);
  const problems: string[] = [];
  for (const dir of tree.top) {
    if (dir === 'src') continue; // src/ is listed folder by folder
    if (!named.has(dir)) problems.push(`${dir}/ has no line in the Layout section`);
  }
  for (const dir of tree.src) {
    if (!named.has(`src/${dir}`)) problems.push(`src/${dir}/ has no line in the Layout section`);
  }
  for (const entry of entries) {
    if (!tree.isFolder(entry)) problems.push(`${entry}/ is in the Layout section but is not a folder`);
  }
  return problems;
}

/** Folder names .gitignore keeps out of the repository (its lines ending in `/`). */
function ignoredFolders(): Set<string> {
  const lines = readFileSync(join(root, '.gitignore'), 'utf8').split('\n');
  return new Set(
    lines
      .map((l) => l.trim())
      .filter((l) => l.endsWith('/') && !l.startsWith('#'))
      .map((l) => l.replace(/^\/|\/$/g, '')),
  );
}

function foldersIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

function isFolder(path: string): boolean {
  try {
    return statSync(join(root, path)).isDirectory();
  } catch {
    return false;
  }
}

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const ignored = ignoredFolders();
const tree = {
  top: foldersIn(root).filter((d) => d !== '.git' && !ignored.has(d)),
  src: foldersIn(join(root, 'src')),
  isFolder,
};

describe('README: the Layout section against the tree', () => {
  it('names every folder at the top and under src/, and only folders that exist', () => {
    expect(layoutEntries(readme).length).toBeGreaterThan(20);
    expect(layoutProblems(layoutEntries(readme), tree)).toEqual([]);
  });

  it('fails when a folder is added without a line, or a line names a folder that is gone', () => {
    const entries = layoutEntries(readme);
    expect(layoutProblems(entries, { ...tree, src: [...tree.src, 'payouts'] })).toEqual([
      'src/payouts/ has no line in the Layout section',
    ]);
    expect(layoutProblems(entries, { ...tree, top: [...tree.top, 'tools'] })).toEqual([
      'tools/ has no line in the Layout section',
    ]);
    expect(
      layoutProblems(entries, { ...tree, isFolder: (p) => p !== 'src/recovery' && tree.isFolder(p) }),
    ).toEqual(['src/recovery/ is in the Layout section but is not a folder']);
  });
});

describe('README: where each rule lives, and the test that proves it', () => {
  const rows = section(readme, '### Where each rule lives')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| ---'))
    .slice(1) // the header
    .map((l) => l.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '')));

  it('has a test column on every row', () => {
    expect(rows.length).toBeGreaterThan(15);
    for (const row of rows) expect({ rule: row[0], cells: row.length }).toEqual({ rule: row[0], cells: 3 });
  });

  it('names test files that exist', () => {
    for (const [rule, , proof] of rows) {
      const files = [...(proof ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      expect({ rule, named: files.length > 0 }).toEqual({ rule, named: true });
      for (const file of files) {
        expect({
          rule,
          file,
          test: /^test\/.+\.test\.ts$/.test(file) && existsSync(join(root, file)),
        }).toEqual({ rule, file, test: true });
      }
    }
  });
});
