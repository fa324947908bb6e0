import { belongsToAnotherOperator, predictCarrier } from '../../src/domain/operator-prefixes';
import { checkPayinForProvider } from '../../src/domain/providers';

describe('operator prediction from the number prefix', () => {
  it.each([
    ['+2250700000001', 'CI', 'ORANGE'],
    ['+2250500000001', 'CI', 'MTN'],
    ['+2250100000001', 'CI', 'MOOV'],
    ['+237690000001', 'CM', 'ORANGE'],
    ['+237655000001', 'CM', 'ORANGE'],
    ['+237659000001', 'CM', 'ORANGE'],
    ['+237686000001', 'CM', 'ORANGE'],
    ['+237670000001', 'CM', 'MTN'],
    ['+237650000001', 'CM', 'MTN'],
    ['+237654000001', 'CM', 'MTN'],
    ['+237680000001', 'CM', 'MTN'],
    ['+237684000001', 'CM', 'MTN'],
    ['+237660000001', 'CM', 'NEXTTEL'],
  ])('%s is %s / %s', (msisdn, country, carrier) => {
    expect(predictCarrier(msisdn)).toEqual({ msisdn, country, carrier });
  });

  it('leaves an unknown prefix unknown and refuses numbers outside CI and CM', () => {
    expect(predictCarrier('+237685000001')?.carrier).toBeNull();
    expect(predictCarrier('+33612345678')).toBeNull();
    expect(predictCarrier('+2250800000001')).toBeNull(); // not an allocated CI mobile range
    expect(predictCarrier('garbage')).toBeNull();
  });

  it('tells a number of another network, but Wave and unknown prefixes accept any', () => {
    expect(belongsToAnotherOperator('+2250700000001', 'MTN')).toBe(true);
    expect(belongsToAnotherOperator('+2250700000001', 'ORANGE')).toBe(false);
    expect(belongsToAnotherOperator('+2250700000001', 'WAVE')).toBe(false);
    expect(belongsToAnotherOperator('+237660000001', 'MTN')).toBe(true);
    expect(belongsToAnotherOperator('+237685000001', 'ORANGE')).toBe(false);
  });

  it('checks a payin against the provider rules', () => {
    const ok = {
      operator: 'ORANGE' as const,
      country: 'CI' as const,
      msisdn: '+2250700000001',
      amount: 100,
      otp: '1234',
    };
    expect(checkPayinForProvider(ok)).toEqual([]);
    expect(checkPayinForProvider({ ...ok, otp: undefined }).map((v) => v.code)).toEqual(['OTP_REQUIRED']);
    expect(checkPayinForProvider({ ...ok, amount: 99 }).map((v) => v.code)).toEqual(['AMOUNT_OUT_OF_RANGE']);
    expect(checkPayinForProvider({ ...ok, amount: 1_500_001 }).map((v) => v.code)).toEqual([
      'AMOUNT_OUT_OF_RANGE',
    ]);
    expect(checkPayinForProvider({ ...ok, operator: 'MTN' }).map((v) => v.code)).toEqual([
      'MSISDN_PROVIDER_MISMATCH',
    ]);
    expect(checkPayinForProvider({ ...ok, operator: 'WAVE', otp: undefined })).toEqual([]);
  });
});
