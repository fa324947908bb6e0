import { useStack } from '../helpers/use-stack';
import { eventually } from '../helpers/http';
import { fundMerchant } from '../helpers/merchants';
import { dashboardIdentity, signedInMember, type DashboardBrowser } from '../helpers/dashboard';
import { ProviderHealth } from '../../src/operators/health';
import type { DashboardIdentity } from '../../src/dashboard/identity';
import type { DashboardAlert } from '../../src/dashboard/data/shapes';

// The dashboard's alerts over the real servers (issue 44 §2; docs/dashboard.md, Alerts): computed
// when read in the session's mode from the service's own records (a disabled webhook endpoint, an
// operator forced down, a balance below the owner's threshold, a statement made ready), set on the
// Team page by those who manage the team, and mailed once to the owners and admins by the API's
// own sweep (ALERT_MAIL_EVERY), which a second and third pass never repeat.

const { stack, merchant, api } = useStack({
  merchant: 'Boutique Akwaba',
  config: { ALERT_MAIL_EVERY: '300ms', PROVIDER_HEALTH_CACHE: '0s' },
});
let owner: { browser: DashboardBrowser; email: string };
let admin: { browser: DashboardBrowser; email: string };
let viewer: { browser: DashboardBrowser; email: string };
let developer: { browser: DashboardBrowser; email: string };
let identity: DashboardIdentity;
let health: ProviderHealth;

const alertsOf = async (b: DashboardBrowser): Promise<DashboardAlert[]> => {
  const res = await b.get('/dashboard/api/alerts');
  expect(res.status).toBe(200);
  return res.body.data as DashboardAlert[];
};
const put = (b: DashboardBrowser, body: unknown, lang = 'en') =>
  b.request('PUT', '/dashboard/api/team/alerts', body, { 'accept-language': lang });
const settings = (xof: number | null, email: boolean) => ({ balanceBelow: { XOF: xof, XAF: null }, email });
const alertMails = async (address: string) =>
  (await identity.outbox.to(address)).filter((m) => m.kind === 'alert');

beforeAll(async () => {
  const scope = merchant.merchantId;
  owner = await signedInMember(stack, scope, 'owner');
  admin = await signedInMember(stack, scope, 'admin');
  viewer = await signedInMember(stack, scope, 'viewer');
  developer = await signedInMember(stack, scope, 'developer');
  identity = await dashboardIdentity(stack);
  health = new ProviderHealth(stack.mongo, {
    windowMs: 600_000,
    minAttempts: 5,
    cacheMs: 0,
    routed: () => true,
  });
  await fundMerchant(stack, scope, 20_000);
});

describe('the dashboard: alerts', () => {
  it('none at first; the settings are the defaults, read and changed by owners and admins only', async () => {
    expect(await alertsOf(viewer.browser)).toEqual([]);
    expect((await owner.browser.get('/dashboard/api/team/alerts')).body).toEqual(settings(null, false));
    for (const who of [viewer, developer]) {
      expect((await who.browser.get('/dashboard/api/team/alerts')).status).toBe(403);
      const refused = await put(who.browser, settings(1000, true));
      expect([refused.status, refused.body.code]).toEqual([403, 'ROLE_FORBIDDEN']);
    }
    const bad = await put(admin.browser, { balanceBelow: { XOF: 'beaucoup', XAF: -5 }, email: true }, 'fr');
    expect(bad.status).toBe(400);
    const paths = (bad.body.errors as { path: string; message: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['balanceBelow.XAF', 'balanceBelow.XOF']);
    // In the page's language, never a developer's words.
    for (const e of bad.body.errors as { message: string }[])
      expect(e.message).not.toMatch(/string|number expected/i);
    expect((await owner.browser.get('/dashboard/api/team/alerts')).body).toEqual(settings(null, false));
  });

  it('raises each condition in words the page renders, and drops it once its cause is gone', async () => {
    // A main balance below the threshold (20,000 XOF funded).
    expect((await put(admin.browser, settings(50_000, false))).status).toBe(200);
    // A webhook endpoint disabled by hand.
    const endpoint = await api.post('/v1/webhooks', { url: 'https://merchant.example/hooks' });
    expect(endpoint.status).toBe(201);
    expect((await api.post(`/v1/webhooks/${endpoint.body.id}/disable`, {})).status).toBe(200);
    // An operator forced down by ops, in this (test) mode only.
    await health.setOverride('test', 'MTN_CI', 'payin', 'closed', 3_600_000, 'alerts test');
    // A statement of the XOF account, made ready.
    const account = (await api.get('/v1/accounts')).body.data.find(
      (a: { currency: string; kind: string }) => a.currency === 'XOF' && a.kind === 'main',
    );
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const st = await api.post('/v1/statements', {
      accountId: account.id,
      from: `${day}T00:00:00Z`,
      to: `${day}T23:59:59Z`,
      format: 'csv',
    });
    expect(st.status).toBe(202);

    const alerts = await eventually(
      () => alertsOf(owner.browser),
      (list) => list.some((a) => a.kind === 'statement-ready'),
      60_000,
    );
    expect(alerts.map((a) => a.kind)).toEqual([
      // The most severe first: critical, then warning, then information.
      ...alerts.filter((a) => a.severity === 'critical').map((a) => a.kind),
      ...alerts.filter((a) => a.severity === 'warning').map((a) => a.kind),
      ...alerts.filter((a) => a.severity === 'info').map((a) => a.kind),
    ]);
    expect(alerts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'webhook-disabled',
          severity: 'critical',
          endpoint: { id: endpoint.body.id, url: 'https://merchant.example/hooks' },
          reason: 'disabled by the merchant',
        }),
        expect.objectContaining({
          kind: 'operator',
          severity: 'critical',
          operator: 'MTN',
          country: 'CI',
          operation: 'payin',
          state: 'closed',
        }),
        expect.objectContaining({
          kind: 'balance-low',
          severity: 'warning',
          currency: 'XOF',
          balance: 20_000,
          threshold: 50_000,
        }),
        expect.objectContaining({ kind: 'statement-ready', severity: 'info', statementId: st.body.id }),
      ]),
    );
    expect(alerts).toHaveLength(4);
    // An endpoint's address may carry the merchant's own token: only those who see the endpoints see its alerts.
    expect((await alertsOf(developer.browser)).map((a) => a.kind)).toContain('webhook-disabled');
    expect((await alertsOf(viewer.browser)).map((a) => a.kind).sort()).toEqual([
      'balance-low',
      'operator',
      'statement-ready',
    ]);

    // Causes gone: the threshold lowered, the endpoint enabled, the operator back.
    expect((await put(owner.browser, settings(10_000, false))).status).toBe(200);
    expect((await api.post(`/v1/webhooks/${endpoint.body.id}/enable`, {})).status).toBe(200);
    await health.clearOverride('test', 'MTN_CI', 'payin');
    expect((await alertsOf(viewer.browser)).map((a) => a.kind)).toEqual(['statement-ready']);
  });

  it('mails each new alert once to the owners and admins, however many passes see it', async () => {
    expect((await put(owner.browser, settings(50_000, true))).status).toBe(200);
    const [ownerMail] = await eventually(
      () => alertMails(owner.email),
      (list) => list.some((m) => m.subject.includes('balance below threshold')),
      30_000,
    ).then((list) => list.filter((m) => m.subject.includes('balance below threshold')));
    expect(ownerMail!.subject).toBe('[TEST] Boutique Akwaba: balance below threshold / solde sous le seuil');
    expect(ownerMail!.text).toContain('The XOF balance is 20 000, below your threshold of 50 000.');
    expect(ownerMail!.text).toContain('Le solde XOF est de 20 000, sous votre seuil de 50 000.');
    await eventually(
      () => alertMails(admin.email),
      (list) => list.some((m) => m.subject.includes('balance below threshold')),
      30_000,
    );
    // The statement made ready earlier is mailed too, once.
    await eventually(
      () => alertMails(owner.email),
      (list) => list.some((m) => m.subject.includes('statement ready')),
      30_000,
    );
    // Several more passes (every 300 ms): nothing is mailed twice, nobody else is mailed.
    await new Promise((r) => setTimeout(r, 2_000));
    for (const who of [owner, admin]) {
      const subjects = (await alertMails(who.email)).map((m) => m.subject).sort();
      expect(subjects).toEqual([...new Set(subjects)]);
      expect(subjects).toHaveLength(2);
    }
    for (const who of [viewer, developer]) expect(await alertMails(who.email)).toEqual([]);
    // The change is in the audit log, as the team's other settings are.
    const audit = await owner.browser.get('/dashboard/api/audit?limit=50');
    expect(
      (audit.body.data as { described?: { kind: string } | null }[]).some(
        (e) => e.described?.kind === 'alerts-changed',
      ),
    ).toBe(true);
  });
});
