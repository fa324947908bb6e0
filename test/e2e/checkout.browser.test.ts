import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshotDir, type TestBrowser } from '../helpers/browser';
import { ApiClient } from '../helpers/http';
import { startStack, type TestStack } from '../helpers/stack';
import { createTestMerchant } from '../helpers/merchants';

// The hosted checkout page in a real headless Chromium (Debian's package, installed by
// scripts/provision-browser), against the real stack: a customer confirms, another declines.
// Screenshots land in test-results/ (kept as CI artifacts).

const shots = screenshotDir;

describe('hosted checkout page in a real browser', () => {
  let stack: TestStack;
  let api: ApiClient;
  let merchantSite: Server;
  let merchantUrl: string;
  let context: BrowserContext;
  let browser: TestBrowser;

  beforeAll(async () => {
    stack = await startStack();
    const merchant = await createTestMerchant(stack, 'Boutique Akwaba');
    api = new ApiClient(stack.baseUrl, merchant.credentials);
    // The merchant's own success and failure pages.
    merchantSite = await new Promise<Server>((res) => {
      const s = createServer((req, out) => {
        out.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        out.end(`<!doctype html><title>Merchant</title><h1>Merchant page ${req.url?.split('?')[0]}</h1>`);
      }).listen(0, '127.0.0.1', () => res(s));
    });
    const addr = merchantSite.address();
    merchantUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    // A fresh profile every run: nothing cached or remembered between runs.
    browser = await launchBrowser({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      locale: 'en-GB',
    });
    context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((res) => merchantSite?.close(res));
    await stack?.stop();
  });

  const createSession = async (reference: string, msisdn: string, sandboxScenario = 'completed') => {
    const res = await api.post('/v1/payin/sessions', {
      reference,
      sandboxScenario,
      amount: 2500,
      msisdn,
      customerName: 'Awa Koné',
      country: 'CI',
      action: {
        successUrl: `${merchantUrl}/ok?ref=${reference}`,
        failureUrl: `${merchantUrl}/ko?ref=${reference}`,
      },
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; paymentUrl: string };
  };

  /** A page that fails the test on any script error or CSP violation. */
  const openPage = async (url: string): Promise<{ page: Page; problems: string[] }> => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => {
      // Chromium logs every 4xx answer as an error; the validation answer is one on purpose.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
        problems.push(msg.text());
    });
    await page.goto(url);
    return { page, problems };
  };

  it('a customer picks Orange, gives the OTP, confirms, and lands on the success URL', async () => {
    const session = await createSession('web-confirm', '+2250700000001');
    const { page, problems } = await openPage(session.paymentUrl);

    await expect(page.locator('h1').textContent()).resolves.toContain('Boutique Akwaba asks you to pay');
    await expect(page.getByTestId('msisdn').inputValue()).resolves.toBe('+2250700000001');
    // The number's operator is preselected; the OTP field exists only for Orange.
    await expect(page.getByTestId('provider').inputValue()).resolves.toBe('ORANGE');
    await expect(page.getByTestId('otp').isVisible()).resolves.toBe(true);
    await page.getByTestId('provider').selectOption('MTN');
    await expect(page.getByTestId('otp').isHidden()).resolves.toBe(true);

    // MTN with an Orange number: the field error is shown next to the number, nothing is sent.
    await page.getByTestId('confirm').click();
    await page.locator('#msisdn-error').waitFor({ state: 'visible' });
    await expect(page.getByTestId('msisdn').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.screenshot({ path: join(shots, 'checkout-1-validation-error.png'), fullPage: true });

    await page.getByTestId('provider').selectOption('ORANGE');
    await page.getByTestId('otp').fill('1234');
    await page.screenshot({ path: join(shots, 'checkout-2-filled.png'), fullPage: true });
    await page.getByTestId('confirm').click();
    // Progress is announced (aria-live) while the operator is asked, before the redirect.
    await page.getByTestId('status').filter({ hasText: /\S/ }).waitFor();
    await expect(page.getByTestId('status').textContent()).resolves.toMatch(/Sending|Approve|successful/);
    await page.screenshot({ path: join(shots, 'checkout-3-progress.png'), fullPage: true });
    await page.waitForURL(`${merchantUrl}/ok?ref=web-confirm`, { timeout: 30_000 });
    await page.screenshot({ path: join(shots, 'checkout-4-success-redirect.png'), fullPage: true });

    const read = await api.get('/v1/payin/web-confirm');
    expect(read.body).toMatchObject({ status: 'success', confirmationStatus: 'accepted', failure: null });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a customer declines, in French, and lands on the failure URL', async () => {
    const session = await createSession('web-decline', '+2250500000002');
    const { page, problems } = await openPage(`${session.paymentUrl}?lang=fr`);

    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('fr');
    await expect(page.getByTestId('decline').textContent()).resolves.toBe('Refuser');
    await expect(page.getByTestId('provider').inputValue()).resolves.toBe('MTN');
    await expect(page.getByTestId('otp').isHidden()).resolves.toBe(true);
    await page.screenshot({ path: join(shots, 'checkout-5-french.png'), fullPage: true });

    await page.getByTestId('decline').click();
    await page.waitForURL(`${merchantUrl}/ko?ref=web-decline`, { timeout: 30_000 });
    await page.screenshot({ path: join(shots, 'checkout-6-declined-redirect.png'), fullPage: true });

    const read = await api.get('/v1/payin/web-decline');
    expect(read.body.confirmationStatus).toBe('declined');
    expect(read.body.status).not.toBe('success');
    expect(problems).toEqual([]);
    await page.close();
  });
  it("a customer picks Wave and is taken to the operator's page once the operator hands it out", async () => {
    // Pending at the operator: the payin waits for the customer on Wave's page.
    const session = await createSession('web-wave', '+2250500000003', 'pending');
    const { page, problems } = await openPage(session.paymentUrl);
    await page.getByTestId('provider').selectOption('WAVE');
    await page.getByTestId('confirm').click();
    // The page learns the address from the stored record its polls read (no workflow Query).
    await page.waitForURL(`${stack.simulator.url}/wave/checkout/${session.id}`, { timeout: 30_000 });
    await expect(page.getByTestId('wave-status').textContent()).resolves.toBe('pending');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('without JavaScript, a customer fixes a wrong number, confirms, and the page leads to the success URL', async () => {
    const session = await createSession('web-nojs', '+2250700000009');
    const noScript = await launchBrowser({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      locale: 'fr-CI',
      javaScriptEnabled: false,
    });
    try {
      const page = await noScript.context.newPage();
      await page.goto(session.paymentUrl);
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('fr');
      // The OTP field is shown (Orange is offered); MTN with an Orange number is refused in place.
      await expect(page.getByTestId('otp').isVisible()).resolves.toBe(true);
      await page.getByTestId('provider').selectOption('MTN');
      await page.getByTestId('confirm').click();
      await page.locator('#msisdn-error').waitFor({ state: 'visible' });
      await expect(page.getByTestId('msisdn').getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.getByTestId('msisdn').inputValue()).resolves.toBe('+2250700000009');
      await page.screenshot({ path: join(shots, 'checkout-7-no-javascript-error.png'), fullPage: true });

      await page.getByTestId('msisdn').fill('05 00 00 00 09');
      await page.getByTestId('confirm').click();
      await page.getByTestId('status').filter({ hasText: /\S/ }).waitFor();
      await page.screenshot({ path: join(shots, 'checkout-8-no-javascript-waiting.png'), fullPage: true });
      // The page reloads itself until the payment is final, then leaves for the merchant.
      await page.waitForURL(`${merchantUrl}/ok?ref=web-nojs`, { timeout: 45_000 });
      const read = await api.get('/v1/payin/web-nojs');
      expect(read.body).toMatchObject({ status: 'success', confirmationStatus: 'accepted' });
    } finally {
      await noScript.close();
    }
  });
});
