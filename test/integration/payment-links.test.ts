import { PNG } from 'pngjs';
import jsQR from 'jsqr';
import { basic, eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { paymentLinkRecord } from '../../src/contract/schemas/payment-links';

// Payment links' management API (docs/payment-links.md), over HTTP against the real stack.
describe('payment links: the management API', () => {
  const { stack, merchant, api } = useStack({ merchant: 'Boutique Wax' });

  const fixed = {
    title: 'Pagne wax',
    amount: { type: 'fixed', value: 15000 },
    currency: 'XOF',
    countries: ['CI'],
    referencePrefix: 'WAX',
  };
  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await api.post('/v1/payment-links', { ...fixed, ...extra });
    expect(res.status).toBe(201);
    return paymentLinkRecord.parse(res.body);
  };
  const fr = { 'accept-language': 'fr' };

  it('creates a link: an unguessable slug, its url on the service, share texts in fr and en', async () => {
    const link = await create({ description: 'Livraison 48 h', customerFields: { question: 'Taille ?' } });
    expect(link.id).toMatch(/^pl_[0-9a-f]{24}$/);
    expect(link.slug).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(link.url).toBe(`${stack.baseUrl}/l/${link.slug}`);
    expect(link).toMatchObject({
      title: 'Pagne wax',
      description: 'Livraison 48 h',
      amount: { type: 'fixed', value: 15000 },
      operators: ['ORANGE', 'MTN', 'MOOV', 'WAVE'],
      usage: 'reusable',
      status: 'active',
      customerFields: { name: true, email: false, question: 'Taille ?' },
      referencePrefix: 'WAX',
      livemode: false,
      stats: { opened: 0, attempted: 0, paid: 0, paidTotal: 0 },
    });
    expect(link.share.whatsapp.fr).toContain(link.url);
    expect(link.share.whatsapp.fr).toContain('Payez');
    expect(link.share.sms.en).toContain('15\u00a0000\u00a0XOF');
    expect(link.share.sms.en).toContain(link.url);
    const other = await create();
    expect(other.slug).not.toBe(link.slug);

    const read = await api.get(`/v1/payment-links/${link.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(link);
  });

  it("refuses at creation what a provider would refuse, in the caller's language", async () => {
    const currency = await api.post('/v1/payment-links', { ...fixed, countries: ['CM'] }, fr);
    expect(currency.status).toBe(400);
    expect(currency.body.errors).toEqual([
      { path: 'countries.0', message: 'Les paiements en CM sont en XAF.' },
    ]);

    const operator = await api.post('/v1/payment-links', {
      ...fixed,
      operators: ['WAVE'],
      countries: ['CI'],
    });
    expect(operator.status).toBe(201);
    const notOffered = await api.post(
      '/v1/payment-links',
      { ...fixed, currency: 'XAF', countries: ['CM'], operators: ['WAVE'] },
      fr,
    );
    expect(notOffered.status).toBe(400);
    expect(notOffered.body.errors[0]).toMatchObject({ path: 'operators.0' });
    expect(notOffered.body.errors[0].message).toContain("n'est pas proposé en CM");

    const tooMuch = await api.post(
      '/v1/payment-links',
      { ...fixed, amount: { type: 'fixed', value: 2_000_000 } },
      fr,
    );
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.code).toBe('AMOUNT_OUT_OF_RANGE');
    expect(tooMuch.body.errors).toEqual([
      { path: 'amount.value', message: 'Les opérateurs du lien acceptent de 100 à 1500000 XOF.' },
    ]);

    const minMax = await api.post('/v1/payment-links', {
      ...fixed,
      amount: { type: 'open', min: 5000, max: 1000 },
    });
    expect(minMax.status).toBe(400);
    expect(minMax.body.errors).toEqual([{ path: 'amount.min', message: 'Must not be above max.' }]);

    const past = await api.post('/v1/payment-links', { ...fixed, expiresAt: '2020-01-01T00:00:00Z' }, fr);
    expect([past.status, past.body.errors]).toEqual([
      400,
      [{ path: 'expiresAt', message: 'Doit être dans le futur.' }],
    ]);

    const cap = await api.post('/v1/payment-links', { ...fixed, cap: { maxTotal: 1000 } });
    expect([cap.status, cap.body.errors?.[0]?.path]).toEqual([400, 'cap.maxTotal']);

    const badPrefix = await api.post('/v1/payment-links', { ...fixed, referencePrefix: 'a b' });
    expect([badPrefix.status, badPrefix.body.errors?.[0]?.path]).toEqual([400, 'referencePrefix']);
  });

  it('an open amount within bounds; lists newest first by cursor; PATCH and deactivate', async () => {
    const open = await create({ title: 'Don', amount: { type: 'open', min: 500 }, usage: 'single' });
    expect(open.amount).toEqual({ type: 'open', min: 500 });
    expect(open.share.whatsapp.fr).toContain('montant au choix');

    const first = await api.get('/v1/payment-links?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0].id).toBe(open.id);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const seen = [...first.body.data.map((l: { id: string }) => l.id)];
    let cursor: string | null = first.body.nextCursor;
    while (cursor) {
      const page = await api.get(`/v1/payment-links?limit=2&cursor=${cursor}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((l: { id: string }) => l.id));
      cursor = page.body.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect((await api.get('/v1/payment-links?cursor=nope')).status).toBe(400);

    const patched = await api.request('PATCH', `/v1/payment-links/${open.id}`, {
      title: 'Don libre',
      expiresAt: '2099-01-01T00:00:00Z',
      thankYouMessage: 'Merci !',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      title: 'Don libre',
      expiresAt: '2099-01-01T00:00:00.000Z',
      thankYouMessage: 'Merci !',
      amount: open.amount,
    });
    const cleared = await api.request('PATCH', `/v1/payment-links/${open.id}`, { expiresAt: null });
    expect(cleared.body.expiresAt).toBeNull();
    expect((await api.request('PATCH', `/v1/payment-links/${open.id}`, {})).status).toBe(400);
    expect((await api.request('PATCH', `/v1/payment-links/${open.id}`, { amount: 5 })).status).toBe(400);

    const off = await api.post(`/v1/payment-links/${open.id}/deactivate`, undefined);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: 'inactive', deactivatedAt: expect.any(String) });
    const again = await api.post(`/v1/payment-links/${open.id}/deactivate`, undefined);
    expect([again.status, again.body.deactivatedAt]).toEqual([200, off.body.deactivatedAt]);
  });

  it("another merchant's link, or none, is a 404 in the caller's language", async () => {
    const link = await create();
    const missing = await api.get('/v1/payment-links/pl_000000000000000000000000', fr);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      code: 'PAYMENT_LINK_NOT_FOUND',
      title: 'Lien de paiement introuvable',
    });
    const { createTestMerchant } = await import('../helpers/merchants');
    const other = await createTestMerchant(stack, 'Other shop');
    const res = await fetch(`${stack.baseUrl}/v1/payment-links/${link.id}`, {
      headers: { authorization: basic(other.credentials) },
    });
    expect(res.status).toBe(404);
    void merchant;
  });

  it('the QR code (SVG and PNG) holds the link URL', async () => {
    const link = await create();
    const auth = { authorization: basic(merchant.credentials) };
    const svg = await fetch(`${stack.baseUrl}/v1/payment-links/${link.id}/qr`, { headers: auth });
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await svg.text()).toMatch(/^<svg/);

    const png = await fetch(`${stack.baseUrl}/v1/payment-links/${link.id}/qr?format=png`, { headers: auth });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    // Decoded as a phone's camera app would, by an independent decoder (jsQR).
    const image = PNG.sync.read(Buffer.from(await png.arrayBuffer()));
    const decoded = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
    expect(decoded?.data).toBe(link.url);
    expect(
      (await fetch(`${stack.baseUrl}/v1/payment-links/${link.id}/qr?format=gif`, { headers: auth })).status,
    ).toBe(400);
  });

  describe("the customer's page", () => {
    const formHeaders = {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
    };
    const submit = (link: { slug: string }, fields: Record<string, string>, lang = 'en') =>
      fetch(`${stack.baseUrl}/l/${link.slug}?lang=${lang}`, {
        method: 'POST',
        headers: formHeaders,
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
    const page = (link: { slug: string }, headers: Record<string, string> = {}) =>
      fetch(`${stack.baseUrl}/l/${link.slug}`, { headers: { accept: 'text/html', ...headers } });
    const tokenOf = (html: string) => /name="token" value="([^"]+)"/.exec(html)![1]!;
    const checkoutIdOf = (location: string | null) =>
      /\/checkout\/(pr_[0-9a-f]{24})\?lang=/.exec(location ?? '')![1]!;

    it("shows the title, the merchant, the amount field and test mode, in the customer's language", async () => {
      const link = await create({
        title: 'Don <libre>',
        amount: { type: 'open', min: 500, max: 50000 },
        customerFields: { name: true, email: true, question: 'Votre quartier ?' },
      });
      const res = await page(link, { 'accept-language': 'fr-CI,fr;q=0.9' });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('<html lang="fr">');
      expect(html).toContain('<h1>Don &lt;libre&gt;</h1>');
      expect(html).toContain('Paiement à Boutique Wax');
      expect(html).toContain('Mode test');
      expect(html).toMatch(/<input[^>]*id="amount"/);
      expect(html).toContain('Votre quartier ?');
      expect(html).toMatch(/<input[^>]*id="email"/);
      expect(tokenOf(html)).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const read = await api.get(`/v1/payment-links/${link.id}`);
      expect(read.body.stats).toMatchObject({ opened: 1, attempted: 0 });
    });

    it('checks the amount and fields before any payin, then opens one session for a double tap', async () => {
      const link = await create({
        title: 'Don',
        amount: { type: 'open', min: 500, max: 50000 },
        customerFields: { email: true, question: 'Votre quartier ?' },
      });
      const token = tokenOf(await (await page(link)).text());
      const tooLow = await submit(
        link,
        { token, amount: '100', msisdn: '05 00 00 00 01', name: 'Awa' },
        'fr',
      );
      expect(tooLow.status).toBe(400);
      const html = await tooLow.text();
      expect(html).toMatch(/<input aria-describedby="amount-error" aria-invalid="true"[^>]*value="100"/);
      expect(html).toContain('Les opérateurs du lien acceptent de 500 à 50000 XOF.');
      const badPhone = await submit(link, { token, amount: '2500', msisdn: '12', name: 'Awa' });
      expect(badPhone.status).toBe(400);
      expect((await api.get(`/v1/payment-links/${link.id}`)).body.stats.attempted).toBe(0);

      const noEmail = await submit(link, { token, amount: '2500', msisdn: '05 00 00 00 01', name: 'Awa' });
      expect(noEmail.status).toBe(400);
      const fields = {
        token,
        amount: '2 500',
        msisdn: '05 00 00 00 01',
        name: 'Awa Koné',
        email: 'awa@example.com',
        answer: 'Cocody',
      };
      const [first, second] = await Promise.all([submit(link, fields), submit(link, fields)]);
      expect([first.status, second.status]).toEqual([303, 303]);
      expect(first.headers.get('location')).toBe(second.headers.get('location'));
      const id = checkoutIdOf(first.headers.get('location'));
      expect(first.headers.get('location')).toBe(`${stack.baseUrl}/checkout/${id}?lang=en`);

      const payments = await api.get(`/v1/payment-links/${link.id}/payments`);
      expect(payments.status).toBe(200);
      expect(payments.body.data).toHaveLength(1);
      expect(payments.body.data[0]).toMatchObject({
        id,
        amount: 2500,
        paymentLinkId: link.id,
        customer: { name: 'Awa Koné', phoneNumber: '+2250500000001' },
        customerEmail: 'awa@example.com',
        customerAnswer: 'Cocody',
      });
      expect(payments.body.data[0].reference).toMatch(/^WAX-[0-9a-z]{12}$/);
      const checkout = await fetch(`${stack.baseUrl}/checkout/${id}`, { headers: { accept: 'text/html' } });
      expect(checkout.status).toBe(200);
    });

    it('a single-use link takes one payin at a time and is spent once paid; a deactivated one says so', async () => {
      const link = await create({ usage: 'single' });
      const first = await submit(link, {
        token: tokenOf(await (await page(link)).text()),
        msisdn: '05 00 00 00 01',
        name: 'Awa',
      });
      expect(first.status).toBe(303);
      const id = checkoutIdOf(first.headers.get('location'));
      // A second customer while the first payin is under way: told to wait, no second payin.
      const busy = await submit(
        link,
        { token: 'another-form-token-0123', msisdn: '05 00 00 00 02', name: 'Yao' },
        'fr',
      );
      expect(busy.status).toBe(409);
      expect(await busy.text()).toContain('Un paiement est en cours sur ce lien.');

      const confirm = await fetch(`${stack.baseUrl}/checkout/${id}/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'MTN', msisdn: '05 00 00 00 01' }),
      });
      expect(confirm.status).toBe(200);
      const paid = await eventually(
        () => api.get(`/v1/payment-links/${link.id}`),
        (r) => r.body.stats.paid === 1,
      );
      expect(paid.body).toMatchObject({
        status: 'spent',
        stats: { attempted: 1, paid: 1, paidTotal: 15000 },
      });
      // The link's own event, beside the payin's, carrying the payin record that names the link.
      const [payin] = (await api.get(`/v1/payment-links/${link.id}/payments`)).body.data;
      const events = await eventually(
        () => api.get(`/v1/events?reference=${payin.reference}&limit=10`),
        (r) => r.body.data.some((e: { type: string }) => e.type === 'payment_link.paid'),
      );
      const types = events.body.data.map((e: { type: string }) => e.type).sort();
      expect(types).toEqual(['payin.completed', 'payment_link.paid']);
      const linkEvent = events.body.data.find((e: { type: string }) => e.type === 'payment_link.paid');
      expect(linkEvent.data).toMatchObject({ id, status: 'success', paymentLinkId: link.id });
      const spent = await page(link, { 'accept-language': 'fr' });
      expect(spent.status).toBe(410);
      expect(await spent.text()).toContain('Ce lien a déjà été utilisé.');
      const late = await submit(link, {
        token: 'a-third-form-token-0123',
        msisdn: '05 00 00 00 03',
        name: 'Ama',
      });
      expect(late.status).toBe(410);

      const other = await create();
      await api.post(`/v1/payment-links/${other.id}/deactivate`, undefined);
      const off = await fetch(`${stack.baseUrl}/l/${other.slug}?lang=en`);
      expect(off.status).toBe(410);
      expect(await off.text()).toContain('The merchant has deactivated this link.');
      expect((await fetch(`${stack.baseUrl}/l/NoSuchSlug0000000000`)).status).toBe(404);
      const thanks = await fetch(`${stack.baseUrl}/l/${other.slug}/thanks?lang=fr`);
      expect([thanks.status, (await thanks.text()).includes('Votre paiement a bien été reçu.')]).toEqual([
        200,
        true,
      ]);
    });

    it("the checkout offers the link's operators only", async () => {
      const link = await create({ operators: ['MTN', 'MOOV'] });
      const token = tokenOf(await (await page(link)).text());
      const res = await submit(link, { token, msisdn: '05 00 00 00 01', name: 'Awa' });
      expect(res.status).toBe(303);
      const id = checkoutIdOf(res.headers.get('location'));
      const html = await (
        await fetch(`${stack.baseUrl}/checkout/${id}`, { headers: { accept: 'text/html' } })
      ).text();
      expect(html).toContain('<option value="MTN"');
      expect(html).toContain('<option value="MOOV"');
      expect(html).not.toContain('<option value="ORANGE"');
      expect(html).not.toContain('<option value="WAVE"');
      const orange = await fetch(`${stack.baseUrl}/checkout/${id}/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'ORANGE', msisdn: '07 00 00 00 01', otp: '1234' }),
      });
      expect(orange.status).toBe(400);
      expect(((await orange.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('provider');
    });

    it('refuses a form posted from another site', async () => {
      const link = await create();
      const res = await fetch(`${stack.baseUrl}/l/${link.slug}`, {
        method: 'POST',
        headers: { ...formHeaders, 'sec-fetch-site': 'cross-site' },
        body: new URLSearchParams({ token: 'x'.repeat(24), msisdn: '05 00 00 00 01', name: 'A' }).toString(),
        redirect: 'manual',
      });
      expect(res.status).toBe(403);
      expect((await api.get(`/v1/payment-links/${link.id}`)).body.stats.attempted).toBe(0);
    });
  });
});
