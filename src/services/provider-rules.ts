import { ApiProblem } from '../contract/problems';
import type { Country, OperatorCode } from '../domain/operators';
import { checkPayinForProvider } from '../domain/providers';

/**
 * Refuses, as a 400 naming the field, a payin the chosen provider would refuse anyway: Orange
 * without its OTP, a number of another network, an amount outside the provider's limits.
 * `prefix` is where the fields sit in the request body (e.g. `payin.`).
 */
export function assertPayinFitsProvider(
  p: { operator: OperatorCode; country: Country; msisdn: string; amount: number; otp?: string | undefined },
  prefix = '',
): void {
  const [first] = checkPayinForProvider(p);
  if (!first) return;
  const path = `${prefix}${first.path}`;
  switch (first.code) {
    case 'OTP_REQUIRED':
      throw new ApiProblem('OTP_REQUIRED', {
        errors: [
          {
            path,
            message: {
              en: `Required for ${p.operator}: the code the customer gets by dialling #144*82#.`,
              fr: `Obligatoire pour ${p.operator} : le code que le client obtient en composant le #144*82#.`,
            },
          },
        ],
      });
    case 'MSISDN_PROVIDER_MISMATCH':
      throw new ApiProblem('MSISDN_PROVIDER_MISMATCH', {
        errors: [
          {
            path,
            message: {
              en: `This number is not a ${p.operator} number; choose its own operator (GET /v1/providers/predict).`,
              fr: `Ce numéro n'est pas un numéro ${p.operator} ; choisissez son opérateur (GET /v1/providers/predict).`,
            },
          },
        ],
      });
    case 'AMOUNT_OUT_OF_RANGE':
      throw new ApiProblem('AMOUNT_OUT_OF_RANGE', {
        errors: [
          {
            path,
            message: {
              en: `Must be between ${first.min} and ${first.max} for ${p.operator} in ${p.country}.`,
              fr: `Doit être compris entre ${first.min} et ${first.max} pour ${p.operator} en ${p.country}.`,
            },
          },
        ],
      });
  }
}
