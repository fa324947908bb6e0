import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Router } from 'express';
import { useStack } from '../helpers/use-stack';
import { createTestMerchant } from '../helpers/merchants';
import { ApiClient, eventually } from '../helpers/http';
import { DashboardBrowser, PASSWORD, dashboardIdentity, signedInMember } from '../helpers/dashboard';
import { dashboardRouter, type DashboardDeps } from '../../src/dashboard/app';
import { openApiDocument } from '../../src/api/openapi/document';
import { routeTable, type RouteKey, type RouteRule } from '../../src/contract/access/routes';
import { merchantOfScope } from '../../src/domain/modes';
import { MerchantService } from '../../src/merchants';

// The dashboard's security properties (issue 32, Done when): CSRF refused, session fixation
// impossible, a member of merchant A sees nothing of B on every route, roles enforced server side,
// owners protected, and every change in the audit log.

/** Every route a router declares (method, path), nested routers included. */
function routesOf(router: Router): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  type Layer = { route?: { path: unknown; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route && typeof layer.route.path === 'string') {
        for (const m of Object.keys(layer.route.methods))
          out.push({ method: m.toUpperCase(), path: `/dashboard/api${layer.route.path}` });
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack);
  return out;
}

/** A /v1 route the dashboard door serves to some role (the route table's `dashboard` permission). */
const reachableByMembers = (key: string): boolean => {
  const rule = routeTable[key as RouteKey] as RouteRule | undefined;
  return rule?.access === 'merchant' && rule.dashboard !== 'forbidden' && rule.dashboard !== 'absent';
};

/** A built page as Vite leaves it: index.html and a content-named script (big enough to compress). */
const script = 'console.log("the dashboard");\n'.repeat(2_000);
function builtPage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-built-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>Dashboard</title><script src="assets/index-Fx1.js"></script>',
  );
  writeFileSync(join(dir, 'assets', 'index-Fx1.js'), script);
  return dir;
}

describe('dashboard security', () => {
  const { stack, merchant, api } = useStack({ dashboardStaticDir: builtPage() });

  it('refuses a change without the CSRF token, with a wrong one, or from another origin', async () => {
    const { browser } = await signedInMember(stack, merchant.merchantId, 'owner');
    const invite = (headers: Record<string, string>) =>
      browser.post(
        '/dashboard/api/team/invitations',
        { email: `c-${randomUUID().slice(0, 6)}@example.test`, role: 'viewer' },
        headers,
      );
    const csrf = browser.csrf!;
    browser.csrf = null;
    const missing = await invite({});
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('CSRF_REFUSED');
    expect((await invite({ 'x-csrf-token': 'x'.repeat(43) })).body.code).toBe('CSRF_REFUSED');
    browser.csrf = csrf;
    expect((await invite({ origin: 'https://evil.example' })).body.code).toBe('CSRF_REFUSED');
    expect((await invite({ 'sec-fetch-site': 'cross-site' })).body.code).toBe('CSRF_REFUSED');
    // A sign-in from another site is refused too (login CSRF).
    const foreign = await new DashboardBrowser(stack.baseUrl).signIn('a@example.test', 'x', undefined);
    expect(foreign.status).toBe(401);
    const crossSignIn = await new DashboardBrowser(stack.baseUrl).post(
      '/dashboard/api/auth/sign-in',
      { email: 'a@example.test', password: 'x' },
      { origin: 'https://evil.example' },
    );
    expect(crossSignIn.body.code).toBe('CSRF_REFUSED');
    const ok = await invite({});
    expect(ok.status).toBe(201);
  });

  it('session fixation is impossible: a cookie planted before sign-in is never the session', async () => {
    const { email } = await signedInMember(stack, merchant.merchantId, 'viewer');
    const browser = new DashboardBrowser(stack.baseUrl);
    const planted = Buffer.alloc(32, 7).toString('base64url');
    browser.cookie = planted;
    expect((await browser.get('/dashboard/api/session')).status).toBe(401);
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    expect(browser.cookie).not.toBe(planted);
    const after = new DashboardBrowser(stack.baseUrl);
    after.cookie = planted;
    expect((await after.get('/dashboard/api/session')).status).toBe(401);
    // Signing in again rotates: the previous session ends, a new id is issued.
    const first = browser.cookie;
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    expect(browser.cookie).not.toBe(first);
    const old = new DashboardBrowser(stack.baseUrl);
    old.cookie = first;
    expect((await old.get('/dashboard/api/session')).status).toBe(401);
  });

  it('a member of merchant A sees nothing of merchant B, on every route', async () => {
    const b = await createTestMerchant(stack, 'Merchant Bee');
    const bApi = new ApiClient(stack.baseUrl, b.credentials);
    const reference = `b-${randomUUID().slice(0, 8)}`;
    const payin = await bApi.post('/v1/direct/payin', {
      reference,
      customerName: 'Awa Koné',
      payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
      sandboxScenario: 'completed',
    });
    expect(payin.status).toBe(201);
    const bMember = await signedInMember(stack, b.merchantId, 'owner');
    const identity = await dashboardIdentity(stack);
    const bRecord = (await identity.members.byEmail(bMember.email))!;
    const bInvite = await bMember.browser.post('/dashboard/api/team/invitations', {
      email: `b-inv-${randomUUID().slice(0, 6)}@example.test`,
      role: 'viewer',
    });
    expect(bInvite.status).toBe(201);
    const secrets = [merchantOfScope(b.merchantId), bMember.email, 'Merchant Bee'];

    const { browser: a } = await signedInMember(stack, merchant.merchantId, 'owner');
    // Signing out (or out everywhere) would end A's session before the other routes are tried.
    const own = routesOf(
      dashboardRouter(
        { identity: {}, data: { mongo: stack.mongo } } as unknown as DashboardDeps,
        () => undefined,
      ),
    ).filter(
      (r) =>
        r.path !== '/dashboard/api/auth/sign-out' &&
        !(r.method === 'DELETE' && r.path === '/dashboard/api/account/sessions'),
    );
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const publicApi = Object.entries(paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .map((m) => ({ method: m.toUpperCase(), path }))
        .filter(
          (r) =>
            r.path.startsWith('/v1/') &&
            reachableByMembers(`${r.method} ${r.path.replace(/\{([^}]+)\}/g, ':$1')}`),
        )
        .map((r) => ({ ...r, path: `/dashboard/api${r.path}` })),
    );
    expect(own.length).toBeGreaterThan(15);
    expect(publicApi.length).toBeGreaterThan(30);
    const values = [reference, payin.body.id as string, bRecord._id, bInvite.body.id as string];
    let calls = 0;
    let served = 0;
    // Reads first: A's audit log later lists A's own attempts on B's ids (A's data, not B's).
    const routes = [...own, ...publicApi].sort(
      (x, y) => Number(x.method !== 'GET') - Number(y.method !== 'GET'),
    );
    for (const route of routes) {
      const takesId = /:[A-Za-z]+|\{[^}]+\}/.test(route.path);
      for (const value of takesId ? values : [values[0]!]) {
        const path = route.path.replace(/:[A-Za-z]+|\{[^}]+\}/g, encodeURIComponent(value));
        const res = await a.request(route.method, path, route.method === 'GET' ? undefined : {});
        calls++;
        if (res.status < 300) served++;
        const at = `${route.method} ${path}`;
        // Never a crash; and B's object named in the path is refused (404, 403, 410, 400), not served.
        expect({ at, status: res.status < 500 && (!takesId || res.status >= 400) }).toEqual({
          at,
          status: true,
        });
        // The problem echoes the path (instance) and maybe the value asked: only other secrets count.
        const text = (typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? ''))
          .split(path)
          .join('');
        for (const secret of [...secrets, ...values].filter((v) => v !== value))
          expect({ at, leaks: text.includes(secret) ? secret : null }).toEqual({ at, leaks: null });
      }
    }
    expect(calls).toBeGreaterThan(100);
    // The session did reach the routes (A's own lists answer 200), so the refusals above are real.
    expect(served).toBeGreaterThan(3);
    const own200 = await a.get('/dashboard/api/v1/transactions');
    expect([own200.status, own200.body?.code]).toEqual([200, undefined]);
    // B's member and invitation are untouched by A's DELETE and PATCH attempts.
    expect(await identity.members.get(bRecord._id)).toMatchObject({ role: 'owner' });
    expect((await identity.invitations.byId(bInvite.body.id as string))!.revokedAt).toBeNull();
  });

  it('roles hold server side: a viewer cannot refund, an admin cannot touch owners, the last owner stays', async () => {
    const viewer = await signedInMember(stack, merchant.merchantId, 'viewer');
    const refund = await viewer.browser.post(`/dashboard/api/v1/payin/pr_anything/refund`, {});
    expect(refund.status).toBe(403);
    expect(refund.body.code).toBe('ROLE_FORBIDDEN');
    expect((await viewer.browser.get('/dashboard/api/team/members')).status).toBe(403);
    // A support member may refund: the same call passes the guard and reaches the refund route.
    const support = await signedInMember(stack, merchant.merchantId, 'support');
    const reached = await support.browser.post(`/dashboard/api/v1/payin/pr_anything/refund`, {});
    expect(reached.status).not.toBe(403);
    expect([400, 404]).toContain(reached.status);
    // The same call with the API key is the API's own business (not the dashboard's role table).
    expect((await api.post('/v1/payin/pr_anything/refund', {})).status).not.toBe(403);

    const { browser: owner } = await signedInMember(stack, merchant.merchantId, 'owner');
    const { browser: admin } = await signedInMember(stack, merchant.merchantId, 'admin');
    const members = (await owner.get('/dashboard/api/team/members')).body.data as {
      id: string;
      role: string;
      email: string;
    }[];
    const anOwner = members.find((m) => m.role === 'owner')!;
    const demote = await admin.request('PATCH', `/dashboard/api/team/members/${anOwner.id}`, {
      role: 'viewer',
    });
    expect(demote.status).toBe(403);
    expect(demote.body.code).toBe('OWNER_PROTECTED');
    expect((await admin.request('DELETE', `/dashboard/api/team/members/${anOwner.id}`)).body.code).toBe(
      'OWNER_PROTECTED',
    );
    expect(
      (await admin.post('/dashboard/api/team/invitations', { email: 'boss@example.test', role: 'owner' }))
        .body.code,
    ).toBe('OWNER_PROTECTED');

    // A team with one owner keeps it.
    const c = await createTestMerchant(stack, 'Solo');
    const solo = await signedInMember(stack, c.merchantId, 'owner');
    const me = (await solo.browser.get('/dashboard/api/session')).body.member.id as string;
    const selfDemote = await solo.browser.request('PATCH', `/dashboard/api/team/members/${me}`, {
      role: 'admin',
    });
    expect(selfDemote.body.code).toBe('OWNER_PROTECTED');

    // A role change ends the member's sessions.
    const dev = await signedInMember(stack, merchant.merchantId, 'developer');
    const devId = (await dev.browser.get('/dashboard/api/session')).body.member.id as string;
    expect(
      (await owner.request('PATCH', `/dashboard/api/team/members/${devId}`, { role: 'viewer' })).status,
    ).toBe(200);
    expect((await dev.browser.get('/dashboard/api/session')).status).toBe(401);
  });

  it('the audit log records every change a member makes, newest first, and exports it', async () => {
    const c = await createTestMerchant(stack, 'Audited');
    const { browser: owner, email } = await signedInMember(stack, c.merchantId, 'owner');
    const changes: string[] = [];
    const change = async (method: string, path: string, body?: unknown) => {
      const res = await owner.request(method, path, body ?? {});
      changes.push(`${method} ${path} ${res.status}`);
      return res;
    };
    const inv = await change('POST', '/dashboard/api/team/invitations', {
      email: `x-${randomUUID().slice(0, 6)}@example.test`,
      role: 'support',
    });
    await change('DELETE', `/dashboard/api/team/invitations/${inv.body.id}`);
    await change('POST', '/dashboard/api/team/invitations', { email: 'not an address', role: 'support' });
    await change('PUT', '/dashboard/api/session/mode', { mode: 'test' });
    await change('POST', '/dashboard/api/v1/payin/pr_nothing/refund', {});
    await change('POST', '/dashboard/api/auth/totp/setup');
    // Reads are not changes.
    await owner.get('/dashboard/api/team/members');

    const list = await eventually(
      () => owner.get('/dashboard/api/audit?limit=100'),
      (r) => (r.body.data as unknown[]).length >= changes.length + 1,
    );
    const entries = list.body.data as {
      action: string;
      status: number;
      email: string;
      at: string;
      ip: string;
      userAgent: string;
    }[];
    const recorded = entries
      .filter((e) => !e.action.startsWith('auth.'))
      .map((e) => `${e.action} ${e.status}`)
      .reverse();
    expect(recorded).toEqual(changes);
    expect(entries.map((e) => e.action)).toContain('auth.invitation-accepted');
    // The invitation's token (a credential, even used) is not in the audit log.
    const accepted = entries.find((e) => e.action === 'auth.invitation-accepted') as unknown as {
      target: string;
    };
    expect(accepted.target).toMatch(/^\/dashboard\/api\/invitations\/\[redacted\]\/accept$/);
    expect(entries.every((e) => e.email === email && e.userAgent === 'dashboard-test' && e.ip !== '')).toBe(
      true,
    );
    const times = entries.map((e) => Date.parse(e.at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);

    const csv = await owner.get('/dashboard/api/audit/export');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(String(csv.body).split('\n')[0]).toBe(
      'at,memberId,email,action,target,mode,ip,userAgent,status,outcome,problemCode,route,actionKind,actionParams',
    );
    // Sign-in failures are recorded too, under the member's merchant.
    await new DashboardBrowser(stack.baseUrl).signIn(email, 'wrong password here');
    await eventually(
      () => owner.get('/dashboard/api/audit?limit=5'),
      (r) => (r.body.data as { action: string }[]).some((e) => e.action === 'auth.sign-in-failed'),
    );
  });

  it("a suspended merchant's dashboard is closed, to sessions and sign-ins", async () => {
    const c = await createTestMerchant(stack, 'Suspended soon');
    const { browser, email } = await signedInMember(stack, c.merchantId, 'viewer');
    const merchants = MerchantService.on(stack.mongo);
    await merchants.suspendMerchant(merchantOfScope(c.merchantId));
    const closed = await eventually(
      () => browser.get('/dashboard/api/session'),
      (r) => r.status === 403,
    );
    expect(closed.body.code).toBe('MERCHANT_SUSPENDED');
    const again = await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD);
    expect(again.body.code).toBe('MERCHANT_SUSPENDED');
  });

  it('serves the page with a strict CSP, and a localized hint while it is not built', async () => {
    const res = await fetch(`${stack.baseUrl}/dashboard/transactions`, {
      headers: { 'accept-language': 'fr' },
    });
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    if (res.status === 503) expect(await res.text()).toContain('npm run build');
  });

  it('serves the built page compressed, its content-named assets cached for good, index.html never', async () => {
    for (const encoding of ['gzip', 'br']) {
      const asset = await fetch(`${stack.baseUrl}/dashboard/assets/index-Fx1.js`, {
        headers: { 'accept-encoding': encoding },
      });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-encoding')).toBe(encoding);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await asset.text()).toBe(script);
    }
    const page = await fetch(`${stack.baseUrl}/dashboard/transactions`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
  });
});
