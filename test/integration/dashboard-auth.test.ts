import { randomUUID } from 'node:crypto';

import { useStack } from '../helpers/use-stack';
import {
  DashboardBrowser,
  PASSWORD,
  dashboardIdentity,
  invite,
  signedInMember,
  totpNow,
} from '../helpers/dashboard';
import { merchantOfScope } from '../../src/domain/modes';
import { awayFromWindowEnd } from '../helpers/fixed-windows';

// Sign-in, TOTP, sign-out, lockout, per-address limit, password reset and invitations of the
// dashboard (docs/dashboard.md), over the real stack.

describe('dashboard sign-in', () => {
  const { stack, merchant } = useStack({ config: { DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: '8' } });

  it('accepting an invitation signs in; the session says who, where and what; sign-out ends it', async () => {
    const { browser, email } = await signedInMember(stack, merchant.merchantId, 'support');
    const session = await browser.get('/dashboard/api/session');
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({
      member: { email, name: 'A support' },
      merchant: { id: merchantOfScope(merchant.merchantId), name: 'Test merchant' },
      role: 'support',
      permissions: ['read', 'refund', 'statement', 'note'],
      mode: 'test',
      totpEnabled: false,
      totpRequiredForLive: false,
    });
    expect(session.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = browser.cookie!;
    expect((await browser.post('/dashboard/api/auth/sign-out')).status).toBe(204);
    expect(browser.cookie).toBeNull();
    // The old cookie, replayed, opens nothing: the session is gone server-side.
    browser.cookie = cookie;
    const after = await browser.get('/dashboard/api/session');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('SESSION_REQUIRED');
    // Signing in again works and gives another session.
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    expect(browser.cookie).not.toBe(cookie);
  });

  it('the cookie is httpOnly, Secure, SameSite=Strict, Path=/dashboard', async () => {
    const email = `cookie-${randomUUID().slice(0, 8)}@example.test`;
    const token = await invite(stack, merchant.merchantId, email, 'viewer');
    const res = await fetch(`${stack.baseUrl}/dashboard/api/invitations/${token}/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.baseUrl },
      body: JSON.stringify({ name: 'V', password: PASSWORD }),
    });
    expect(res.status).toBe(201);
    const set = res.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))!;
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/Secure/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).toMatch(/Path=\/dashboard/i);
  });

  it('a wrong password and an unknown address answer alike, in comparable time', async () => {
    const { email } = await signedInMember(stack, merchant.merchantId, 'viewer');
    const timed = async (who: string) => {
      const b = new DashboardBrowser(stack.baseUrl);
      const t = performance.now();
      const res = await b.signIn(who, 'not the password at all');
      return { res, ms: performance.now() - t };
    };
    const wrong = await timed(email);
    const unknown = await timed(`nobody-${randomUUID().slice(0, 8)}@example.test`);
    expect(wrong.res.status).toBe(401);
    expect(unknown.res.status).toBe(401);
    const strip = (b: Record<string, unknown>) => ({ ...b, instance: undefined });
    expect(strip(unknown.res.body)).toEqual(strip(wrong.res.body));
    expect(wrong.res.body.code).toBe('SIGN_IN_FAILED');
    // Both pay for one argon2id verification (the unknown address a dummy one).
    expect(unknown.ms).toBeGreaterThan(wrong.ms / 4);
  });

  it('with TOTP: the code is asked, a wrong one refused, the right one signs in; live mode needs it for owners', async () => {
    const { browser, email } = await signedInMember(stack, merchant.merchantId, 'owner');
    const live = await browser.request('PUT', '/dashboard/api/session/mode', { mode: 'live' });
    expect(live.status).toBe(403);
    expect(live.body.code).toBe('TOTP_REQUIRED_FOR_LIVE');

    const setup = await browser.post('/dashboard/api/auth/totp/setup');
    expect(setup.status).toBe(200);
    expect(setup.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    expect(setup.body.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const secret: string = setup.body.secret;
    expect((await browser.post('/dashboard/api/auth/totp/enable', { code: '000000' })).body.code).toBe(
      'TOTP_INVALID',
    );
    // Each code is computed once: on a loaded machine a 30 s step may end between two computations,
    // and the "same" code computed again is the next step's, unused and valid.
    const enabling = totpNow(secret);
    const next = totpNow(secret, 1);
    expect((await browser.post('/dashboard/api/auth/totp/enable', { code: enabling })).status).toBe(200);
    // The secret is sealed at rest.
    const stored = await (await dashboardIdentity(stack)).members.byEmail(email);
    expect(stored!.totpSecret).not.toContain(secret);

    const fresh = new DashboardBrowser(stack.baseUrl);
    const noCode = await fresh.signIn(email, PASSWORD);
    expect(noCode.status).toBe(401);
    expect(noCode.body.code).toBe('TOTP_REQUIRED');
    expect((await fresh.signIn(email, PASSWORD, '123456')).body.code).toBe('TOTP_INVALID');
    // The code that enabled TOTP does not sign in (RFC 6238 §5.2: accepted once); the next one does.
    expect((await fresh.signIn(email, PASSWORD, enabling)).body.code).toBe('TOTP_INVALID');
    const ok = await fresh.signIn(email, PASSWORD, next);
    expect(ok.status).toBe(200);
    expect(ok.body.totpEnabled).toBe(true);
    // Seen on the wire once, a code opens no second session.
    const replay = await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD, next);
    expect(replay.body.code).toBe('TOTP_INVALID');
    const switched = await fresh.request('PUT', '/dashboard/api/session/mode', { mode: 'live' });
    expect(switched.status).toBe(200);
    expect(switched.body.mode).toBe('live');
  });

  it('a member and a stranger get the same answers, try by try, up to past the limits', async () => {
    const { email } = await signedInMember(stack, merchant.merchantId, 'viewer');
    const stranger = `stranger-${randomUUID().slice(0, 8)}@example.test`;
    // Seven wrong passwords from one place, then the right one (the stranger: any), from there.
    // Fixed windows of DASHBOARD_LOCKOUT (15 minutes).
    await awayFromWindowEnd(stack.config.DASHBOARD_LOCKOUT);
    const tries = async (who: string, right: string, address: string) => {
      const b = new DashboardBrowser(stack.baseUrl, address);
      const out: { status: number; code: string; type: string | null; retryAfter: number | null }[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await b.signIn(who, i < 7 ? `wrong password ${i}` : right);
        const ra = res.headers.get('retry-after');
        out.push({
          status: res.status,
          code: res.body.code,
          type: res.headers.get('content-type'),
          retryAfter: ra === null ? null : Number(ra),
        });
      }
      return out;
    };
    const [member, other] = await Promise.all([
      tries(email, PASSWORD, '203.0.113.71'),
      tries(stranger, PASSWORD, '203.0.113.72'),
    ]);
    const shape = (a: typeof member) =>
      a.map((t) => ({ ...t, retryAfter: t.retryAfter === null ? null : 'set' }));
    expect(shape(member)).toEqual(shape(other));
    expect(member.map((t) => `${t.status} ${t.code}`)).toEqual([
      ...Array(5).fill('401 SIGN_IN_FAILED'),
      ...Array(3).fill('429 SIGN_IN_LOCKED'),
    ]);
    // The same window: the same wait, to the second (the two ran side by side).
    member.forEach((t, i) => {
      if (t.retryAfter !== null)
        expect(Math.abs(t.retryAfter - other[i]!.retryAfter!)).toBeLessThanOrEqual(2);
      if (t.retryAfter !== null) expect(t.retryAfter).toBeGreaterThan(0);
    });
    // A throttle, not a lock: the member signs in from another place.
    expect((await new DashboardBrowser(stack.baseUrl, '203.0.113.73').signIn(email, PASSWORD)).status).toBe(
      200,
    );
  });

  it('limits failed sign-ins per client address', async () => {
    const b = new DashboardBrowser(stack.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++)
      statuses.push((await b.signIn(`probe-${i}-${randomUUID().slice(0, 6)}@example.test`, 'guess')).status);
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(401));
    expect(statuses[8]).toBe(429);
    // Another address is not affected.
    expect((await new DashboardBrowser(stack.baseUrl).signIn('someone@example.test', 'guess')).status).toBe(
      401,
    );
  });

  it('password reset: 202 for any address, a single-use link, the member signed out everywhere', async () => {
    const { browser, email } = await signedInMember(stack, merchant.merchantId, 'developer');
    const anon = new DashboardBrowser(stack.baseUrl);
    expect(
      (await anon.post('/dashboard/api/auth/password-reset', { email: 'nobody@example.test' })).status,
    ).toBe(202);
    expect((await anon.post('/dashboard/api/auth/password-reset', { email })).status).toBe(202);
    const identity = await dashboardIdentity(stack);
    const [mail] = await identity.outbox.to(email);
    const token = /\/dashboard\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail!.text)![1]!;
    const newPassword = 'a brand new passphrase';
    const done = await anon.post('/dashboard/api/auth/password-reset/complete', {
      token,
      password: newPassword,
    });
    expect(done.status).toBe(204);
    const again = await anon.post('/dashboard/api/auth/password-reset/complete', {
      token,
      password: newPassword,
    });
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('LINK_INVALID');
    // The session opened before the reset is over; the new password signs in, the old one not.
    expect((await browser.get('/dashboard/api/session')).status).toBe(401);
    expect((await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD)).status).toBe(401);
    expect((await new DashboardBrowser(stack.baseUrl).signIn(email, newPassword)).status).toBe(200);
  });

  it('a session ends after 30 minutes idle or 12 hours in all, whatever its use', async () => {
    const { sessions } = await dashboardIdentity(stack);
    const member = { id: 'mem_timeout', merchantId: merchantOfScope(merchant.merchantId) };
    const now = Date.now();
    const idle = await sessions.open(member, 0, new Date(now - 31 * 60_000));
    expect(await sessions.resume(idle, new Date(now))).toBeNull();
    // Used every 25 minutes it stays alive, but not past 12 hours (opened 11.5 hours ago).
    const busy = await sessions.open(member, 0, new Date(now - 690 * 60_000));
    for (let t = now - 675 * 60_000; t <= now + 25 * 60_000; t += 25 * 60_000)
      expect(await sessions.resume(busy, new Date(t))).not.toBeNull();
    // Last used 6 minutes before: only the 12 hours end it.
    expect(await sessions.resume(busy, new Date(now + 31 * 60_000))).toBeNull();
  });

  it('sessions ended without a sign-out are deleted by a later sign-in, not kept for ever', async () => {
    const { sessions } = await dashboardIdentity(stack);
    const member = {
      id: `mem_sweep_${randomUUID().slice(0, 8)}`,
      merchantId: merchantOfScope(merchant.merchantId),
    };
    const now = Date.now();
    // The store's first sign-in sweeps (nothing of this member yet); the next ones within 10 minutes do not.
    const alive = await sessions.open(member, 0, new Date(now - 60_000));
    await sessions.open(member, 0, new Date(now - 31 * 60_000));
    await sessions.open(member, 0, new Date(now - 13 * 3_600_000));
    const stored = () => stack.mongo.collection('dashboard_sessions').countDocuments({ memberId: member.id });
    expect(await stored()).toBe(3);
    expect(await sessions.sweepEnded(new Date(now))).toBeGreaterThanOrEqual(2);
    expect(await stored()).toBe(1);
    expect(await sessions.resume(alive, new Date(now))).not.toBeNull();
  });

  describe('invitations', () => {
    it('shows who is invited, then works once: two concurrent accepts, one member', async () => {
      const email = `race-${randomUUID().slice(0, 8)}@example.test`;
      const token = await invite(stack, merchant.merchantId, email, 'support');
      const shown = await new DashboardBrowser(stack.baseUrl).get(`/dashboard/api/invitations/${token}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ email, role: 'support', merchant: { name: 'Test merchant' } });

      const accept = () =>
        new DashboardBrowser(stack.baseUrl).post(`/dashboard/api/invitations/${token}/accept`, {
          name: 'Racer',
          password: PASSWORD,
        });
      const results = await Promise.all([accept(), accept(), accept()]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 410, 410]);
      expect(
        (await new DashboardBrowser(stack.baseUrl).get(`/dashboard/api/invitations/${token}`)).status,
      ).toBe(410);
    });

    it('the store: of many consumptions of one invitation racing, exactly one wins', async () => {
      const identity = await dashboardIdentity(stack);
      const { invitation } = await identity.invitations.create({
        merchantId: merchantOfScope(merchant.merchantId),
        email: `store-${randomUUID().slice(0, 8)}@example.test`,
        role: 'viewer',
        invitedBy: 'operator',
      });
      const wins = await Promise.all(
        Array.from({ length: 8 }, () => identity.invitations.consume(invitation)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await identity.invitations.state(invitation)).toBe('accepted');
    });

    it('an invitation expires after 7 days', async () => {
      const identity = await dashboardIdentity(stack);
      const { token } = await identity.invitations.create({
        merchantId: merchantOfScope(merchant.merchantId),
        email: `old-${randomUUID().slice(0, 8)}@example.test`,
        role: 'viewer',
        invitedBy: 'operator',
        now: new Date(Date.now() - 7 * 86_400_000 - 1_000),
      });
      const res = await new DashboardBrowser(stack.baseUrl).post(
        `/dashboard/api/invitations/${token}/accept`,
        {
          name: 'Late',
          password: PASSWORD,
        },
      );
      expect(res.status).toBe(410);
      expect(res.body.code).toBe('LINK_INVALID');
    });
  });
});
