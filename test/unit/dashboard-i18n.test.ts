// Every text key the dashboard page uses exists in English and French (docs/dashboard.md, The page):
// a key missing at run time would show as its raw name.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { en } from '../../dashboard/src/locales/en';
import { fr } from '../../dashboard/src/locales/fr';

type Tree = { [key: string]: string | Tree };
const src = join(__dirname, '../../dashboard/src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

function lookup(tree: Tree, key: string): string | Tree | undefined {
  return key
    .split('.')
    .reduce<string | Tree | undefined>(
      (node, part) => (typeof node === 'object' ? node[part] : undefined),
      tree,
    );
}

function leaves(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [prefix + k] : leaves(v, `${prefix}${k}.`),
  );
}

const code = files(src)
  .filter((f) => !f.includes('/locales/'))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');
const plainKeys = [
  ...code.matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g),
  ...code.matchAll(/key: '([a-z]+\.[a-zA-Z0-9_.]+)'/g),
].map((m) => m[1]!);
// t(`statuses.${s}`): the part before the placeholder must be a group of texts.
const templatePrefixes = [...code.matchAll(/\bt\(\s*`([a-zA-Z0-9_.]+)\.\$\{/g)].map((m) => m[1]!);

describe('dashboard texts', () => {
  it('finds the keys the page uses', () => {
    expect(plainKeys.length).toBeGreaterThan(100);
    expect(templatePrefixes).toEqual(expect.arrayContaining(['statuses', 'roles', 'types']));
  });

  it.each([
    ['en', en as Tree],
    ['fr', fr as Tree],
  ])('every key used exists in %s', (_lang, tree) => {
    const missing = plainKeys.filter((key) => {
      const node = lookup(tree, key);
      if (typeof node === 'string') return false;
      // A plural: key_one and key_other.
      return !(
        typeof lookup(tree, `${key}_one`) === 'string' && typeof lookup(tree, `${key}_other`) === 'string'
      );
    });
    const groups = templatePrefixes.filter((p) => typeof lookup(tree, p) !== 'object');
    expect({ missing, groups }).toEqual({ missing: [], groups: [] });
  });

  it('French has exactly the English keys, none left empty or in English by mistake', () => {
    expect(leaves(fr as Tree).sort()).toEqual(leaves(en as Tree).sort());
    expect(leaves(fr as Tree).filter((k) => !(lookup(fr as Tree, k) as string).trim())).toEqual([]);
    // Every statuses, roles and types entry is translated (a few words are the same in both, so not all texts).
    for (const group of ['statuses', 'roles', 'types', 'nav'])
      expect(Object.values(lookup(fr as Tree, group) as Tree)).not.toEqual(
        Object.values(lookup(en as Tree, group) as Tree),
      );
  });
});
