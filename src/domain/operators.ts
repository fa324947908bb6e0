// Operators and countries the service supports. CI has four operators, CM two.
export const countries = ['CI', 'CM'] as const;
export type Country = (typeof countries)[number];

export const operatorCodes = ['ORANGE', 'MTN', 'MOOV', 'WAVE'] as const;
export type OperatorCode = (typeof operatorCodes)[number];

export const operatorsByCountry: Record<Country, readonly OperatorCode[]> = {
  CI: ['ORANGE', 'MTN', 'MOOV', 'WAVE'],
  CM: ['ORANGE', 'MTN'],
};

/** A mobile-money transaction's currency follows its country. */
export const currencyByCountry = { CI: 'XOF', CM: 'XAF' } as const satisfies Record<Country, string>;

/** `<OPERATOR_CODE>_<COUNTRY_CODE>`, the provider name shown in `mobileMoney.provider.name`. */
export type ProviderName = `${OperatorCode}_${Country}`;

export function providerName(code: OperatorCode, country: Country): ProviderName {
  return `${code}_${country}`;
}

export function isOffered(code: OperatorCode, country: Country): boolean {
  return operatorsByCountry[country].includes(code);
}
