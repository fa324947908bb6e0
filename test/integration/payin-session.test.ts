import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/http';
import { replacementWorker } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';
import { transactionRecord } from '../../src/contract/schemas/transaction-record';

// Endpoint 3 (payin sessions) and the hosted checkout page's routes, over HTTP against the real
// stack: the page's HTML, its status polling, and the customer's confirm and decline.
describe('payin sessions and the checkout routes', () => {
  const merchantName = `<script>alert("x")</script> & Fils`;
  // `customer`: the customer's side, no merchant credentials.
  const { stack, merchant, api, anonymous: customer } = useStack({ merchant: merchantName });

  const action = { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' };
  const session = (reference: string, extra: Record<string, unknown> = {}) => ({
    reference,
    sandboxScenario: 'completed',
    amount: 5000,
    msisdn: '+2250500000001',
    customerName: 'Awa Koné',
    country: 'CI',
    action,
    ...extra,
  });
  const create = async (reference: string, extra: Record<string, unknown> = {}) => {
    const res = await api.post('/v1/payin/sessions', session(reference, extra));
    expect(res.status).toBe(201);
    return res.body as { id: string; paymentUrl: string };
  };
  const pathOf = (url: string) => new URL(url).pathname;
  const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    customer.request('POST', path, body, headers);

  it('creates a session: a record without mobileMoney whose paymentUrl opens the checkout page', async () => {
    const created = await api.post('/v1/payin/sessions', session('sess-1'));
    expect(created.status).toBe(201);
    const record = transactionRecord.parse(created.body);
    expect(record).toMatchObject({
      type: 'payin',
      reference: 'sess-1',
      status: 'processing',
      confirmationRequired: true,
      confirmationStatus: 'none',
      isDirect: false,
      amount: 5000,
      fee: 75, // the default payin fee, 1.5 %, borne by the merchant (docs/fees.md)
      currency: 'XOF',
      customer: { name: 'Awa Koné', phoneNumber: '+2250500000001' },
      failure: null,
    });
    expect(created.body).not.toHaveProperty('mobileMoney');
    expect(record.id).toMatch(/^pr_[0-9a-f]{24}$/);
    expect(record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // PUBLIC_BASE_URL is unset here: the link uses the request's own origin.
    expect(record.paymentUrl).toBe(`${stack.baseUrl}/checkout/${record.id}`);

    const read = await api.get('/v1/payin/sess-1');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: record.id, isDirect: false, paymentUrl: record.paymentUrl });
    expect(read.body).not.toHaveProperty('mobileMoney');

    // One workflow per payin, found by merchant and reference.
    const described = await stack.env.client.workflow
      .getHandle(`payin:${merchant.merchantId}:sess-1`)
      .describe();
    expect(described.type).toBe('payinWorkflow');
  });

  it('answers a retry with the same key with the same session, and refuses the reference to another request', async () => {
    const key = randomUUID();
    const first = await api.post('/v1/payin/sessions', session('sess-2'), { 'x-idempotency-key': key });
    const again = await api.post('/v1/payin/sessions', session('sess-2'), { 'x-idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const other = await api.post('/v1/payin/sessions', session('sess-2'));
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('DUPLICATE_REFERENCE');
  });

  it('refuses bad sessions with localized 400s naming each field', async () => {
    const bad = await api.post(
      '/v1/payin/sessions',
      session('sess-bad', { amount: 10.5, country: 'SN', extra: 1, action: { successUrl: 'nope' } }),
      { 'accept-language': 'fr' },
    );
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', title: 'Requête invalide' });
    expect(paths(bad.body)).toEqual(
      expect.arrayContaining(['amount', 'country', 'extra', 'action.successUrl', 'action.failureUrl']),
    );

    // The checkout page navigates to these: a script URL is not a redirect address.
    const script = await api.post(
      '/v1/payin/sessions',
      session('sess-bad', { action: { ...action, successUrl: 'javascript:alert(1)' } }),
    );
    expect(script.status).toBe(400);
    expect(paths(script.body)).toEqual(['action.successUrl']);

    const cameroonian = await api.post(
      '/v1/payin/sessions',
      session('sess-bad', { msisdn: '+237650000001' }),
    );
    expect(cameroonian.status).toBe(400);
    expect(paths(cameroonian.body)).toEqual(['msisdn']);

    const tooSmall = await api.post('/v1/payin/sessions', session('sess-bad', { amount: 10 }));
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.code).toBe('AMOUNT_OUT_OF_RANGE');
    expect(paths(tooSmall.body)).toEqual(['amount']);

    const noAuth = await customer.post('/v1/payin/sessions', session('sess-bad'));
    expect(noAuth.status).toBe(401);
  });

  it('serves the checkout page in French, escaped, with the country operators and the test hooks', async () => {
    const s = await create('sess-page');
    const res = await customer.get(pathOf(s.paymentUrl), { 'accept-language': 'fr', accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = res.body as string;
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('vous demande de payer');
    expect(html).toContain('Confirmer le paiement');
    // The merchant's name is shown, never executed.
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Fils');
    expect(html).not.toContain('<script>alert(');
    expect(html).toMatch(/5\s000\s+F\s?CFA/);
    for (const hook of ['provider', 'msisdn', 'otp', 'confirm', 'decline', 'status'])
      expect(html).toContain(`data-testid="${hook}"`);
    const options = [...html.matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);
    expect(options).toEqual(['ORANGE', 'MTN', 'MOOV', 'WAVE']);
    // The number's own operator is preselected, the number prefilled.
    expect(html).toContain('<option value="MTN" selected>');
    expect(html).toContain('value="+2250500000001"');

    const english = await customer.get(`${pathOf(s.paymentUrl)}?lang=en`, { 'accept-language': 'fr' });
    expect(english.body).toContain('<html lang="en">');
    expect(english.body).toContain('Confirm payment');
  });

  it('offers only the operators of Cameroon for a CM session', async () => {
    const s = await create('sess-cm', { country: 'CM', msisdn: '+237650000001', amount: 2000 });
    const html = (await customer.get(pathOf(s.paymentUrl))).body as string;
    expect([...html.matchAll(/<option value="(\w+)"/g)].map((m) => m[1])).toEqual(['ORANGE', 'MTN']);
    expect(html).toMatch(/F\s?CFA|XAF/);

    const wave = await post(`${pathOf(s.paymentUrl)}/confirm`, { provider: 'WAVE', msisdn: '+237650000001' });
    expect(wave.status).toBe(400);
    expect(paths(wave.body)).toEqual(['provider']);
  });

  it('answers 404 for an unknown link: a page for people, problem+json for programs', async () => {
    const page = await customer.get('/checkout/pr_000000000000000000000000', {
      accept: 'text/html',
      'accept-language': 'fr',
    });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('Paiement introuvable');

    const json = await customer.get('/checkout/nope/status', { 'accept-language': 'fr' });
    expect(json.status).toBe(404);
    expect(json.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(json.body).toMatchObject({ code: 'SESSION_NOT_FOUND', title: 'Session de paiement introuvable' });

    // A direct payin has no checkout page.
    const direct = await api.post('/v1/direct/payin', {
      reference: 'direct-1',
      payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action,
    });
    expect(direct.status).toBe(201);
    const res = await post(`/checkout/${direct.body.id}/confirm`, {
      provider: 'MTN',
      msisdn: '+2250500000001',
    });
    expect(res.status).toBe(404);
  });

  it('validates the customer answer before the workflow sees it', async () => {
    const s = await create('sess-validate');
    const confirm = (body: unknown, headers: Record<string, string> = {}) =>
      post(`${pathOf(s.paymentUrl)}/confirm`, body, headers);

    const orange = await confirm(
      { provider: 'ORANGE', msisdn: '+2250700000001' },
      { 'accept-language': 'fr' },
    );
    expect(orange.status).toBe(400);
    expect(orange.body.errors).toEqual([{ path: 'otp', message: expect.stringContaining('#144*82#') }]);
    expect(orange.body.title).toBe('Requête invalide');

    const mismatch = await confirm({ provider: 'MTN', msisdn: '+2250700000001' });
    expect(paths(mismatch.body)).toEqual(['msisdn']);
    const invalid = await confirm({ provider: 'MTN', msisdn: '+2259' });
    expect(paths(invalid.body)).toEqual(['msisdn']);
    const unknown = await confirm({ provider: 'FREE', msisdn: '+2250500000001', pin: 1 });
    expect(paths(unknown.body).sort()).toEqual(['pin', 'provider']);

    // Not JSON (what a cross-site form would send): refused before anything else.
    const form = await confirm('provider=MTN', { 'content-type': 'text/plain' });
    expect(form.status).toBe(415);

    // None of it reached the workflow: the session still awaits the customer.
    const status = await customer.get(`${pathOf(s.paymentUrl)}/status`);
    expect(status.body).toMatchObject({ awaitingCustomer: true, final: false, redirectUrl: null });
  });

  // docs/decisions/checkout/works-without-javascript.md: the page's form posted back to its own
  // address, as a browser without JavaScript sends it.
  describe('the form without JavaScript (POST /checkout/:id)', () => {
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };
    /** The answer as the browser gets it: a redirect is not followed. */
    const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${stack.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...formHeaders, ...headers },
        body: form(fields),
        redirect: 'manual',
      });

    it('shows the fields at fault in place, in the page language, keeping what was typed', async () => {
      const s = await create('form-errors');
      const page = pathOf(s.paymentUrl);
      const res = await customer.request(
        'POST',
        `${page}?lang=fr`,
        form({ answer: 'confirm', provider: 'MTN', msisdn: '07 00 00 00 01' }),
        formHeaders,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const html = String(res.body);
      expect(html).toContain('<html lang="fr">');
      expect(html).toMatch(/<input id="msisdn"[^>]*value="07 00 00 00 01"[^>]*aria-invalid="true"/);
      expect(html).toMatch(/<p id="msisdn-error" class="error">[^<]+<\/p>/);
      expect(html).toContain(
        '<p id="form-error" class="error" role="alert">Corrigez les champs signalés.</p>',
      );
      // The OTP field is there for Orange, which the script would show only when chosen.
      expect(html).toMatch(/<div class="field" id="otp-field">/);
      const status = await customer.get(`${page}/status`);
      expect(status.body).toMatchObject({ awaitingCustomer: true });
    });

    it("refuses a form another site posts (Fetch Metadata), and takes the page's own", async () => {
      const s = await create('form-confirm');
      const page = pathOf(s.paymentUrl);
      const fields = { answer: 'confirm', provider: 'MTN', msisdn: '+225 05 00 00 00 01' };
      const cross = await postForm(page, fields, { 'sec-fetch-site': 'cross-site' });
      expect(cross.status).toBe(403);
      expect(await cross.text()).toContain('Answer on the payment page itself.');
      expect((await customer.get(`${page}/status`)).body).toMatchObject({ awaitingCustomer: true });

      const taken = await postForm(page, fields, { 'sec-fetch-site': 'same-origin' });
      expect(taken.status).toBe(303);
      expect(taken.headers.get('location')).toBe(`${s.id}?lang=en&answered=1`);
      // The page it leads to waits for the operator, then leaves for the merchant, by itself.
      const waiting = await customer.get(`${page}?lang=en&answered=1`, { accept: 'text/html' });
      expect(String(waiting.body)).toMatch(/<form id="form"[^>]* hidden>/);
      const done = await eventually(
        () => customer.get(`${page}?answered=1`, { accept: 'text/html' }),
        (r) => /<p id="status"[^>]*>Payment successful\./.test(String(r.body)),
      );
      expect(String(done.body)).toContain(
        `<noscript><meta http-equiv="refresh" content="1;url=${action.successUrl}"></noscript>`,
      );
      expect(String(done.body)).toContain(`<a href="${action.successUrl}">Continue</a>`);
      const read = await api.get('/v1/payin/form-confirm');
      expect(read.body).toMatchObject({ status: 'success', confirmationStatus: 'accepted' });
    });

    it('declines with the second button; a closed session shows the page saying so', async () => {
      const s = await create('form-decline');
      const page = pathOf(s.paymentUrl);
      const declined = await postForm(`${page}?lang=fr`, { answer: 'decline' });
      expect(declined.status).toBe(303);
      const again = await customer.request('POST', page, form({ answer: 'decline' }), {
        ...formHeaders,
        'accept-language': 'fr',
      });
      expect(again.status).toBe(409);
      expect(String(again.body)).toContain('<html lang="fr">');
      const read = await eventually(
        () => api.get('/v1/payin/form-decline'),
        (r) => r.body.confirmationStatus === 'declined',
      );
      expect(read.body.status).not.toBe('success');
    });
  });

  it('confirm runs the collection; a second confirm or a decline afterwards is a 409', async () => {
    const s = await create('sess-confirm');
    const page = pathOf(s.paymentUrl);
    const first = await post(`${page}/confirm`, { provider: 'MTN', msisdn: '+225 05 00 00 00 01' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: s.id, awaitingCustomer: false });

    const again = await post(`${page}/confirm`, { provider: 'MTN', msisdn: '+2250500000001' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('SESSION_CLOSED');
    const decline = await post(`${page}/decline`, {}, { 'accept-language': 'fr' });
    expect(decline.status).toBe(409);
    expect(decline.body.title).toBe('Session de paiement close');

    const done = await eventually(
      () => customer.get(`${page}/status`),
      (r) => r.body.final === true,
    );
    expect(done.body).toMatchObject({ status: 'success', redirectUrl: action.successUrl });
    const read = await api.get('/v1/payin/sess-confirm');
    expect(read.body).toMatchObject({ status: 'success', confirmationStatus: 'accepted' });
    expect(read.body).not.toHaveProperty('mobileMoney');
  });

  it('accepts the number as customers type it in the session country, and stores it in E.164', async () => {
    // An Abidjan customer types the national format (docs/decisions/checkout/customer-answers.md: spaces are accepted).
    const ci = await create('sess-typed-ci');
    const typed = await post(`${pathOf(ci.paymentUrl)}/confirm`, {
      provider: 'MTN',
      msisdn: '05 00 00 00 02',
    });
    expect(typed.status).toBe(200);
    const read = await eventually(
      () => api.get('/v1/payin/sess-typed-ci'),
      (r) => r.body.status === 'success',
    );
    expect(read.body.customer.phoneNumber).toBe('+2250500000002');

    // In Cameroon, with the 00 international prefix and dots.
    const cm = await create('sess-typed-cm', { country: 'CM', msisdn: '+237670000001', amount: 2000 });
    const dotted = await post(`${pathOf(cm.paymentUrl)}/confirm`, {
      provider: 'MTN',
      msisdn: '00237 6.70.00.00.02',
    });
    expect(dotted.status).toBe(200);
    const readCm = await eventually(
      () => api.get('/v1/payin/sess-typed-cm'),
      (r) => r.body.status === 'success',
    );
    expect(readCm.body.customer.phoneNumber).toBe('+237670000002');

    // A CI national number in a CM session is not a number of that country: a localized 400.
    const other = await create('sess-typed-other', { country: 'CM', msisdn: '+237670000001', amount: 2000 });
    const wrong = await post(
      `${pathOf(other.paymentUrl)}/confirm`,
      { provider: 'MTN', msisdn: '05 00 00 00 02' },
      { 'accept-language': 'fr' },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([{ path: 'msisdn', message: expect.stringContaining('en CM') }]);
    const letters = await post(
      `${pathOf(other.paymentUrl)}/confirm`,
      { provider: 'MTN', msisdn: 'mon numéro' },
      { 'accept-language': 'fr' },
    );
    expect(letters.body.errors).toEqual([
      { path: 'msisdn', message: expect.stringContaining('Saisissez votre numéro mobile') },
    ]);
  });

  it('decline ends the session declined and sends the customer to the failure URL', async () => {
    const s = await create('sess-decline');
    const page = pathOf(s.paymentUrl);
    const declined = await post(`${page}/decline`, {});
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({
      confirmationStatus: 'declined',
      final: true,
      redirectUrl: action.failureUrl,
    });
    const read = await eventually(
      () => api.get('/v1/payin/sess-decline'),
      (r) => r.body.confirmationStatus === 'declined',
    );
    expect(read.body.status).not.toBe('success');

    const late = await post(`${page}/confirm`, { provider: 'MTN', msisdn: '+2250500000001' });
    expect(late.status).toBe(409);
  });

  it('a session nobody answers expires after SESSION_EXPIRY (30 minutes)', async () => {
    const s = await create('sess-expire');
    const page = pathOf(s.paymentUrl);
    await stack.env.sleep('31m');
    const read = await eventually(
      () => api.get('/v1/payin/sess-expire'),
      (r) => r.body.status === 'expired',
    );
    expect(read.body.confirmationStatus).toBe('none');
    const status = await customer.get(`${page}/status`);
    expect(status.body).toMatchObject({ status: 'expired', final: true, redirectUrl: action.failureUrl });
    const late = await post(`${page}/confirm`, { provider: 'MTN', msisdn: '+2250500000001' });
    expect(late.status).toBe(409);
  });
});

describe("a customer's answer the workflow cannot take in time (worker down)", () => {
  // No sticky cache: the test server has no sticky timeout, and this test replaces the worker.
  const {
    stack,
    api,
    anonymous: customer,
  } = useStack({
    config: { CHECKOUT_DECISION_WAIT: '1s' },
    worker: { maxCachedWorkflows: 0 },
  });

  it('answers 503 ANSWER_PENDING in the page language, and the queued answer is applied once the worker is back', async () => {
    const created = await api.post('/v1/payin/sessions', {
      reference: 'slow-answer',
      sandboxScenario: 'completed',
      amount: 5000,
      msisdn: '+2250500000001',
      customerName: 'Awa Koné',
      country: 'CI',
      action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
    });
    expect(created.status).toBe(201);
    const page = new URL((created.body as { paymentUrl: string }).paymentUrl).pathname;
    stack.worker.shutdown();
    await eventually(
      async () => stack.worker.getState(),
      (s) => s === 'STOPPED' || s === 'FAILED',
    );
    const started = Date.now();
    const answer = await customer.request(
      'POST',
      `${page}/confirm`,
      { provider: 'MTN', msisdn: '+2250500000001' },
      { 'accept-language': 'fr' },
    );
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('ANSWER_PENDING');
    expect(answer.body.title).toBe('Réponse pas encore prise en compte');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(10_000); // bounded, not the SDK's own minute

    const replacement = await replacementWorker(stack);
    const running = replacement.run();
    try {
      // The queued answer is taken: the payin goes on to success without the customer answering again.
      await eventually(
        () => api.get('/v1/payin/slow-answer'),
        (r) => r.body.status === 'success',
      );
    } finally {
      replacement.shutdown();
      await running;
    }
  });
});
