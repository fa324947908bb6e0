// The audit log names every change in words (issue 44 §1): each non-GET route a signed-in member
// reaches has a described action, and each action the server may store (described kinds, and the
// routes' own entries such as `account.password-changed`) has its words in English and French.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { routeTable, splitRouteKey, DASHBOARD_API } from '../../src/contract/access/routes';
import { auditActions } from '../../src/dashboard/access/audit-actions';
import { en } from '../../dashboard/src/locales/en';
import { fr } from '../../dashboard/src/locales/fr';

type Tree = { [key: string]: string | Tree };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

const text = (tree: Tree, kind: string): unknown =>
  kind
    .split('.')
    .reduce<unknown>(
      (node, part) => (node && typeof node === 'object' ? (node as Tree)[part] : undefined),
      (tree.auditActions as Tree).kinds as Tree,
    );

describe('audit log actions in words', () => {
  it('every change a member may ask through the dashboard has a described action', () => {
    const undescribed = Object.entries(routeTable)
      .filter(([key, rule]) => {
        const [method, path] = splitRouteKey(key);
        if (method === 'GET') return false;
        if (rule.access === 'merchant') return (rule.dashboard as string) !== 'absent';
        // Members' routes; sign-in, resets and invitations run before there is a member.
        return path.startsWith(DASHBOARD_API) && rule.access !== 'public';
      })
      .map(([key]) => {
        const [method, path] = splitRouteKey(key);
        return `${method} ${path.startsWith(`${DASHBOARD_API}/`) ? path.slice(DASHBOARD_API.length) : path}`;
      })
      .filter((pattern) => !(pattern in auditActions));
    expect(undescribed).toEqual([]);
  });

  it('every action the server may store has its words in en and fr', () => {
    const own = files(join(__dirname, '../../src/dashboard'))
      .map((f) => readFileSync(f, 'utf8'))
      .flatMap((code) => [...code.matchAll(/'((?:auth|account|team)\.[a-z-]+)'/g)].map((m) => m[1]!));
    expect(own).toEqual(expect.arrayContaining(['auth.sign-in', 'account.password-changed']));
    const kinds = [...new Set([...Object.values(auditActions).map((a) => a.kind), ...own])];
    const missing = (['en', 'fr'] as const).flatMap((lng) =>
      kinds
        .filter((kind) => typeof text((lng === 'en' ? en : fr) as Tree, kind) !== 'string')
        .map((kind) => `${lng}: ${kind}`),
    );
    expect(missing).toEqual([]);
  });
});
