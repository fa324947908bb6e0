import fc from 'fast-check';
import { feeKinds } from '../../src/domain/fees';
import { currencies } from '../../src/domain/money';
import { countries, operatorCodes } from '../../src/domain/operators';

// fast-check generators for the money rules, shared by the fee tests and the property tests.
export const kind = fc.constantFrom(...feeKinds);
export const currency = fc.constantFrom(...currencies);
export const operator = fc.option(fc.constantFrom(...operatorCodes), { nil: null });
export const country = fc.option(fc.constantFrom(...countries), { nil: null });
export const amount = fc.integer({ min: 0, max: 10_000_000_000 });
const perCurrency = fc.option(fc.dictionary(currency, fc.integer({ min: 0, max: 100_000 })), {
  nil: undefined,
});
/** Fee terms: a rate in basis points, with optional fixed, minimum and maximum amounts per currency. */
export const terms = fc.record({
  rateBps: fc.integer({ min: 0, max: 10_000 }),
  fixed: perCurrency,
  min: perCurrency,
  max: perCurrency,
});
