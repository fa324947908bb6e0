import { randomUUID } from 'node:crypto';
import { useStack } from '../helpers/use-stack';
import { basic } from '../helpers/http';
import {
  DashboardBrowser,
  dashboardIdentity,
  signedInMember,
  totpNow,
  type DashResponse,
} from '../helpers/dashboard';
import {
  routeKeys,
  routeTable,
  splitRouteKey,
  type RouteKey,
  type RouteRule,
} from '../../src/contract/access/routes';
import { grants, roles, type Permission, type Role } from '../../src/contract/access/roles';
import { registeredRoutes, rowFor } from '../../src/api/routing';
import { hashToken } from '../../src/dashboard/identity/tokens';
import type { Mode } from '../../src/domain/modes';

// Authorization by construction (issue 41), proven from the one route table
// (src/contract/access/routes.ts): every row × every role × both modes × TOTP on and off through
// the real app, each answer compared with what the table says; the path spellings that used to
// slip past the guard; the routes registered compared with the table (a route without a row, or a
// row without a route, fails); and the two defects of the issue, each by name.

jest.setTimeout(600_000);

const { stack, merchant, api } = useStack({
  config: { RATE_LIMIT_PER_MINUTE: '0', DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: '0' },
});

const refusals = ['SESSION_REQUIRED', 'ROLE_FORBIDDEN', 'TOTP_REQUIRED_FOR_LIVE'] as const;
type Expected = 'allowed' | (typeof refusals)[number];
interface Who {
  role: Role;
  mode: Mode;
  totp: boolean;
}

/** What the table says of `key` through the dashboard door for `who` (null: no session). */
function expected(key: RouteKey, who: Who | null): Expected {
  const rule = routeTable[key] as RouteRule;
  if (rule.access === 'public' || rule.access === 'anyone' || rule.access === 'internal') return 'allowed';
  if (!who) return 'SESSION_REQUIRED';
  let permission: Permission | null;
  if (rule.access === 'merchant') {
    if (rule.dashboard === 'forbidden' || rule.dashboard === 'absent') return 'ROLE_FORBIDDEN';
    permission = rule.dashboard;
  } else permission = rule.access === 'member' ? null : rule.access;
  if (permission === null) return 'allowed';
  if (!grants[who.role].includes(permission)) return 'ROLE_FORBIDDEN';
  const liveMoney = 'liveMoney' in rule && rule.liveMoney === true;
  // Owners and admins act in live mode only with TOTP; everyone moves live money only with it.
  if (who.mode === 'live' && !who.totp && (liveMoney || who.role === 'owner' || who.role === 'admin'))
    return 'TOTP_REQUIRED_FOR_LIVE';
  return 'allowed';
}

const fill = (path: string) => path.replace(/:[A-Za-z]+/g, 'authz-probe');
/** The rows the dashboard door serves, with the path a browser asks. */
/** Rows that end the caller's session(s): walked on their own, last (the walk needs its sessions). */
const sessionEnders: readonly string[] = [
  'POST /dashboard/api/auth/sign-out',
  'DELETE /dashboard/api/account/sessions',
];
const dashboardRows = routeKeys
  .filter((k) => !('mount' in routeTable[k]))
  .filter((k) => !sessionEnders.includes(k))
  .flatMap((k) => {
    const [method, path] = splitRouteKey(k);
    const rule = routeTable[k] as RouteRule;
    if (path.startsWith('/dashboard/api/')) return [{ key: k, method, path: fill(path) }];
    if (rule.access === 'merchant' && rule.dashboard !== 'absent')
      return [{ key: k, method, path: `/dashboard/api${fill(path)}` }];
    return [];
  });

/** A direct payin of the test merchant (sandbox: completed), the refund walks' target; its reference. */
async function payinToRefund(prefix: string): Promise<string> {
  const reference = `${prefix}-${randomUUID().slice(0, 8)}`;
  const payin = await api.post('/v1/direct/payin', {
    reference,
    customerName: 'Awa Koné',
    payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    sandboxScenario: 'completed',
  });
  expect(payin.status).toBe(201);
  return reference;
}

const answerOf = (res: DashResponse): Expected => {
  const code = (res.body as { code?: unknown } | undefined)?.code;
  return (refusals as readonly unknown[]).includes(code) ? (code as Expected) : 'allowed';
};

/** A member of `role` with TOTP on or off, signed in; their TOTP secret if on. */
async function member(role: Role, totp: boolean) {
  const { browser, email } = await signedInMember(stack, merchant.merchantId, role);
  let secret: string | null = null;
  /** The code that enabled TOTP (its step is consumed). */
  let enableCode: string | null = null;
  if (totp) {
    const setup = await browser.post('/dashboard/api/auth/totp/setup');
    secret = setup.body.secret as string;
    enableCode = totpNow(secret);
    const enabled = await browser.post('/dashboard/api/auth/totp/enable', { code: enableCode });
    if (enabled.status !== 200) throw new Error(`totp enable: ${enabled.status}`);
  }
  // The session's view of the member (its TOTP) is read per request.
  expect((await browser.get('/dashboard/api/session')).body.totpEnabled).toBe(totp);
  return { browser, email, secret, enableCode, role, totp };
}

/**
 * Puts the session in `mode`: PUT /session/mode where the switch allows it; else (an owner or admin
 * without TOTP, whom the switch refuses) the session store's own write, as for a session that went
 * live before its member's TOTP was reset: the route guard must hold without the switch.
 */
async function setMode(browser: DashboardBrowser, who: Who) {
  const res = await browser.request('PUT', '/dashboard/api/session/mode', { mode: who.mode });
  if (res.status === 200) return;
  expect([who.mode, res.body.code]).toEqual(['live', 'TOTP_REQUIRED_FOR_LIVE']);
  const identity = await dashboardIdentity(stack);
  await identity.sessions.setMode(hashToken(browser.cookie!), 'live');
}

describe('the route table', () => {
  it('is what the app serves: every route layer has its row and guard, every row a route', () => {
    const registered = registeredRoutes(stack.http.app);
    expect(registered.filter((r) => r.key === null)).toEqual([]);
    const served = new Set(registered.map((r) => r.key));
    const rows = routeKeys.filter((k) => !('mount' in routeTable[k]));
    expect(rows.filter((k) => !served.has(k))).toEqual([]);
    // Routes of the public API are registered twice (both doors); nothing else twice.
    expect(registered.length).toBeGreaterThan(rows.length);
  });
});

describe('the API key door', () => {
  it('every merchant row needs a key and takes one; no public row asks for credentials', async () => {
    const call = async (method: string, path: string, authorized: boolean) => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: {
          ...(authorized ? { authorization: basic(merchant.credentials) } : {}),
          'x-idempotency-key': randomUUID(),
          ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
        },
        ...(method === 'GET' ? {} : { body: '{}' }),
      });
      const text = await res.text();
      const code = /"code":"([A-Z_]+)"/.exec(text)?.[1] ?? null;
      return { status: res.status, code };
    };
    const wrong: string[] = [];
    for (const key of routeKeys) {
      const rule = routeTable[key] as RouteRule;
      const [method, pattern] = splitRouteKey(key);
      if (pattern.startsWith('/dashboard/') || 'mount' in rule || rule.access === 'internal') continue;
      const path = fill(pattern);
      if (rule.access === 'merchant') {
        const anonymous = await call(method, path, false);
        if (anonymous.code !== 'UNAUTHORIZED') wrong.push(`${key} without a key: ${anonymous.status}`);
        const keyed = await call(method, path, true);
        if (keyed.status === 401) wrong.push(`${key} with a key: 401 ${keyed.code}`);
      } else {
        const anonymous = await call(method, path, false);
        if (anonymous.code === 'UNAUTHORIZED' || anonymous.code === 'SESSION_REQUIRED')
          wrong.push(`${key} (public): ${anonymous.status} ${anonymous.code}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('authorization matrix', () => {
  it('every row × every role × both modes × TOTP on and off answers as the table says', async () => {
    const members = await Promise.all(
      roles.flatMap((role) => [false, true].map((totp) => member(role, totp))),
    );
    const mismatches: string[] = [];
    let probes = 0;
    const probe = async (browser: DashboardBrowser, who: Who | null) => {
      for (const row of dashboardRows) {
        const res = await browser.request(row.method, row.path, row.method === 'GET' ? undefined : {});
        probes++;
        const want = expected(row.key, who);
        const got = answerOf(res);
        const bad = res.status >= 500 || (res.body as { code?: string } | undefined)?.code === 'CSRF_REFUSED';
        if (got !== want || bad)
          mismatches.push(
            `${who ? `${who.role}/${who.mode}/${who.totp ? 'totp' : 'no-totp'}` : 'no session'} ${row.key}: ${res.status} ${got}, table says ${want}`,
          );
      }
    };
    await probe(new DashboardBrowser(stack.baseUrl), null);
    for (const mode of ['test', 'live'] as const) {
      await Promise.all(
        members.map(async (m) => {
          const who = { role: m.role, mode, totp: m.totp };
          await setMode(m.browser, who);
          await probe(m.browser, who);
        }),
      );
    }
    expect(mismatches).toEqual([]);
    expect(probes).toBe(dashboardRows.length * (1 + roles.length * 2 * 2));
    // The rows left out above end sessions: signing out needs no permission, nor does ending one's
    // own sessions (any member; without a session, SESSION_REQUIRED).
    expect(
      (await new DashboardBrowser(stack.baseUrl).request('DELETE', '/dashboard/api/account/sessions')).body
        .code,
    ).toBe('SESSION_REQUIRED');
    const viewer = members.find((m) => m.role === 'viewer')!;
    expect((await viewer.browser.request('DELETE', '/dashboard/api/account/sessions')).status).toBe(200);
    expect((await viewer.browser.get('/dashboard/api/session')).body.code).toBe('SESSION_REQUIRED');
    const { browser } = members[0]!;
    expect((await browser.post('/dashboard/api/auth/sign-out')).status).toBe(204);
    expect((await browser.get('/dashboard/api/session')).body.code).toBe('SESSION_REQUIRED');
  });
});

describe('no spelling of a path reaches a handler its caller may not use', () => {
  const spellings = (path: string): string[] => {
    const [, first, ...rest] = path.split('/');
    const tail = rest.join('/');
    return [
      `/${first!.toUpperCase()}/${tail}`,
      `/${first}/${tail.toUpperCase()}`,
      `//${first}/${tail}`,
      `/${first}//${tail}`,
      `/${first}/${tail}/`,
      `/${first}/%${tail.charCodeAt(0).toString(16)}${tail.slice(1)}`,
      `/%${first!.charCodeAt(0).toString(16)}${first!.slice(1)}/${tail}`,
      `/${first}%2F${tail}`,
      `/${first}%2f${tail}`,
    ];
  };

  it('through both doors: case, slashes, percent-encoding, HEAD, method overrides: 404 or 405, no request logged', async () => {
    const reference = await payinToRefund('authz');
    const viewer = await member('viewer', false);
    const targets = [
      `/v1/payin/${reference}/refund`,
      '/v1/payout',
      '/v1/direct/payout',
      '/v1/payouts/bulk',
      '/v1/webhooks',
      `/v1/payout/${reference}/cancel`,
    ];
    // Raw requests with the merchant's key (ApiClient checks answers against the document).
    const key = {
      request: async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(`${stack.baseUrl}${path}`, {
          method,
          headers: {
            authorization: basic(merchant.credentials),
            'x-idempotency-key': randomUUID(),
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        await res.arrayBuffer();
        return { status: res.status };
      },
      post(path: string, body: unknown) {
        return this.request('POST', path, body);
      },
      get(path: string, headers?: Record<string, string>) {
        return this.request('GET', path, undefined, headers);
      },
    };
    const answers: string[] = [];
    const check = (door: string, method: string, path: string, res: { status: number }) => {
      if (res.status !== 404 && res.status !== 405) answers.push(`${door} ${method} ${path}: ${res.status}`);
    };
    const before = await viewer.browser.get('/dashboard/api/v1/transactions');
    expect(before.status).toBe(200);
    for (const target of targets) {
      for (const path of spellings(target)) {
        check('key', 'POST', path, await key.post(path, { amount: 100 }));
        const viaDashboard = [
          `/dashboard/api${path}`,
          `/Dashboard/api${target}`,
          `/dashboard/API${target}`,
          `/dashboard//api${target}`,
        ];
        for (const p of viaDashboard)
          check('viewer', 'POST', p, await viewer.browser.post(p, { amount: 100 }));
      }
      // HEAD on a POST route; a GET dressed as a POST by every override convention. (A path with
      // a GET route too, /v1/webhooks, is answered by that GET, as the table says.)
      if (rowFor('GET', target)) continue;
      check('key', 'HEAD', target, await key.request('HEAD', target));
      check('viewer', 'HEAD', target, await viewer.browser.request('HEAD', `/dashboard/api${target}`));
      const overrides: Record<string, string>[] = [
        { 'x-http-method-override': 'POST' },
        { 'x-http-method': 'POST' },
        { 'x-method-override': 'POST' },
      ];
      for (const h of overrides) {
        check('key', 'GET', target, await key.get(target, h));
        check('viewer', 'GET', target, await viewer.browser.get(`/dashboard/api${target}`, h));
      }
      check('key', 'GET', `${target}?_method=POST`, await key.get(`${target}?_method=POST`));
      check(
        'viewer',
        'GET',
        `${target}?_method=POST`,
        await viewer.browser.get(`/dashboard/api${target}?_method=POST`),
      );
    }
    expect(answers).toEqual([]);
    // None of them reached the merchant's request log (it records every /v1 request that matched).
    const owner = await member('owner', false);
    const logged = await owner.browser.get('/dashboard/api/requests?limit=100');
    expect(logged.status).toBe(200);
    const paths = (logged.body.data as { path: string }[]).map((e) => e.path);
    expect(paths.filter((p) => p.includes(reference) || /[A-Z]|\/\/|%|\/$/.test(p))).toEqual([]);
    // A misspelled request claims no idempotency key: the same key then creates, not replays.
    const idem = randomUUID();
    const body = {
      reference: `idem-${randomUUID().slice(0, 8)}`,
      customerName: 'Awa Koné',
      payin: { amount: 1000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    };
    for (const spelled of ['/V1/direct/payin', '/v1/direct/payin/', '//v1/direct/payin']) {
      const res = await key.request('POST', spelled, body, { 'x-idempotency-key': idem });
      expect({ spelled, status: res.status }).toEqual({ spelled, status: 404 });
    }
    const created = await key.request('POST', '/v1/direct/payin', body, { 'x-idempotency-key': idem });
    expect(created.status).toBe(201);
    // The payin was never refunded.
    const after = await api.get(`/v1/payin/${reference}`);
    expect(after.status).toBe(200);
    expect([after.body.refundedAmount, after.body.refunds]).toEqual([0, []]);
  });
});

describe('defects of issue 41', () => {
  it('defect 1: a viewer cannot refund, pay out or manage webhooks by changing the case of /v1', async () => {
    const reference = await payinToRefund('case');
    const { browser } = await signedInMember(stack, merchant.merchantId, 'viewer');
    const tries: [string, string, unknown][] = [
      ['POST', `/dashboard/api/V1/payin/${reference}/refund`, { amount: 1000 }],
      ['POST', '/dashboard/api/V1/payout', {}],
      ['POST', '/dashboard/api/V1/direct/payout', {}],
      ['POST', '/dashboard/api/V1/payouts/bulk', { items: [] }],
      ['POST', '/dashboard/api/V1/webhooks', { url: 'https://shop.example/hook' }],
      ['GET', '/dashboard/api/V1/webhooks', undefined],
      ['POST', '/dashboard/api/v1/PAYIN/' + reference + '/refund', { amount: 1000 }],
    ];
    for (const [method, path, body] of tries) {
      const res = await browser.request(method, path, body);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    // Spelled as the table has it, the viewer's refund is refused by its role.
    const proper = await browser.post(`/dashboard/api/v1/payin/${reference}/refund`, { amount: 1000 });
    expect([proper.status, proper.body.code]).toEqual([403, 'ROLE_FORBIDDEN']);
    // In live mode the misspelling also skipped the refusal of sandboxScenario (live money cannot
    // be told how to end): now it is a 404, and the right spelling is refused as ever.
    const owner = await member('owner', true);
    expect((await owner.browser.request('PUT', '/dashboard/api/session/mode', { mode: 'live' })).status).toBe(
      200,
    );
    const misspelled = await owner.browser.post('/dashboard/api/V1/payout', { sandboxScenario: 'completed' });
    expect(misspelled.status).toBe(404);
    const spelled = await owner.browser.post('/dashboard/api/v1/payout', { sandboxScenario: 'completed' });
    expect([spelled.status, spelled.body.code]).toEqual([400, 'SANDBOX_ONLY_IN_TEST_MODE']);
  });

  it('defect 2: a live API key needs an owner or admin with TOTP, a live session and a step-up; support refunds live money only with TOTP', async () => {
    // An owner whose password was stolen (no TOTP, test-mode session) mints no live key.
    const stolen = await member('owner', false);
    const minted = await stolen.browser.post('/dashboard/api/keys', { mode: 'live' });
    expect([minted.status, minted.body.code]).toEqual([403, 'TOTP_REQUIRED_FOR_LIVE']);
    const revoked = await stolen.browser.request(
      'DELETE',
      `/dashboard/api/keys/${merchant.live.credentials.apiKey}`,
    );
    expect([revoked.status, revoked.body.code]).toEqual([403, 'TOTP_REQUIRED_FOR_LIVE']);

    // A developer (who may neither refund nor pay out) manages test keys only, whatever their factor.
    const dev = await member('developer', true);
    expect((await dev.browser.post('/dashboard/api/keys', { mode: 'test' })).status).toBe(201);
    expect((await dev.browser.request('PUT', '/dashboard/api/session/mode', { mode: 'live' })).status).toBe(
      200,
    );
    expect(
      (await dev.browser.post('/dashboard/api/auth/step-up', { totp: totpNow(dev.secret!, 1) })).status,
    ).toBe(200);
    const devLive = await dev.browser.post('/dashboard/api/keys', { mode: 'live' });
    expect([devLive.status, devLive.body.code]).toEqual([403, 'ROLE_FORBIDDEN']);
    const devRevoke = await dev.browser.request(
      'DELETE',
      `/dashboard/api/keys/${merchant.live.credentials.apiKey}`,
    );
    expect([devRevoke.status, devRevoke.body.code]).toEqual([403, 'ROLE_FORBIDDEN']);

    // An owner with TOTP: a live session, then a step-up (its code consumed once), then the key.
    const owner = await member('owner', true);
    const inTest = await owner.browser.post('/dashboard/api/keys', { mode: 'live' });
    expect([inTest.status, inTest.body.code]).toEqual([403, 'LIVE_MODE_REQUIRED']);
    expect((await owner.browser.request('PUT', '/dashboard/api/session/mode', { mode: 'live' })).status).toBe(
      200,
    );
    const noStepUp = await owner.browser.post('/dashboard/api/keys', { mode: 'live' });
    expect([noStepUp.status, noStepUp.body.code]).toEqual([403, 'STEP_UP_REQUIRED']);
    // The code that enabled TOTP was consumed: it proves nothing twice.
    const replayed = await owner.browser.post('/dashboard/api/auth/step-up', { totp: owner.enableCode! });
    expect(replayed.body.code).toBe('TOTP_INVALID');
    const stepUp = await owner.browser.post('/dashboard/api/auth/step-up', {
      totp: totpNow(owner.secret!, 1),
    });
    expect(stepUp.status).toBe(200);
    const again = await owner.browser.post('/dashboard/api/auth/step-up', {
      totp: totpNow(owner.secret!, 1),
    });
    expect(again.body.code).toBe('TOTP_INVALID');
    const live = await owner.browser.post('/dashboard/api/keys', { mode: 'live' });
    expect([live.status, live.body.mode]).toEqual([201, 'live']);

    // Support refunds live money only with TOTP (a password alone moved it before).
    const support = await member('support', false);
    expect(
      (await support.browser.request('PUT', '/dashboard/api/session/mode', { mode: 'live' })).status,
    ).toBe(200);
    const refund = await support.browser.post('/dashboard/api/v1/payin/any-reference/refund', {
      amount: 100,
    });
    expect([refund.status, refund.body.code]).toEqual([403, 'TOTP_REQUIRED_FOR_LIVE']);
  });
});
