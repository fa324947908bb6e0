import { newSlug, type PaymentLink } from '../../src/persistence/payment-links';
import { PaymentLinkService, shareTexts } from '../../src/services/payment-link-service';

// A payment link's own rules, without a stack: its state, its bounds, its slugs and references.

const link = (extra: Partial<PaymentLink> = {}): PaymentLink => ({
  id: 'pl_0a1b2c3d4e5f60718293a4b5',
  merchantId: 'mer_test',
  slug: 'AbCdEfGhIjKlMnOpQrSt',
  title: 'Pagne',
  description: null,
  amount: { type: 'fixed', value: 15000 },
  currency: 'XOF',
  countries: ['CI'],
  operators: ['ORANGE', 'MTN', 'MOOV', 'WAVE'],
  usage: 'reusable',
  expiresAt: null,
  cap: null,
  customerFields: { name: true, email: false, question: null },
  thankYouMessage: null,
  returnUrl: null,
  metadata: {},
  referencePrefix: 'WAX',
  active: true,
  deactivatedAt: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
  ...extra,
});
const stats = (paid: number, paidTotal: number) => ({ opened: 0, attempted: paid, paid, paidTotal });

describe('payment links', () => {
  it('says why a link takes no payment: deactivated, expired, single-use paid, cap reached', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    expect(PaymentLinkService.state(link(), stats(5, 75000), now)).toBe('active');
    expect(PaymentLinkService.state(link({ active: false }), stats(0, 0), now)).toBe('inactive');
    expect(PaymentLinkService.state(link({ expiresAt: new Date(now - 1) }), stats(0, 0), now)).toBe(
      'expired',
    );
    expect(PaymentLinkService.state(link({ expiresAt: new Date(now + 1) }), stats(0, 0), now)).toBe('active');
    expect(PaymentLinkService.state(link({ usage: 'single' }), stats(1, 15000), now)).toBe('spent');
    expect(PaymentLinkService.state(link({ usage: 'single' }), stats(0, 0), now)).toBe('active');
    expect(PaymentLinkService.state(link({ cap: { maxPayments: 2 } }), stats(2, 30000), now)).toBe('spent');
    expect(PaymentLinkService.state(link({ cap: { maxTotal: 40000 } }), stats(2, 30000), now)).toBe('active');
    expect(PaymentLinkService.state(link({ cap: { maxTotal: 30000 } }), stats(2, 30000), now)).toBe('spent');
  });

  it("bounds an open amount by the link's own bounds within its operators' limits", () => {
    expect(PaymentLinkService.amountRange(link())).toEqual({ min: 15000, max: 15000 });
    expect(PaymentLinkService.amountRange(link({ amount: { type: 'open' } }))).toEqual({
      min: 100,
      max: 1_500_000,
    });
    expect(PaymentLinkService.amountRange(link({ amount: { type: 'open', min: 500 } }))).toEqual({
      min: 500,
      max: 1_500_000,
    });
  });

  it('draws 20-character base62 slugs, all different', () => {
    const slugs = Array.from({ length: 2000 }, () => newSlug());
    for (const s of slugs) expect(s).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(new Set(slugs).size).toBe(slugs.length);
    // Every character is drawn: no alphabet position is unreachable.
    expect(new Set(slugs.join('')).size).toBe(62);
  });

  it("derives one reference per form token, with the merchant's prefix", () => {
    const a = PaymentLinkService.referenceOf(link(), 'token-one-0123456789');
    expect(a).toMatch(/^WAX-[0-9a-z]{12}$/);
    expect(PaymentLinkService.referenceOf(link(), 'token-one-0123456789')).toBe(a);
    expect(PaymentLinkService.referenceOf(link(), 'token-two-0123456789')).not.toBe(a);
    expect(
      PaymentLinkService.referenceOf(link({ id: 'pl_ffffffffffffffffffffffff' }), 'token-one-0123456789'),
    ).not.toBe(a);
  });

  it('writes share texts in French and English with the URL', () => {
    const texts = shareTexts(link({ amount: { type: 'open' } }), 'https://pay.example/l/x');
    expect(texts.whatsapp.fr).toBe(
      '*Pagne*\nmontant au choix\nPayez par Mobile Money ici : https://pay.example/l/x',
    );
    expect(texts.sms.en).toBe('Pagne - amount of your choice. Pay by Mobile Money: https://pay.example/l/x');
  });
});
