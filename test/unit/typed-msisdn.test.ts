import { normalizeTypedMsisdn } from '../../src/domain/msisdn';
import { checkoutConfirmRequest } from '../../src/contract/schemas/checkout';
import { zodErrorMap } from '../../src/contract/zod-messages';

// What a customer types on the hosted checkout page, in the country of the session: held to E.164
// before anything stores it (issue 29: an Abidjan customer's `07 00 00 00 01` was refused).

describe('normalizeTypedMsisdn: a number as customers of the country type it', () => {
  it.each([
    ['07 00 00 00 01', 'CI', '+2250700000001'],
    ['07.00.00.00.01', 'CI', '+2250700000001'],
    ['07-00-00-00-01', 'CI', '+2250700000001'],
    ['0700000001', 'CI', '+2250700000001'],
    ['(07) 00 00 00 01', 'CI', '+2250700000001'],
    ['+225 07 00 00 00 01', 'CI', '+2250700000001'],
    ['00225 07 00 00 00 01', 'CI', '+2250700000001'],
    ['225 05 00 00 99 01', 'CI', '+2250500009901'],
    ['\u00a007\u00a000 00 00 01 ', 'CI', '+2250700000001'],
    ['6 71 23 45 67', 'CM', '+237671234567'],
    ['671234567', 'CM', '+237671234567'],
    ['+237 6 71 23 45 67', 'CM', '+237671234567'],
    ['00237 6.71.23.45.67', 'CM', '+237671234567'],
    ['237-671-234-567', 'CM', '+237671234567'],
  ] as const)('%j in %s is %s', (typed, country, e164) => {
    expect(normalizeTypedMsisdn(typed, country)).toBe(e164);
  });

  it.each([
    ['07 00 00 00 01', 'CM'], // a CI national number read in Cameroon
    ['+237 6 71 23 45 67', 'CI'], // another country's number
    ['700000001', 'CI'], // nine digits: the 2021 ten-digit plan
    ['07 00 00', 'CI'],
    ['', 'CI'],
    ['+33 6 12 34 56 78', 'CI'],
  ] as const)('%j in %s is refused (null)', (typed, country) => {
    expect(normalizeTypedMsisdn(typed, country)).toBeNull();
  });
});

describe('checkoutConfirmRequest: the shape of a typed number', () => {
  const parse = (msisdn: string, lang: 'en' | 'fr' = 'en') =>
    checkoutConfirmRequest.safeParse({ provider: 'MTN', msisdn }, { error: zodErrorMap(lang) });

  it.each(['07 00 00 00 01', '07.00.00.00.01', '+225 07-00-00-00-01', '00237 671234567', '(07) 00000001'])(
    'lets %j through to the country check',
    (msisdn) => {
      expect(parse(msisdn).success).toBe(true);
    },
  );

  it('refuses what is no number, in the customer language', () => {
    for (const msisdn of ['mon numéro', '07 00', '++2250700000001', '0'.repeat(18)]) {
      const fr = parse(msisdn, 'fr');
      expect(fr.success).toBe(false);
      expect(fr.error?.issues[0]?.message).toMatch(/^Saisissez votre numéro mobile/);
    }
    expect(parse('call me', 'en').error?.issues[0]?.message).toMatch(/^Type your mobile number/);
  });
});
