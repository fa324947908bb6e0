import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { launchBrowser, screenshotDir, type TestBrowser } from '../helpers/browser';
import { eventually } from '../helpers/http';
import { assertConforms } from '../helpers/contract';
import { startStack, type TestStack } from '../helpers/stack';
import { createTestMerchant } from '../helpers/merchants';
import { createPaymentsClient } from '../../src/client';

// The merchant's view of the contract: the interactive reference at /docs in a real headless
// Chromium (screenshot in test-results/), and a payin end to end through the generated typed client.

const shots = screenshotDir;

describe('the contract as a merchant meets it', () => {
  let stack: TestStack;
  let context: BrowserContext;
  let browser: TestBrowser;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser({ viewport: { width: 1280, height: 900 } });
    context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('/docs renders the reference from /openapi.json, with nothing fetched elsewhere', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(stack.baseUrl) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await page.goto(`${stack.baseUrl}/docs`);
    await page.locator('.opblock-summary-path', { hasText: '/v1/direct/payin' }).first().waitFor();
    await page.locator('.info .title', { hasText: 'Mobile Money Payments API' }).waitFor();
    // Open one operation: its example and its problem responses are shown.
    await page.locator('.opblock-summary-path', { hasText: '/v1/payin/{reference}/refund' }).first().click();
    await page.locator('.responses-table', { hasText: 'DUPLICATE_REFUND' }).first().waitFor();
    await page.screenshot({ path: join(shots, 'docs-reference.png'), fullPage: false });
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    expect(paths).toEqual(
      expect.arrayContaining(['/v1/direct/payin', '/v1/payout', '/v1/refunds/{reference}']),
    );
    expect(await page.locator('text=Webhooks').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  });

  it('a payin through the typed client, each answer conforming to the document', async () => {
    const merchant = await createTestMerchant(stack);
    const client = createPaymentsClient({ baseUrl: stack.baseUrl, ...merchant.credentials });
    const reference = `typed-${randomUUID()}`;
    const created = await client.POST('/v1/direct/payin', {
      params: { header: { 'X-Idempotency-Key': randomUUID() } },
      body: {
        reference,
        sandboxScenario: 'completed',
        payin: { amount: 2500, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
      },
    });
    expect(created.response.status).toBe(201);
    assertConforms('POST', '/v1/direct/payin', {
      status: 201,
      contentType: created.response.headers.get('content-type'),
      body: created.data,
    });
    expect(created.data).toMatchObject({ type: 'payin', reference, status: 'processing', amount: 2500 });

    const read = await eventually(
      () => client.GET('/v1/payin/{reference}', { params: { path: { reference } } }),
      (r) => r.data?.status === 'success',
    );
    expect(read.data?.mobileMoney?.provider.name).toBe('MTN_CI');

    const missing = await client.GET('/v1/payin/{reference}', {
      params: { path: { reference: 'nope' }, header: { 'Accept-Language': 'fr' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'PAYMENT_NOT_FOUND', title: 'Paiement introuvable' });
  });
});
