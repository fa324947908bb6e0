import { randomUUID } from 'node:crypto';
import { createInstance } from 'i18next';
import { eventually } from '../helpers/http';
import { signedInMember } from '../helpers/dashboard';
import { useStack } from '../helpers/use-stack';
import { auditActions } from '../../src/dashboard/access/audit-actions';
import { auditActionText, type DescribedAction } from '../../dashboard/src/audit-actions';
import { en } from '../../dashboard/src/locales/en';
import { fr } from '../../dashboard/src/locales/fr';

// Issue 41: the audit log records the outcome of every change (allowed or refused, its status and
// problem code) and what it did, structured, which the page renders in its language. A viewer's
// refused refund no longer looks like an owner's refund. Over the real dashboard app and stack.

interface Entry {
  action: string;
  target: string;
  status: number;
  outcome: string;
  problemCode: string | null;
  route: string | null;
  described: DescribedAction | null;
  email: string;
}

describe('the audit log: outcomes and readable actions', () => {
  const { stack, merchant, api } = useStack();

  it("records a viewer's refused refund as refused 403 ROLE_FORBIDDEN, an owner's as allowed 201, readable in en and fr", async () => {
    const reference = `order-${randomUUID().slice(0, 8)}`;
    const created = await api.post('/v1/direct/payin', {
      reference,
      sandboxScenario: 'completed',
      customerName: 'Awa Koné',
      payin: { amount: 10_000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });
    expect(created.status).toBe(201);
    await eventually(
      () => api.get(`/v1/payin/${reference}`),
      (r) => r.body.status === 'success',
    );
    const { browser: viewer, email: viewerEmail } = await signedInMember(
      stack,
      merchant.merchantId,
      'viewer',
    );
    const { browser: owner, email: ownerEmail } = await signedInMember(stack, merchant.merchantId, 'owner');

    const body = {
      amount: 5_000,
      reason: 'customer returned the goods',
      externalReference: `ext-${randomUUID().slice(0, 8)}`,
    };
    const refused = await viewer.post(`/dashboard/api/v1/payin/${reference}/refund`, body);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ROLE_FORBIDDEN');
    const refunded = await owner.post(`/dashboard/api/v1/payin/${reference}/refund`, body);
    expect(refunded.status).toBe(201);
    // A payout the viewer may not send: its number is kept masked only.
    const payout = await viewer.post('/dashboard/api/v1/payout', {
      reference: `po-${randomUUID().slice(0, 8)}`,
      amount: 10_000,
      msisdn: '+2250700004321',
      country: 'CI',
    });
    expect(payout.status).toBe(403);
    // Refused before any route matched (CSRF): recorded with its raw method and path.
    const forged = await owner.request(
      'POST',
      '/dashboard/api/team/invitations',
      { email: `x-${randomUUID().slice(0, 6)}@example.test`, role: 'support' },
      { 'x-csrf-token': 'forged' },
    );
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('CSRF_REFUSED');
    const invited = await owner.post('/dashboard/api/team/invitations', {
      email: `y-${randomUUID().slice(0, 6)}@example.test`,
      role: 'support',
    });
    expect(invited.status).toBe(201);

    const list = await eventually(
      () => owner.get('/dashboard/api/audit?limit=100'),
      (r) => (r.body.data as Entry[]).filter((e) => !e.action.startsWith('auth.')).length >= 5,
    );
    const entries = (list.body.data as Entry[]).filter((e) => !e.action.startsWith('auth.')).reverse();
    const [viewerRefund, ownerRefund, viewerPayout, csrf, invitation] = entries;
    expect(viewerRefund).toMatchObject({
      email: viewerEmail,
      outcome: 'refused',
      status: 403,
      problemCode: 'ROLE_FORBIDDEN',
      route: 'POST /v1/payin/:reference/refund',
      action: `POST /dashboard/api/v1/payin/${reference}/refund`,
      described: { kind: 'refund', params: { amount: 5_000, reference } },
    });
    expect(ownerRefund).toMatchObject({
      email: ownerEmail,
      outcome: 'allowed',
      status: 201,
      problemCode: null,
      route: 'POST /v1/payin/:reference/refund',
      described: { kind: 'refund', params: { amount: 5_000, currency: 'XOF', reference } },
    });
    expect(viewerPayout).toMatchObject({
      outcome: 'refused',
      status: 403,
      problemCode: 'ROLE_FORBIDDEN',
      described: { kind: 'payout', params: { amount: 10_000, phone: '+225 •• •• 43 21' } },
    });
    expect(csrf).toMatchObject({
      outcome: 'refused',
      status: 403,
      problemCode: 'CSRF_REFUSED',
      route: 'POST /team/invitations',
      action: 'POST /dashboard/api/team/invitations',
    });
    expect(invitation).toMatchObject({
      outcome: 'allowed',
      status: 201,
      route: 'POST /team/invitations',
      described: { kind: 'member-invited', params: { role: 'support' } },
    });
    // No phone number, whole or in part beyond its last four digits, and no invitee's address.
    const all = JSON.stringify(list.body.data);
    expect(all).not.toMatch(/0700004321|07000043|0500000001/);
    expect(all).not.toMatch(/[xy]-[0-9a-f]{6}@example\.test/);

    // As the page shows them, in its two languages.
    const render = async (lng: 'en' | 'fr', d: DescribedAction | null) => {
      const i18n = createInstance();
      await i18n.init({ lng, resources: { en: { translation: en }, fr: { translation: fr } } });
      return auditActionText(d, i18n.t, lng);
    };
    expect(await render('en', ownerRefund!.described)).toBe(`Refund of 5,000 XOF on ${reference}`);
    expect(await render('fr', ownerRefund!.described)).toMatch(
      new RegExp(`^Remboursement de 5\\s000 XOF sur ${reference}$`),
    );
    expect(await render('en', viewerPayout!.described)).toBe('Payout of 10,000 XOF to +225 •• •• 43 21');
    expect(await render('en', { kind: 'api-key-created', params: { mode: 'live' } })).toBe(
      'API key created (live)',
    );
    expect(await render('en', invitation!.described)).toBe('Member invited (support)');
    expect(await render('fr', invitation!.described)).toBe('Membre invité (support)');
    // Every described kind has its words in both languages.
    for (const { kind } of Object.values(auditActions))
      for (const lng of ['en', 'fr'] as const) expect(await render(lng, { kind, params: {} })).toBeTruthy();
    expect(await render('en', { kind: 'auth.sign-in', params: {} })).toBe('Signed in');
  });

  it('a path no route serves is a 404 before anything runs: nothing is recorded', async () => {
    const { browser } = await signedInMember(stack, merchant.merchantId, 'owner');
    const res = await browser.post('/dashboard/api/nothing/here', {});
    expect(res.status).toBe(404);
    // A known route after it: its entry is there, the unknown path's is not.
    expect((await browser.request('PUT', '/dashboard/api/session/mode', { mode: 'test' })).status).toBe(200);
    const list = await eventually(
      () => browser.get('/dashboard/api/audit?limit=20'),
      (r) => (r.body.data as Entry[]).some((e) => e.action === 'PUT /dashboard/api/session/mode'),
    );
    expect((list.body.data as Entry[]).filter((e) => e.target.includes('/nothing/here'))).toEqual([]);
  });
});
