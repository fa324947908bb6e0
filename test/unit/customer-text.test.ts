import fc from 'fast-check';
import { customerLabel } from '../../src/operators/connectors/customer-text';
import { mtnNoteLimits } from '../../src/operators/connectors/mtn/connector';
import { pawapayMessageLimits } from '../../src/operators/connectors/pawapay/connector';

// What the customer reads (issue 28 §7): the merchant's name and reference, fitted to each
// provider's rule, the reference kept whole where it fits.

describe('customerLabel', () => {
  it('keeps the reference whole and shortens the name first', () => {
    const text = { merchant: 'Pâtisserie de la Côte d’Ivoire', reference: 'INV-0042' };
    expect(customerLabel(text, pawapayMessageLimits)).toBe('Patisserie de INV 0042');
    expect(customerLabel(text, mtnNoteLimits)).toBe('Patisserie de la Cote d Ivoire INV-0042');
  });

  it('no text, or nothing long enough left: null (the provider default applies)', () => {
    expect(customerLabel(undefined, pawapayMessageLimits)).toBeNull();
    expect(customerLabel({ merchant: null, reference: '-' }, pawapayMessageLimits)).toBeNull();
    expect(customerLabel({ merchant: 'Ab', reference: 'c' }, pawapayMessageLimits)).toBe('Ab c');
  });

  it('whatever the merchant sends, the label meets the provider rule', () => {
    for (const [limits, re] of [
      [pawapayMessageLimits, /^[A-Za-z0-9 ]{4,22}$/],
      [mtnNoteLimits, /^[A-Za-z0-9 .,:_#/-]{1,160}$/],
    ] as const)
      fc.assert(
        fc.property(
          fc.option(fc.string({ unit: 'grapheme', maxLength: 300 })),
          fc.string({ maxLength: 120 }),
          (m, r) => {
            const label = customerLabel({ merchant: m, reference: r }, limits);
            if (label !== null) {
              expect(label).toMatch(re);
              expect(label).toBe(label.trim());
            }
          },
        ),
      );
  });
});
