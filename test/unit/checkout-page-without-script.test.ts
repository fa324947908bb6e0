import express from 'express';
import request from 'supertest';
import { checkoutRoutes } from '../../src/api/routes/checkout';
import type { CheckoutService, CheckoutState, CheckoutView } from '../../src/checkout/service';

// The checkout page as a browser without JavaScript reads it
// (docs/decisions/checkout/works-without-javascript.md): the status line is in the HTML, and the
// page moves on by itself through a <noscript> refresh.

const id = 'pr_000000000000000000000001';
const viewWith = (state: Partial<CheckoutState>): CheckoutView =>
  ({
    tx: {
      id,
      chargedAmount: 2500,
      currency: 'XOF',
      reference: 'order-1',
      country: 'CI',
      customer: { phoneNumber: '+2250500000001' },
    },
    merchantName: 'Boutique',
    providers: [{ code: 'MTN', displayName: 'MTN MoMo', otpRequired: false }],
    suggested: 'MTN',
    unavailable: [],
    state: {
      id,
      status: 'processing',
      confirmationStatus: 'none',
      failure: null,
      awaitingCustomer: true,
      paymentUrl: null,
      ussdCode: null,
      final: false,
      redirectUrl: null,
      ...state,
    },
  }) as unknown as CheckoutView;

const page = async (state: Partial<CheckoutState>, query = '') => {
  const app = express().use(
    checkoutRoutes({ view: async () => viewWith(state) } as unknown as CheckoutService),
  );
  const res = await request(app).get(`/checkout/${id}${query}`).set('accept', 'text/html');
  expect(res.status).toBe(200);
  return res.text;
};
const refreshOf = (html: string) =>
  /<noscript><meta http-equiv="refresh" content="([^"]*)"><\/noscript>/.exec(html)?.[1] ?? null;

describe('the checkout page without JavaScript', () => {
  it('awaiting the customer: the form, no refresh', async () => {
    const html = await page({});
    expect(html).toMatch(/<form id="form" method="post" action="pr_0+1\?lang=en" novalidate>/);
    expect(refreshOf(html)).toBeNull();
  });

  it('just answered (answered=1) while the stored record still awaits: the form stays closed, the page waits', async () => {
    const html = await page({}, '?lang=fr&answered=1');
    expect(html).toMatch(/<form id="form"[^>]* hidden>/);
    expect(html).toMatch(/<p id="status"[^>]*class="busy">Validez le paiement sur votre téléphone\.<\/p>/);
    expect(refreshOf(html)).toBe(`3;url=${id}?lang=fr&amp;answered=1`);
  });

  it('the operator asks for a USSD confirmation: the page says what to dial', async () => {
    const html = await page({ awaitingCustomer: false, ussdCode: '*133#' });
    expect(html).toContain(
      'Approve the payment on your phone. No prompt on your phone? Dial *133# to validate.',
    );
  });

  it("final: the outcome, then the merchant's URL after a second, with a link", async () => {
    const ok = 'https://merchant.example/ok';
    const html = await page({ awaitingCustomer: false, status: 'success', final: true, redirectUrl: ok });
    expect(html).toMatch(/<p id="status"[^>]*>Payment successful\. Taking you back to the merchant…<\/p>/);
    expect(refreshOf(html)).toBe(`1;url=${ok}`);
    expect(html).toContain(`<a href="${ok}">Continue</a>`);
  });

  it('final with nowhere to go: the outcome, and no more reloading', async () => {
    const html = await page({ awaitingCustomer: false, status: 'failed', final: true }, '?answered=1');
    expect(html).toMatch(/<p id="status"[^>]*>The payment failed\.<\/p>/);
    expect(refreshOf(html)).toBeNull();
  });

  it("WAVE after the answer: straight to the operator's page", async () => {
    const wave = 'https://pay.wave.example/c/abc';
    const html = await page({ awaitingCustomer: false, paymentUrl: wave }, '?answered=1');
    expect(refreshOf(html)).toBe(`0;url=${wave}`);
  });
});
