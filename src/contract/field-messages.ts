import type { PayinRuleViolation } from '../domain/providers';
import type { Text } from './i18n';
import { ApiProblem, type ProblemCode } from './problems';

// Every message the interface attaches to a field (`errors[].message`), in English and French,
// written once: payins, payouts, the checkout and the providers route all phrase a refusal from
// here, so one rule reads the same wherever it is broken. The checkout speaks to the customer,
// not to the merchant's developer, hence its own wording of the provider rules (`customer`).

const notAMobileNumber: Text = {
  en: 'Not a valid mobile number',
  fr: "Ce n'est pas un numéro mobile valide",
};

export const fieldMessages = {
  /** The number is not a mobile number of the country (libphonenumber-js). */
  invalidMsisdn: (country: string): Text => ({
    en: `${notAMobileNumber.en} in ${country}.`,
    fr: `${notAMobileNumber.fr} en ${country}.`,
  }),
  /** GET /v1/providers/predict: the number belongs to none of our countries. */
  invalidMsisdnOfAnyCountry: {
    en: `${notAMobileNumber.en} of CI or CM.`,
    fr: `${notAMobileNumber.fr} de CI ou CM.`,
  } satisfies Text,
  providerNotOffered: (provider: string, country: string, allowed: string): Text => ({
    en: `${provider} is not offered in ${country}; allowed: ${allowed}.`,
    fr: `${provider} n'est pas proposé en ${country} ; valeurs possibles : ${allowed}.`,
  }),
  /** A payout without provider whose number's prefix names no operator we offer. */
  operatorNotPredictable: {
    en: `The operator of this number cannot be told from its prefix; send provider.`,
    fr: `L'opérateur de ce numéro ne se déduit pas de son préfixe ; envoyez provider.`,
  } satisfies Text,
  /** The provider rules (src/domain/providers.ts), as the merchant's request breaks them. */
  otpRequired: (operator: string): Text => ({
    en: `Required for ${operator}: the code the customer gets by dialling #144*82#.`,
    fr: `Obligatoire pour ${operator} : le code que le client obtient en composant le #144*82#.`,
  }),
  numberOfAnotherOperator: (operator: string): Text => ({
    en: `This number is not a ${operator} number; choose its own operator (GET /v1/providers/predict).`,
    fr: `Ce numéro n'est pas un numéro ${operator} ; choisissez son opérateur (GET /v1/providers/predict).`,
  }),
  amountOutOfRange: (min: number, max: number, operator: string, country: string): Text => ({
    en: `Must be between ${min} and ${max} for ${operator} in ${country}.`,
    fr: `Doit être compris entre ${min} et ${max} pour ${operator} en ${country}.`,
  }),
  /**
   * Rules of the provider a live request is routed to (the connector's declared rules,
   * src/operators/connectors/connector.ts `ConnectorRules`).
   */
  httpsReturnUrl: (operator: string, country: string): Text => ({
    en: `${operator} in ${country} sends the customer back to https addresses only; use an https URL.`,
    fr: `${operator} en ${country} ne renvoie le client que vers des adresses https ; utilisez une URL https.`,
  }),
  fullRefundOnly: (operator: string, full: number, currency: string): Text => ({
    en: `${operator} refunds a payment in full only: leave amount out, or send ${full} ${currency}.`,
    fr: `${operator} ne rembourse un paiement qu'en totalité : omettez amount, ou envoyez ${full} ${currency}.`,
  }),
  /** A refund whose route credits the customer within limits (Hub2's transfers). */
  refundAmountLimits: (
    operator: string,
    min: number,
    max: number,
    multipleOf: number | null,
    currency: string,
  ): Text => ({
    en: `This ${operator} payment is refunded by a transfer of ${min} to ${max} ${currency}${multipleOf ? `, in multiples of ${multipleOf}` : ''}.`,
    fr: `Ce paiement ${operator} est remboursé par un transfert de ${min} à ${max} ${currency}${multipleOf ? `, par multiples de ${multipleOf}` : ''}.`,
  }),
  /** A refund above what remains of its payin (the original minus refunds completed or in flight). */
  refundAboveRemainder: (remaining: number, currency: string): Text => ({
    en: `At most ${remaining} ${currency} of this payment can still be refunded: send that amount or less, or leave amount out to refund the rest.`,
    fr: `Il reste au plus ${remaining} ${currency} à rembourser sur ce paiement : envoyez ce montant ou moins, ou omettez amount pour rembourser le reste.`,
  }),
  fullRefundOfFeeInclusive: (operator: string): Text => ({
    en: `${operator} refunds everything the customer paid, fee included, and this payment's customer paid the fee: it cannot be refunded through ${operator}.`,
    fr: `${operator} rembourse tout ce que le client a payé, frais compris, et le client de ce paiement a payé les frais : il ne peut pas être remboursé par ${operator}.`,
  }),
  /** A session: the operator is chosen later, so the bounds are those of every operator of the country. */
  amountOutOfCountryRange: (min: number, max: number, country: string): Text => ({
    en: `Must be between ${min} and ${max} in ${country}.`,
    fr: `Doit être compris entre ${min} et ${max} en ${country}.`,
  }),
  currencyOfCountry: (country: string, currency: string): Text => ({
    en: `${country} payments are in ${currency}.`,
    fr: `Les paiements en ${country} sont en ${currency}.`,
  }),
  referenceUsed: {
    payin: { en: 'Already used by another payin.', fr: 'Déjà utilisée par un autre paiement.' },
    payout: { en: 'Already used by another payout.', fr: 'Déjà utilisée par un autre transfert.' },
  } satisfies Record<'payin' | 'payout', Text>,
  referenceTwiceInBatch: {
    en: 'Used by another item of this batch.',
    fr: 'Utilisée par un autre élément de ce lot.',
  } satisfies Text,
  unknownAccount: { en: 'Unknown account.', fr: 'Compte inconnu.' } satisfies Text,
  accountCurrency: (accountCurrency: string, country: string, currency: string): Text => ({
    en: `This account holds ${accountCurrency}; payouts in ${country} are in ${currency}.`,
    fr: `Ce compte est en ${accountCurrency} ; les transferts en ${country} sont en ${currency}.`,
  }),
  invalidCursor: { en: 'Invalid cursor.', fr: 'Curseur invalide.' } satisfies Text,
  periodOrder: { en: 'Must be after from.', fr: 'Doit être postérieur à from.' } satisfies Text,
  periodTooLong: (days: number): Text => ({
    en: `The period may cover at most ${days} days.`,
    fr: `La période couvre au plus ${days} jours.`,
  }),
  required: { en: 'Required.', fr: 'Obligatoire.' } satisfies Text,
  /** The schemas' own patterns (src/contract/schemas), said in words. */
  referenceCharacters: {
    en: 'Only letters, digits and . _ : - are allowed.',
    fr: 'Seuls les lettres, les chiffres et . _ : - sont admis.',
  } satisfies Text,
  internationalNumber: (example: string): Text => ({
    en: `Must be an international number such as ${example}.`,
    fr: `Doit être un numéro international tel que ${example}.`,
  }),
  otpDigits: { en: 'Must be 4 to 8 digits.', fr: 'Doit compter de 4 à 8 chiffres.' } satisfies Text,
  integerBetween: (min: number, max: number): Text => ({
    en: `Must be a whole number from ${min} to ${max}.`,
    fr: `Doit être un nombre entier de ${min} à ${max}.`,
  }),
  /** A spreadsheet's amount cell that is not a number (the bulk payout preview). */
  cellNotAnAmount: (cell: string): Text => ({
    en: `“${cell}” is not an amount: write the number alone, such as 10000 or 10 000.`,
    fr: `« ${cell} » n'est pas un montant : écrivez le nombre seul, par exemple 10000 ou 10 000.`,
  }),
  /** POST /v1/sandbox/routes on a sandbox of one route (SANDBOX_ROUTES=1). */
  noSuchSandboxRoute: (routes: number): Text => ({
    en: `This sandbox has ${routes} route${routes === 1 ? '' : 's'} per operator.`,
    fr: `Ce bac à sable a ${routes} route${routes === 1 ? '' : 's'} par opérateur.`,
  }),
  cursorNotIssued: {
    en: 'Not a cursor returned by this API: use nextCursor of the previous page.',
    fr: "Ce n'est pas un curseur renvoyé par cette API : utilisez le nextCursor de la page précédente.",
  } satisfies Text,
  /** A statement download link's signature: the link was cut or altered. */
  linkSignature: {
    en: 'Not the signature of a download link: copy the whole link again.',
    fr: "Ce n'est pas la signature d'un lien de téléchargement : recopiez le lien en entier.",
  } satisfies Text,
  notBeforeFrom: { en: 'Must not be before from.', fr: 'Ne doit pas être antérieur à from.' } satisfies Text,
  /** A change (PATCH) that names nothing to change. */
  nothingToChange: (fields: string): Text => ({
    en: `Send at least one of ${fields}.`,
    fr: `Envoyez au moins l’un de ${fields}.`,
  }),
  tooManyKeys: (max: number): Text => ({
    en: `At most ${max} keys.`,
    fr: `Au plus ${max} clés.`,
  }),
  metadataKey: (max: number): Text => ({
    en: `1 to ${max} letters, digits, _ or - only.`,
    fr: `De 1 à ${max} lettres, chiffres, _ ou - uniquement.`,
  }),
  notAUuid: { en: 'Must be a UUID.', fr: 'Doit être un UUID.' } satisfies Text,
  nestedTooDeep: (max: number): Text => ({
    en: `Nested deeper than ${max} levels.`,
    fr: `Imbriqué sur plus de ${max} niveaux.`,
  }),
  /** A refund amount finer than the currency's minor unit. */
  tooManyDecimals: (currency: string, digits: number): Text => ({
    en: `${currency} amounts have at most ${digits} decimals.`,
    fr: `Les montants en ${currency} ont au plus ${digits} décimales.`,
  }),
  /** The hosted checkout page: the same rules, told to the customer. */
  customer: {
    providerNotOffered: (country: string, allowed: string): Text => ({
      en: `Not offered in ${country}; choose one of ${allowed}.`,
      fr: `Non proposé en ${country} ; choisissez parmi ${allowed}.`,
    }),
    otpRequired: (provider: string, ussd: string): Text => ({
      en: `${provider} needs the code you get by dialling ${ussd}.`,
      fr: `${provider} demande le code obtenu en composant ${ussd}.`,
    }),
    numberOfAnotherOperator: (provider: string): Text => ({
      en: `This number does not belong to ${provider}.`,
      fr: `Ce numéro n'appartient pas à ${provider}.`,
    }),
    amountOutOfRange: (provider: string, min: number, max: number, currency: string): Text => ({
      en: `${provider} accepts ${min} to ${max} ${currency}.`,
      fr: `${provider} accepte de ${min} à ${max} ${currency}.`,
    }),
    /** Not even the shape of a phone number (letters, too few or too many digits). */
    typedNumber: {
      en: 'Type your mobile number, e.g. 07 00 00 00 01 or +225 07 00 00 00 01.',
      fr: 'Saisissez votre numéro mobile, par ex. 07 00 00 00 01 ou +225 07 00 00 00 01.',
    } satisfies Text,
  },
  /** Payment links (docs/payment-links.md): rules checked when a link is created. */
  paymentLink: {
    minAboveMax: { en: 'Must not be above max.', fr: 'Ne doit pas dépasser max.' } satisfies Text,
    notInFuture: { en: 'Must be in the future.', fr: 'Doit être dans le futur.' } satisfies Text,
    operatorNotOffered: (operator: string, countries: string, allowed: string): Text => ({
      en: `${operator} is not offered in ${countries}; allowed: ${allowed}.`,
      fr: `${operator} n'est pas proposé en ${countries} ; valeurs possibles : ${allowed}.`,
    }),
    amountOutOfRange: (min: number, max: number, currency: string): Text => ({
      en: `The link's operators take ${min} to ${max} ${currency}.`,
      fr: `Les opérateurs du lien acceptent de ${min} à ${max} ${currency}.`,
    }),
    tooLong: (max: number): Text => ({ en: `At most ${max} characters.`, fr: `Au plus ${max} caractères.` }),
    email: {
      en: 'Type your e-mail address, e.g. awa@example.com.',
      fr: 'Saisissez votre adresse e-mail, par ex. awa@example.com.',
    } satisfies Text,
    reload: {
      en: 'This page is out of date: reload it and try again.',
      fr: 'Cette page n’est plus à jour : rechargez-la et réessayez.',
    } satisfies Text,
    capBelowAmount: {
      en: 'Must be at least the fixed amount, or no payment could be taken.',
      fr: 'Doit être au moins égal au montant fixe, sinon aucun paiement ne serait possible.',
    } satisfies Text,
  },
  /** The dashboard's bulk upload preview: a row repeats the reference of an earlier row. */
  duplicateRowReference: {
    en: 'This reference is already used by an earlier row of the file.',
    fr: 'Cette référence est déjà utilisée par une ligne précédente du fichier.',
  } satisfies Text,
};

/** A problem about one field: `errors` names it with its message. */
export function problemAt(code: ProblemCode, path: string, message: Text): ApiProblem {
  return new ApiProblem(code, { errors: [{ path, message }] });
}

/** A 400 about one field whose message is also the problem's detail. */
export function invalidField(path: string, message: Text): ApiProblem {
  return new ApiProblem('VALIDATION_ERROR', { detail: message, errors: [{ path, message }] });
}

/**
 * 409 DUPLICATE_REFUND, the refund endpoint's only conflict in the interface ("Refund already
 * attempted; use a different idempotency key"), in its two cases: the key already carried another
 * refund request, or another key asks for a refund whose externalReference this payin already has
 * (docs/decisions/refunds/conflicts-answer-duplicate-refund.md). `errors` names which, for programs
 * and people.
 */
export const refundConflict = {
  keyReused: (): ApiProblem => {
    const message: Text = {
      en: 'Already used for another refund request: send a new X-Idempotency-Key for a new or changed refund.',
      fr: 'Déjà utilisée pour une autre demande de remboursement : envoyez une nouvelle X-Idempotency-Key pour un remboursement nouveau ou modifié.',
    };
    return new ApiProblem('DUPLICATE_REFUND', {
      detail: {
        en: 'This X-Idempotency-Key was already used for another refund request; use a different idempotency key.',
        fr: "Cette X-Idempotency-Key a déjà servi pour une autre demande de remboursement ; utilisez une autre clé d'idempotence.",
      },
      errors: [{ path: 'headers.x-idempotency-key', message }],
    });
  },
  externalReferenceUsed: (): ApiProblem => {
    const message: Text = {
      en: 'Already used by a refund of this payment: to retry that refund, resend its own X-Idempotency-Key and body; for another refund, use a new externalReference.',
      fr: 'Déjà utilisée par un remboursement de ce paiement : pour retenter ce remboursement, renvoyez sa propre X-Idempotency-Key et son corps ; pour un autre remboursement, utilisez une nouvelle externalReference.',
    };
    return new ApiProblem('DUPLICATE_REFUND', {
      detail: {
        en: 'A refund with this externalReference was already attempted for this payment.',
        fr: 'Un remboursement avec cette externalReference a déjà été tenté pour ce paiement.',
      },
      errors: [{ path: 'externalReference', message }],
    });
  },
};

/** The reference is taken by another payin (or payout) of the merchant. */
export function duplicateReference(kind: 'payin' | 'payout'): ApiProblem {
  return problemAt('DUPLICATE_REFERENCE', 'reference', fieldMessages.referenceUsed[kind]);
}

/** A bulk payout item whose reference an earlier item of the same batch already has. */
export function duplicateInBatch(): ApiProblem {
  return problemAt('DUPLICATE_REFERENCE', 'reference', fieldMessages.referenceTwiceInBatch);
}

/**
 * A request the chosen provider would refuse anyway, as the problem the merchant gets. `prefix`
 * is where the fields sit in the request body (e.g. `payin.`).
 */
export function providerRuleProblem(
  violation: PayinRuleViolation,
  p: { operator: string; country: string },
  prefix = '',
): ApiProblem {
  const path = `${prefix}${violation.path}`;
  switch (violation.code) {
    case 'OTP_REQUIRED':
      return problemAt('OTP_REQUIRED', path, fieldMessages.otpRequired(p.operator));
    case 'MSISDN_PROVIDER_MISMATCH':
      return problemAt('MSISDN_PROVIDER_MISMATCH', path, fieldMessages.numberOfAnotherOperator(p.operator));
    case 'AMOUNT_OUT_OF_RANGE':
      return problemAt(
        'AMOUNT_OUT_OF_RANGE',
        path,
        fieldMessages.amountOutOfRange(violation.min, violation.max, p.operator, p.country),
      );
  }
}
