import { useStack } from '../helpers/use-stack';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { signedInMember, type DashboardBrowser } from '../helpers/dashboard';

// The dashboard's payment links page over the real servers (issue 46): its calls through the
// public API's door (/dashboard/api/v1/payment-links) as each role, in the session's mode, audited;
// the figures it shows (opened, attempted, paid, total) after a customer pays through the link's
// page; and the export of a link's payments (/dashboard/api/payment-links/:id/export).

const { stack, merchant } = useStack({
  merchant: 'Boutique Akwaba',
  config: { CHECKOUT_REQUESTS_PER_MINUTE: '0' },
});
let developer: DashboardBrowser;
let viewer: DashboardBrowser;
let owner: DashboardBrowser;

const openLink = {
  title: 'Don libre',
  amount: { type: 'open', min: 500, max: 50_000 },
  currency: 'XOF',
  countries: ['CI'],
};
const links = '/dashboard/api/v1/payment-links';
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };
const tokenOf = (html: string) => /name="token" value="([^"]+)"/.exec(html)![1]!;

beforeAll(async () => {
  const scope = merchant.merchantId;
  ({ browser: developer } = await signedInMember(stack, scope, 'developer'));
  ({ browser: viewer } = await signedInMember(stack, scope, 'viewer'));
  ({ browser: owner } = await signedInMember(stack, scope, 'owner'));
});

async function created(extra: Record<string, unknown> = {}) {
  const res = await developer.post(links, { ...openLink, ...extra });
  expect(res.status).toBe(201);
  return res.body as { id: string; slug: string; url: string; status: string };
}

/** A customer pays `amount` through the link's page, then confirms with MTN at the checkout. */
async function pay(slug: string, amount: string, msisdn = '05 00 00 43 21') {
  const base = stack.baseUrl;
  const html = await (await fetch(`${base}/l/${slug}?lang=fr`)).text();
  const posted = await fetch(`${base}/l/${slug}?lang=fr`, {
    method: 'POST',
    headers: formHeaders,
    body: new URLSearchParams({ token: tokenOf(html), amount, msisdn, name: 'Awa Koné' }).toString(),
    redirect: 'manual',
  });
  expect(posted.status).toBe(303);
  const id = /\/checkout\/(pr_[0-9a-f]{24})/.exec(posted.headers.get('location') ?? '')![1]!;
  const confirm = await fetch(`${base}/checkout/${id}/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'MTN', msisdn }),
  });
  expect(confirm.status).toBe(200);
}

describe('the dashboard: payment links', () => {
  it('a developer creates a link; a viewer lists and reads it but may not create or deactivate one', async () => {
    const link = await created();
    expect(link.status).toBe('active');
    const list = await viewer.get(`${links}?limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((l: { id: string }) => l.id)).toContain(link.id);
    const read = await viewer.get(`${links}/${link.id}`);
    expect(read.body).toMatchObject({ id: link.id, livemode: false, stats: { opened: 0, attempted: 0 } });
    const qr = await viewer.get(`${links}/${link.id}/qr?format=png`);
    expect([qr.status, qr.headers.get('content-type')]).toEqual([200, 'image/png']);

    const refused = await viewer.post(links, openLink);
    expect([refused.status, refused.body.code]).toEqual([403, 'ROLE_FORBIDDEN']);
    const notDeactivated = await viewer.post(`${links}/${link.id}/deactivate`);
    expect([notDeactivated.status, notDeactivated.body.code]).toEqual([403, 'ROLE_FORBIDDEN']);
    expect((await viewer.get(`${links}/${link.id}`)).body.status).toBe('active');
  });

  it("refuses a bad form in the member's language, with the field at fault, never a 500", async () => {
    const bounds = await developer.post(
      links,
      { ...openLink, amount: { type: 'open', min: 9000, max: 100 } },
      { 'accept-language': 'fr' },
    );
    expect(bounds.status).toBe(400);
    expect(bounds.body.errors[0].path).toBe('amount.min');
    const currency = await developer.post(
      links,
      { ...openLink, currency: 'XAF' },
      { 'accept-language': 'fr' },
    );
    expect([currency.status, currency.body.errors]).toEqual([
      400,
      [{ path: 'countries.0', message: 'Les paiements en CI sont en XOF.' }],
    ]);
  });

  it('counts each page served, each payin and those paid, and exports the payments with phones masked', async () => {
    const link = await created({ title: 'Cotisation' });
    // Page views at once: every one counts (a record each; concurrent $inc could lose some).
    await Promise.all(Array.from({ length: 8 }, () => fetch(`${stack.baseUrl}/l/${link.slug}`)));
    await pay(link.slug, '2500');
    await pay(link.slug, '7 000', '05 00 00 87 65');
    const read = await eventually(
      () => viewer.get(`${links}/${link.id}`),
      (r) => r.body.stats.paid === 2,
    );
    // 8 views, and one for each payment's own visit of the page.
    expect(read.body.stats).toEqual({ opened: 10, attempted: 2, paid: 2, paidTotal: 9500 });
    const payments = await viewer.get(`${links}/${link.id}/payments`);
    expect(payments.body.data.map((p: { amount: number; status: string }) => [p.amount, p.status])).toEqual([
      [7000, 'success'],
      [2500, 'success'],
    ]);

    const csv = await viewer.get(`/dashboard/api/payment-links/${link.id}/export?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toMatch(
      new RegExp(`filename="?payment-link-${link.id}-\\d{4}-\\d\\d-\\d\\d\\.csv"?`),
    );
    const [header, ...rows] = String(csv.body)
      .replace(/^\ufeff/, '')
      .trim()
      .split('\n');
    expect(header).toBe(
      'Reference,Status,Amount,Currency,Fee,Phone number,Operator,Why it failed,Created (UTC)',
    );
    expect(rows).toHaveLength(2);
    // A session's payin names no operator in its public record (the customer chose it on the
    // checkout): the column stays empty, as in the transactions export.
    expect(rows[0]).toMatch(/^link-[0-9a-z]{12},success,7000,XOF,\d+,\+225 •• •• 87 65,,,20/);
    expect(rows[1]).toMatch(/^link-[0-9a-z]{12},success,2500,XOF,\d+,\+225 •• •• 43 21,,,20/);
    expect(String(csv.body)).not.toContain('0500004321');

    const fr = await viewer.get(`/dashboard/api/payment-links/${link.id}/export?format=csv`, {
      'accept-language': 'fr',
    });
    expect(fr.headers.get('content-disposition')).toMatch(/filename="?lien-de-paiement-/);
    expect(String(fr.body).replace(/^\ufeff/, '')).toMatch(/^Référence;Statut;Montant;Devise;/);
    const xlsx = await viewer.get(`/dashboard/api/payment-links/${link.id}/export?format=xlsx`);
    expect(xlsx.headers.get('content-type')).toContain('spreadsheetml');
    const bad = await viewer.get(`/dashboard/api/payment-links/${link.id}/export?format=pdf`, {
      'accept-language': 'fr',
    });
    expect([bad.status, bad.body.errors[0].path]).toEqual([400, 'format']);
    const unknown = await viewer.get('/dashboard/api/payment-links/pl_000000000000000000000000/export');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'PAYMENT_LINK_NOT_FOUND']);
  });

  it('a deactivation amid page views stays: views never write the link back', async () => {
    const link = await created();
    const views = Array.from({ length: 10 }, () => fetch(`${stack.baseUrl}/l/${link.slug}`));
    const off = await developer.post(`${links}/${link.id}/deactivate`);
    expect(off.status).toBe(200);
    await Promise.all(views);
    const read = await viewer.get(`${links}/${link.id}`);
    expect(read.body.status).toBe('inactive');
    expect(read.body.stats.opened).toBeGreaterThanOrEqual(1);
    expect(read.body.stats.opened).toBeLessThanOrEqual(10);
  });

  it('writes who created and deactivated a link to the audit log, with the mode', async () => {
    const link = await created({ title: 'Audit' });
    // Its payins taken away as a file: an audited read.
    expect((await developer.get(`/dashboard/api/payment-links/${link.id}/export?format=csv`)).status).toBe(
      200,
    );
    expect((await developer.post(`${links}/${link.id}/deactivate`)).status).toBe(200);
    const entries = await eventually(
      () => owner.get('/dashboard/api/audit?limit=100'),
      (r) =>
        r.body.data.some(
          (e: { target: string; action: string }) =>
            e.target === `/dashboard/api/v1/payment-links/${link.id}/deactivate`,
        ),
    );
    type Entry = { target: string; described: { kind: string } | null; mode: string; outcome: string };
    const ours = (entries.body.data as Entry[]).filter((e) => e.target.includes(link.id));
    expect(ours.map((e) => [e.described?.kind, e.mode, e.outcome])).toEqual([
      ['payment-link-deactivated', 'test', 'allowed'],
      ['list-exported', 'test', 'allowed'],
    ]);
    const made = (entries.body.data as Entry[]).filter(
      (e) => e.described?.kind === 'payment-link-created' && e.outcome === 'allowed',
    );
    expect(made.length).toBeGreaterThanOrEqual(1);
    // The viewer's refused attempt of the first test is there too, as refused.
    expect(
      (entries.body.data as Entry[]).some(
        (e) => e.described?.kind === 'payment-link-created' && e.outcome === 'refused',
      ),
    ).toBe(true);
  });

  it("a live session sees none of test mode's links, nor their payments", async () => {
    const link = await created();
    const live = (await signedInMember(stack, merchant.merchantId, 'developer')).browser;
    const switched = await live.request('PUT', '/dashboard/api/session/mode', { mode: 'live' });
    expect(switched.status).toBe(200);
    expect((await live.get(`${links}/${link.id}`)).status).toBe(404);
    expect((await live.get(`/dashboard/api/payment-links/${link.id}/export`)).status).toBe(404);
    const list = await live.get(links);
    expect(list.body.data.map((l: { id: string }) => l.id)).not.toContain(link.id);
    const own = await live.post(links, openLink);
    expect([own.status, own.body.livemode]).toEqual([201, true]);
    expect((await developer.get(`${links}/${own.body.id}`)).status).toBe(404);
  });

  it("another merchant's link is not found, by the door nor by the export", async () => {
    const other = await createTestMerchant(stack, 'Autre boutique');
    const theirs = await new ApiClient(stack.baseUrl, other.credentials).post('/v1/payment-links', openLink);
    expect(theirs.status).toBe(201);
    const id = theirs.body.id as string;
    expect((await viewer.get(`${links}/${id}`)).status).toBe(404);
    expect((await viewer.get(`${links}/${id}/payments`)).status).toBe(404);
    expect((await viewer.get(`/dashboard/api/payment-links/${id}/export`)).status).toBe(404);
    expect((await developer.post(`${links}/${id}/deactivate`)).status).toBe(404);
  });
});
