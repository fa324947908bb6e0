import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import express from 'express';
import request from 'supertest';
import { checkoutRoutes } from '../../src/api/routes/checkout';
import type { CheckoutService, CheckoutView } from '../../src/checkout/service';
import { renderCheckoutPage } from '../../src/checkout/page';
import { checkoutAssetsDir, checkoutScriptUrl } from '../../src/checkout/script-asset';
import { copyAssets } from '../../scripts/copy-assets';

// The hosted checkout page's browser script is a file of its own, served as a same-origin asset
// the page's nonce admits, cached for a year under a URL that changes with its content, and shipped
// by the build next to the compiled code.

const root = resolve(__dirname, '../..');
const script = readFileSync(join(checkoutAssetsDir, 'checkout.js'), 'utf8');

describe('checkout page script asset', () => {
  // The asset route never reads a session: no service behind it.
  const app = express().use(checkoutRoutes({} as CheckoutService));

  it('answers GET of the script with 200, a JavaScript type, a year of cache and nosniff', async () => {
    const res = await request(app).get(checkoutScriptUrl);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toBe(script);
  });

  it('versions the URL by the content, and serves nothing else there', async () => {
    const hash = createHash('sha256').update(script).digest('hex').slice(0, 16);
    expect(checkoutScriptUrl).toBe(`/checkout/assets/checkout.js?v=${hash}`);
    expect((await request(app).get('/checkout/assets/other.js')).status).toBe(404);
  });

  it('loads the script from the page with the nonce of its CSP, and inlines no code', () => {
    const view = {
      tx: {
        id: 'pr_000000000000000000000001',
        amount: 2500,
        currency: 'XOF',
        reference: 'order-1',
        customer: { phoneNumber: '+2250500000001' },
      },
      merchantName: 'Boutique',
      providers: [{ code: 'MTN', displayName: 'MTN MoMo', otpRequired: false }],
      suggested: 'MTN',
      state: { id: 'pr_000000000000000000000001', awaitingCustomer: true, final: false },
    } as unknown as CheckoutView;
    const html = renderCheckoutPage(view, { lang: 'en', nonce: 'n0nce' });
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[1])).toEqual([
      ' type="application/json" id="checkout-data"',
      ` nonce="n0nce" src="${checkoutScriptUrl}"`,
    ]);
    expect(scripts[1]?.[2]).toBe('');
  });

  it('is copied by npm run build to where the compiled module looks for it', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const build: string = pkg.scripts.build;
    expect(build).toMatch(/^tsc -p tsconfig\.build\.json && tsx scripts\/copy-assets\.ts && /);
    const out = mkdtempSync(join(tmpdir(), 'assets-'));
    try {
      copyAssets(out);
      // dist/src/checkout/script-asset.js resolves assets/ next to itself.
      expect(readFileSync(join(out, 'src/checkout/assets/checkout.js'), 'utf8')).toBe(script);
      expect(existsSync(join(out, 'src/checkout/assets'))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
