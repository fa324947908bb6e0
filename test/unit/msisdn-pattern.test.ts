import fc from 'fast-check';
import { normalizeMsisdn, validNumberPattern } from '../../src/domain/msisdn';

// The pattern the OpenAPI document gives for phone numbers must accept exactly the numbers the
// service accepts (libphonenumber-js validity in CI or CM): schemathesis generates from it.

const pattern = new RegExp(validNumberPattern());
const validInCiOrCm = (n: string) => normalizeMsisdn(n, 'CI') !== null || normalizeMsisdn(n, 'CM') !== null;

/** Numbers near the valid ranges: a country code, a prefix from the numbering plans, random digits. */
const nearValid = fc
  .tuple(
    fc.constantFrom('+225', '+237', '+221', '+33'),
    fc.constantFrom(
      '',
      '0',
      '01',
      '05',
      '07',
      '08',
      '2',
      '21',
      '25',
      '27',
      '272',
      '273',
      '6',
      '62',
      '64',
      '66',
    ),
    fc.constantFrom('', '24', '242', '222', '233', '88', '69', '65'),
    fc.array(fc.constantFrom(...'0123456789'), { minLength: 0, maxLength: 11 }),
  )
  .map(([cc, a, b, digits]) => `${cc}${a}${b}${digits.join('')}`);

describe('validNumberPattern', () => {
  it('agrees with libphonenumber-js on numbers near the valid ranges', () => {
    let valid = 0;
    fc.assert(
      fc.property(nearValid, (n) => {
        if (validInCiOrCm(n)) valid += 1;
        return pattern.test(n) === validInCiOrCm(n);
      }),
      // Fixed seed: the same 5,000 numbers each run (79 valid). Measured against the 15 patterns that
      // lack one alternative of the rule, they catch the same 9 as 20,000 numbers did (23 s in CI).
      { numRuns: 5_000, seed: 7 },
    );
    // Both sides of the rule were exercised, not only the (easy) refusals.
    expect(valid).toBeGreaterThan(50);
  });

  it('accepts the sandbox numbers and every kind of line, refuses others', () => {
    for (const n of ['+2250500000001', '+2250700000002', '+2250100000003', '+2252722400000'])
      expect([n, pattern.test(n)]).toEqual([n, true]);
    for (const n of ['+237650000000', '+237690000001', '+237222123456', '+237242123456', '+23788123456'])
      expect([n, pattern.test(n)]).toEqual([n, true]);
    for (const n of ['+2250800000001', '+225050000000', '+33612345678', '+237660000', '2250500000001', ''])
      expect([n, pattern.test(n)]).toEqual([n, false]);
    expect(new RegExp(validNumberPattern('optional')).test('2250500000001')).toBe(true);
  });
});
