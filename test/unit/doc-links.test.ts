import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { docFiles } from '../helpers/doc-examples';

// Every relative link of README.md and docs/**/*.md reaches a file that exists, and an `#anchor`
// into a Markdown page names one of its headings; a docs path quoted in code comments exists too.
// Pages move (docs/decisions/ is by topic): a moved page must not leave a dead link behind.

const root = join(__dirname, '..', '..');

/** GitHub's heading anchor: lower case, punctuation dropped (not `-` or `_`), spaces to `-`. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown text offers: its headings (repeats numbered as GitHub does). */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]!;
      else if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    if (fence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slugOf(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative link targets of a Markdown text, outside code blocks and code spans. */
export function linksOf(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (f) {
      if (!fence) fence = f[1]!;
      else if (raw.trim().startsWith(fence)) fence = null;
      return;
    }
    if (fence) return;
    const line = raw.replace(/(`+)[^`]*?\1/g, '');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: m[1]!, line: i + 1 });
    }
    for (const m of line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)) {
      links.push({ target: m[1]!, line: i + 1 });
    }
  });
  return links.filter(({ target }) => !/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(target));
}

/** What is wrong with each relative link of `file` (a path from the repository root). */
export function brokenLinks(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const problems: string[] = [];
  for (const { target, line } of linksOf(text)) {
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const path = decodeURIComponent(pathPart);
    const resolved = path === '' ? join(root, file) : join(root, dirname(file), path);
    const at = `${file}:${line} → ${target}`;
    if (!resolved.startsWith(root) || !existsSync(resolved)) {
      problems.push(`${at}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile()) {
      const page = path === '' ? text : readFileSync(resolved, 'utf8');
      if (!anchorsOf(page).has(anchor.toLowerCase()))
        problems.push(`${at}: no heading #${anchor} in ${relative(root, resolved)}`);
    }
  }
  return problems;
}

/** Pages named by tests of the checkers themselves, not by the code. */
const fixtures = new Set(['docs/x.md', 'docs/no-such-page.md']);

/** `docs/….md` paths named in the code's comments and strings, with where they are named. */
function docPathsInCode(): { at: string; path: string }[] {
  const found: { at: string; path: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const rel = join(dir, name);
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (/\.(ts|js|mjs|sh|env)$/.test(name) || !name.includes('.'))
        readFileSync(join(root, rel), 'utf8')
          .split('\n')
          .forEach((l, i) => {
            for (const m of l.matchAll(/\bdocs\/[\w./-]*?\.md\b/g))
              found.push({ at: `${rel}:${i + 1}`, path: m[0] });
          });
    }
  };
  for (const dir of ['src', 'test', 'scripts', 'workflows', 'activities', 'bench']) walk(dir);
  return found;
}

describe('documentation links', () => {
  it('finds a link to a missing page or heading', () => {
    const text = [
      '[ok](README.md) [gone](docs/no-such-page.md) [bad anchor](README.md#no-such-heading)',
      '`[in code](nowhere.md)` [web](https://example.com/x.md) [here](#a-heading)',
      '',
      '## A heading',
    ].join('\n');
    expect(brokenLinks('README.md', text)).toEqual([
      'README.md:1 → docs/no-such-page.md: no such file',
      'README.md:1 → README.md#no-such-heading: no heading #no-such-heading in README.md',
    ]);
    expect(slugOf('Versioning: `patched()` only (1.0)')).toBe('versioning-patched-only-10');
  });

  it.each(docFiles().map((f) => [f]))('%s: every relative link reaches its target', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('docs/decisions/README.md lists every decision record, each in a topic folder', () => {
    const index = readFileSync(join(root, 'docs/decisions/README.md'), 'utf8');
    const listed = new Set(linksOf(index).map(({ target }) => target));
    const records = (readdirSync(join(root, 'docs/decisions'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.md') && f !== 'README.md')
      .map((f) => f.split('\\').join('/'));
    expect(records.filter((f) => !listed.has(f) || !f.includes('/'))).toEqual([]);
  });

  it('docs paths named in code exist', () => {
    const missing = docPathsInCode()
      .filter(({ path }) => !fixtures.has(path) && !existsSync(join(root, path)))
      .map(({ at, path }) => `${at}: ${path}`);
    expect(missing).toEqual([]);
  });
});
