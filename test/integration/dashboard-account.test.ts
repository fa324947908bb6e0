import { useStack } from '../helpers/use-stack';
import { DashboardBrowser, PASSWORD, dashboardIdentity, signedInMember, totpNow } from '../helpers/dashboard';
import { merchantOfScope } from '../../src/domain/modes';
import type { TestStack } from '../helpers/stack';

// A member's own account (docs/dashboard.md, Account): reset links that die with the password,
// password change, TOTP recovery codes, the list of one's sessions and sign out everywhere, and the
// owner's setting that requires TOTP of every member. Over the real stack.

const NEW_PASSWORD = 'a brand new passphrase';

/** The reset link's token of the newest reset mail to the address. */
async function resetToken(stack: TestStack, email: string): Promise<string> {
  const anon = new DashboardBrowser(stack.baseUrl);
  expect((await anon.post('/dashboard/api/auth/password-reset', { email })).status).toBe(202);
  const [mail] = (await (await dashboardIdentity(stack)).outbox.to(email)).filter(
    (m) => m.kind === 'password-reset',
  );
  return /\/dashboard\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail!.text)![1]!;
}

const complete = (stack: TestStack, token: string, password = NEW_PASSWORD) =>
  new DashboardBrowser(stack.baseUrl).post('/dashboard/api/auth/password-reset/complete', {
    token,
    password,
  });

/** Turns TOTP on for a signed-in browser (this step's code): its secret and recovery codes. */
async function enableTotp(browser: DashboardBrowser): Promise<{ secret: string; codes: string[] }> {
  const setup = await browser.post('/dashboard/api/auth/totp/setup');
  expect(setup.status).toBe(200);
  const secret: string = setup.body.secret;
  const enabled = await browser.post('/dashboard/api/auth/totp/enable', { code: totpNow(secret) });
  expect(enabled.status).toBe(200);
  return { secret, codes: enabled.body.recoveryCodes };
}

describe('dashboard account', () => {
  const { stack, merchant } = useStack({ config: { DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: '0' } });
  const merchantId = () => merchantOfScope(merchant.merchantId);
  const actions = async () =>
    (await (await dashboardIdentity(stack)).audit.list(merchantId(), { limit: 500 })).entries;

  describe('password reset links', () => {
    it('completing one link ends every other link of the member, and the sessions', async () => {
      const { browser, email } = await signedInMember(stack, merchant.merchantId, 'viewer');
      const first = await resetToken(stack, email);
      const second = await resetToken(stack, email);
      const third = await resetToken(stack, email);
      expect((await complete(stack, second)).status).toBe(204);
      // The links asked for before are dead: the password they were asked under is gone.
      for (const token of [first, third]) {
        const res = await complete(stack, token, 'an attacker chose this one');
        expect(res.status).toBe(410);
        expect(res.body.code).toBe('LINK_INVALID');
      }
      expect((await browser.get('/dashboard/api/session')).status).toBe(401);
      expect((await new DashboardBrowser(stack.baseUrl).signIn(email, NEW_PASSWORD)).status).toBe(200);
      // A link asked for after the reset works (once).
      const fresh = await resetToken(stack, email);
      expect((await complete(stack, fresh, 'yet another passphrase')).status).toBe(204);
    });

    it('of two links completed at once, one wins', async () => {
      const { email } = await signedInMember(stack, merchant.merchantId, 'viewer');
      const a = await resetToken(stack, email);
      const b = await resetToken(stack, email);
      const results = await Promise.all([complete(stack, a, 'passphrase number one'), complete(stack, b)]);
      expect(results.map((r) => r.status).sort()).toEqual([204, 410]);
    });
  });

  describe('password change', () => {
    it('checks the current password and the new one, ends the other sessions, renews this one, mails and audits', async () => {
      const { browser, email } = await signedInMember(stack, merchant.merchantId, 'support');
      const other = new DashboardBrowser(stack.baseUrl);
      expect((await other.signIn(email, PASSWORD)).status).toBe(200);
      const link = await resetToken(stack, email);
      const oldCookie = browser.cookie;

      const wrong = await browser.post('/dashboard/api/account/password', {
        currentPassword: 'not my password',
        newPassword: NEW_PASSWORD,
      });
      expect(wrong.status).toBe(403);
      expect(wrong.body.code).toBe('CURRENT_PASSWORD_INCORRECT');
      const short = await browser.post('/dashboard/api/account/password', {
        currentPassword: PASSWORD,
        newPassword: 'too short',
      });
      expect(short.status).toBe(400);

      const changed = await browser.post('/dashboard/api/account/password', {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      });
      expect(changed.status).toBe(200);
      expect(changed.body.csrfToken).toEqual(expect.any(String));
      // This browser has a new session (renewed, not the old cookie); the other browser is out.
      expect(browser.cookie).not.toBe(oldCookie);
      expect((await browser.get('/dashboard/api/session')).status).toBe(200);
      expect((await other.get('/dashboard/api/session')).status).toBe(401);
      // The reset link asked for before the change is dead.
      expect((await complete(stack, link)).status).toBe(410);
      expect((await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD)).status).toBe(401);
      expect((await new DashboardBrowser(stack.baseUrl).signIn(email, NEW_PASSWORD)).status).toBe(200);

      const [mail] = (await (await dashboardIdentity(stack)).outbox.to(email)).filter(
        (m) => m.kind === 'password-changed',
      );
      expect(mail!.text).toMatch(/password .* was just changed/);
      expect(mail!.text).not.toContain(NEW_PASSWORD);
      expect(mail!.text).not.toMatch(/reset-password\//);
      const mine = (await actions()).filter((e) => e.email === email).map((e) => [e.action, e.status]);
      expect(mine).toContainEqual(['account.password-changed', 200]);
      expect(mine).toContainEqual(['account.password-change-refused', 403]);
    });
  });

  describe('TOTP recovery codes', () => {
    it('ten shown once at activation, each signs in once in place of a code, counted, regenerated with a code, audited', async () => {
      const { browser, email } = await signedInMember(stack, merchant.merchantId, 'admin');
      const { secret, codes } = await enableTotp(browser);
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      for (const c of codes) expect(c).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
      // Stored hashed only.
      const stored = await (await dashboardIdentity(stack)).members.byEmail(email);
      expect(JSON.stringify(stored)).not.toContain(codes[0]!);
      expect((await browser.get('/dashboard/api/account/recovery-codes')).body).toEqual({ remaining: 10 });

      // In place of a TOTP code, typed loosely (upper case, no dashes): signs in once.
      const loose = codes[0]!.replace(/-/g, '').toUpperCase();
      const viaCode = await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD, loose);
      expect(viaCode.status).toBe(200);
      const again = await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD, codes[0]);
      expect(again.status).toBe(401);
      expect(again.body.code).toBe('TOTP_INVALID');
      expect((await browser.get('/dashboard/api/account')).body).toMatchObject({
        totpEnabled: true,
        recoveryCodesRemaining: 9,
      });
      // Two sign-ins racing with one code: one session.
      const race = await Promise.all(
        [0, 1, 2].map(() => new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD, codes[1])),
      );
      expect(race.map((r) => r.status).sort()).toEqual([200, 401, 401]);

      // A new set needs a TOTP code; the old set is void.
      const refused = await browser.post('/dashboard/api/account/recovery-codes', { code: '000000' });
      expect(refused.status).toBe(401);
      const regenerated = await browser.post('/dashboard/api/account/recovery-codes', {
        code: totpNow(secret, 1),
      });
      expect(regenerated.status).toBe(201);
      expect(regenerated.body.recoveryCodes).toHaveLength(10);
      expect((await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD, codes[2])).body.code).toBe(
        'TOTP_INVALID',
      );
      expect(
        (await new DashboardBrowser(stack.baseUrl).signIn(email, PASSWORD, regenerated.body.recoveryCodes[0]))
          .status,
      ).toBe(200);
      expect((await browser.get('/dashboard/api/account/recovery-codes')).body).toEqual({ remaining: 9 });

      const mine = (await actions()).filter((e) => e.email === email).map((e) => e.action);
      expect(mine.filter((a) => a === 'auth.recovery-code-used')).toHaveLength(3);
      expect(mine).toContain('account.recovery-codes-regenerated');
    });

    it('a member without TOTP has no recovery codes', async () => {
      const { browser } = await signedInMember(stack, merchant.merchantId, 'viewer');
      const res = await browser.get('/dashboard/api/account/recovery-codes');
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('TOTP_SETUP_REQUIRED');
    });
  });

  describe('sessions', () => {
    it("lists one's sessions without their tokens; ends one, all others, or all; audited", async () => {
      const { browser, email } = await signedInMember(stack, merchant.merchantId, 'developer');
      const firefox = new DashboardBrowser(stack.baseUrl);
      const phone = new DashboardBrowser(stack.baseUrl);
      const tablet = new DashboardBrowser(stack.baseUrl);
      const ua = {
        firefox: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0',
        phone:
          'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
      };
      const signIn = (b: DashboardBrowser, userAgent: string) =>
        b.request(
          'POST',
          '/dashboard/api/auth/sign-in',
          { email, password: PASSWORD },
          { 'user-agent': userAgent },
        );
      expect((await signIn(firefox, ua.firefox)).status).toBe(200);
      expect((await signIn(phone, ua.phone)).status).toBe(200);
      expect((await tablet.signIn(email, PASSWORD)).status).toBe(200);
      // Another member's sessions are not listed.
      await signedInMember(stack, merchant.merchantId, 'developer');

      const list = await browser.get('/dashboard/api/account/sessions');
      expect(list.status).toBe(200);
      expect(list.body.data).toHaveLength(4);
      const devices = list.body.data.map((s: { device: string }) => s.device);
      expect(devices).toEqual(expect.arrayContaining(['Firefox on Windows', 'Chrome on Android']));
      const current = list.body.data.filter((s: { current: boolean }) => s.current);
      expect(current).toHaveLength(1);
      expect(current[0]).toMatchObject({
        mode: 'test',
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
      });
      const text = JSON.stringify(list.body);
      for (const b of [browser, firefox, phone, tablet]) expect(text).not.toContain(b.cookie!);
      const stored = await stack.mongo.collection('dashboard_sessions').find({}).toArray();
      for (const s of stored) expect(text).not.toContain(String(s._id));

      // One session ended by its id: that browser is out.
      const phoneEntry = list.body.data.find((s: { device: string }) => s.device === 'Chrome on Android');
      expect(
        (await browser.request('DELETE', `/dashboard/api/account/sessions/${phoneEntry.id}`)).status,
      ).toBe(204);
      expect((await phone.get('/dashboard/api/session')).status).toBe(401);
      expect(
        (await browser.request('DELETE', `/dashboard/api/account/sessions/${phoneEntry.id}`)).status,
      ).toBe(404);

      // Every other session: this one stays.
      const others = await browser.request('DELETE', '/dashboard/api/account/sessions?keepCurrent=true');
      expect(others.status).toBe(200);
      expect(others.body).toEqual({ ended: 2, signedOut: false });
      expect((await firefox.get('/dashboard/api/session')).status).toBe(401);
      expect((await tablet.get('/dashboard/api/session')).status).toBe(401);
      expect((await browser.get('/dashboard/api/account/sessions')).body.data).toHaveLength(1);

      // Everywhere, this one too.
      expect((await firefox.signIn(email, PASSWORD)).status).toBe(200);
      const all = await browser.request('DELETE', '/dashboard/api/account/sessions');
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ ended: 2, signedOut: true });
      expect((await browser.get('/dashboard/api/session')).status).toBe(401);
      expect((await firefox.get('/dashboard/api/session')).status).toBe(401);

      const mine = (await actions()).filter((e) => e.email === email).map((e) => e.action);
      expect(mine).toEqual(
        expect.arrayContaining([
          'account.session-ended',
          'account.other-sessions-ended',
          'account.all-sessions-ended',
        ]),
      );
    });
  });

  describe('TOTP required for every member', () => {
    it('owner only, with TOTP; then a member without TOTP may only set it up; audited', async () => {
      const owner = await signedInMember(stack, merchant.merchantId, 'owner');
      const admin = await signedInMember(stack, merchant.merchantId, 'admin');
      const viewer = await signedInMember(stack, merchant.merchantId, 'viewer');
      const put = (b: DashboardBrowser, requireTotp: boolean) =>
        b.request('PUT', '/dashboard/api/team/settings', { requireTotp });

      expect((await owner.browser.get('/dashboard/api/team/settings')).body).toEqual({ requireTotp: false });
      const noTotp = await put(owner.browser, true);
      expect(noTotp.status).toBe(403);
      expect(noTotp.body.code).toBe('TOTP_SETUP_REQUIRED');
      await enableTotp(admin.browser);
      expect((await put(admin.browser, true)).body.code).toBe('ROLE_FORBIDDEN');
      expect((await viewer.browser.get('/dashboard/api/team/settings')).body.code).toBe('ROLE_FORBIDDEN');
      await enableTotp(owner.browser);
      try {
        expect((await put(owner.browser, true)).status).toBe(200);

        // The viewer (signed in before) and a sign-in now: the session says so, the rest is refused.
        const session = await viewer.browser.get('/dashboard/api/session');
        expect(session.status).toBe(200);
        expect(session.body.totpSetupRequired).toBe(true);
        for (const path of [
          '/dashboard/api/home',
          '/dashboard/api/v1/transactions',
          '/dashboard/api/account/sessions',
        ]) {
          const res = await viewer.browser.get(path);
          expect([path, res.status, res.body.code]).toEqual([path, 403, 'TOTP_SETUP_REQUIRED']);
        }
        const fr = await viewer.browser.get('/dashboard/api/home', { 'accept-language': 'fr' });
        expect(fr.status).toBe(403);
        // A path no route serves stays a 404, whatever the setting (no spelling reaches a handler).
        expect((await viewer.browser.get('/dashboard/api/HOME')).status).toBe(404);
        expect(fr.body.title).toBe('Configurez d’abord la vérification en deux étapes');
        const fresh = new DashboardBrowser(stack.baseUrl);
        expect((await fresh.signIn(viewer.email, PASSWORD)).body.totpSetupRequired).toBe(true);
        expect((await fresh.get('/dashboard/api/home')).status).toBe(403);
        // Members with TOTP are not affected.
        expect((await admin.browser.get('/dashboard/api/home')).status).toBe(200);
        expect((await owner.browser.get('/dashboard/api/home')).status).toBe(200);

        // Setting TOTP up opens the dashboard.
        await enableTotp(fresh);
        expect((await fresh.get('/dashboard/api/home')).status).toBe(200);
        expect((await fresh.get('/dashboard/api/session')).body.totpSetupRequired).toBe(false);
      } finally {
        expect((await put(owner.browser, false)).status).toBe(200);
      }
      const mine = (await actions()).filter((e) => e.email === owner.email).map((e) => e.action);
      expect(mine).toEqual(expect.arrayContaining(['team.require-totp-on', 'team.require-totp-off']));
      expect((await viewer.browser.get('/dashboard/api/home')).status).not.toBe(403);
    });
  });
});
