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

// The merchant's logo on its links' pages (issue 46): set on the team's page, checked by its bytes.
describe("the dashboard: the merchant's logo", () => {
  // A 2 × 1 PNG, the brand's two colours.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAD0lEQVR4nGPg8p/2oJoBAAe8AktvQruNAAAAAElFTkSuQmCC',
    'base64',
  );
  const logo = '/dashboard/api/team/logo';
  const page = async (slug: string) => (await fetch(`${stack.baseUrl}/l/${slug}?lang=fr`)).text();
  const logoSrc = (html: string) => /<img class="logo" src="([^"]+)"/.exec(html)?.[1] ?? null;

  afterAll(async () => {
    await owner.request('DELETE', logo);
  });

  it('an owner uploads a PNG; the link pages of both modes show it, served from our origin and cached for good', async () => {
    const link = await created({ title: 'Avec logo' });
    expect(logoSrc(await page(link.slug))).toBeNull();

    const set = await owner.upload('PUT', logo, png, 'image/png');
    expect(set.status).toBe(200);
    expect(set.body.logo).toMatchObject({ contentType: 'image/png', bytes: png.length });
    const version = set.body.logo.version as string;
    expect((await owner.get(logo)).body.logo.version).toBe(version);
    const preview = await fetch(`${stack.baseUrl}${logo}/image`, {
      headers: { cookie: `dashboard_session=${owner.cookie}`, 'x-forwarded-for': owner.address },
    });
    expect(Buffer.from(await preview.arrayBuffer())).toEqual(png);

    const src = logoSrc(await page(link.slug));
    expect(src).toBe(`${link.slug}/logo?v=${version}`);
    const image = await fetch(`${stack.baseUrl}/l/${src}`);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer())).toEqual(png);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toContain('immutable');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    // Asked without its version, it may change: cached briefly only.
    const unversioned = await fetch(`${stack.baseUrl}/l/${link.slug}/logo`);
    expect(unversioned.headers.get('cache-control')).toBe('public, max-age=300');

    // The live mode's links are the same merchant's: the same logo.
    const live = (await signedInMember(stack, merchant.merchantId, 'developer')).browser;
    expect((await live.request('PUT', '/dashboard/api/session/mode', { mode: 'live' })).status).toBe(200);
    const liveLink = await live.post(links, openLink);
    expect(logoSrc(await page(liveLink.body.slug))).toBe(`${liveLink.body.slug}/logo?v=${version}`);

    // Another merchant's page shows none of it.
    const other = await createTestMerchant(stack, 'Sans logo');
    const theirs = await new ApiClient(stack.baseUrl, other.credentials).post('/v1/payment-links', openLink);
    expect(logoSrc(await page(theirs.body.slug))).toBeNull();
    expect((await fetch(`${stack.baseUrl}/l/${theirs.body.slug}/logo`)).status).toBe(404);

    // Removed: the page shows the name only, the file is gone.
    expect((await owner.request('DELETE', logo)).body).toEqual({ logo: null });
    expect(logoSrc(await page(link.slug))).toBeNull();
    expect((await fetch(`${stack.baseUrl}/l/${link.slug}/logo?v=${version}`)).status).toBe(404);
  });

  it("refuses what is not a small PNG, JPEG or WebP, whatever it claims, in the member's language", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const cases: Array<[Buffer, string]> = [
      [svg, 'image/svg+xml'],
      [svg, 'image/png'],
      [Buffer.concat([png, Buffer.alloc(100_000)]), 'image/png'],
      [png, 'text/html'],
      [Buffer.alloc(0), 'image/png'],
    ];
    for (const [bytes, type] of cases) {
      const res = await owner.upload('PUT', logo, bytes, type, { 'accept-language': 'fr' });
      expect([type, res.status, res.body.code, res.body.detail]).toEqual([
        type,
        400,
        'LOGO_INVALID',
        'Le logo doit être une image PNG, JPEG ou WebP de 100 Ko au plus.',
      ]);
    }
    expect((await owner.get(logo)).body).toEqual({ logo: null });
  });

  it('only members who manage the team set it; each change is in the audit log', async () => {
    type Entry = { described: { kind: string } | null; outcome: string };
    const outcomes = async () =>
      ((await owner.get('/dashboard/api/audit?limit=100')).body.data as Entry[])
        .filter((e) => e.described?.kind === 'logo-set')
        .map((e) => e.outcome);
    const before = await outcomes();
    for (const member of [developer, viewer])
      expect((await member.upload('PUT', logo, png, 'image/png')).status).toBe(403);
    expect((await owner.upload('PUT', logo, png, 'image/png')).status).toBe(200);
    const after = await eventually(outcomes, (o) => o.length === before.length + 3);
    // Newest first: the owner's upload, then the two refused.
    expect(after.slice(0, 3)).toEqual(['allowed', 'refused', 'refused']);
  });
});
