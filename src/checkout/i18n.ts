import { languages, negotiateLanguage, type Language } from '../contract/i18n';
import type { Country } from '../domain/operators';

// Every word of the hosted checkout page, in English and French. The page's script receives the
// `client` strings of its language; the server renders the rest.

/** `?lang=fr` (the page's visible switch) wins over Accept-Language. */
export function checkoutLanguage(
  req: Parameters<typeof negotiateLanguage>[0] & { query: Record<string, unknown> },
): Language {
  const asked = req.query.lang;
  if (typeof asked === 'string' && (languages as readonly string[]).includes(asked)) return asked as Language;
  return negotiateLanguage(req);
}

/** A mobile number as customers of each country write it: the national format is accepted. */
const typedExample: Record<Country, string> = {
  CI: '07 00 00 00 01 (+225 07 00 00 00 01)',
  CM: '6 71 23 45 67 (+237 6 71 23 45 67)',
};

export interface CheckoutTexts {
  htmlLang: string;
  numberLocale: string;
  pageTitle: string;
  languageSwitch: string;
  otherLanguage: { code: Language; label: string };
  asksYouToPay: (merchant: string) => string;
  amountLabel: string;
  reference: string;
  provider: string;
  /** Beside a provider that cannot take payments right now. */
  temporarilyUnavailable: string;
  msisdn: string;
  /** How to type a number of the session's country (national format accepted, src/domain/msisdn.ts). */
  msisdnHint: (country: Country) => string;
  otp: string;
  otpHint: (ussd: string) => string;
  confirm: string;
  decline: string;
  /** The link to the next page, for a browser that does not follow the page's refresh. */
  continue: string;
  /** A form posted from another site (Sec-Fetch-Site): refused. */
  answerHere: string;
  notFoundTitle: string;
  notFoundBody: string;
  client: {
    sending: string;
    declining: string;
    waitingPush: string;
    ussdFallback: string;
    redirectingToOperator: string;
    success: string;
    failed: string;
    expired: string;
    declined: string;
    redirecting: string;
    unavailable: string;
    fixErrors: string;
  };
}

export const checkoutTexts: Record<Language, CheckoutTexts> = {
  en: {
    htmlLang: 'en',
    numberLocale: 'en-GB',
    pageTitle: 'Payment',
    languageSwitch: 'Language',
    otherLanguage: { code: 'fr', label: 'Français' },
    asksYouToPay: (m) => `${m} asks you to pay`,
    amountLabel: 'Amount',
    reference: 'Reference:',
    provider: 'Pay with',
    temporarilyUnavailable: 'temporarily unavailable',
    msisdn: 'Mobile money number',
    msisdnHint: (country) => `For example ${typedExample[country]}`,
    otp: 'Payment code (OTP)',
    otpHint: (ussd) => `Dial ${ussd} on your phone to get the code.`,
    confirm: 'Confirm payment',
    decline: 'Decline',
    continue: 'Continue',
    answerHere: 'Answer on the payment page itself.',
    notFoundTitle: 'Payment not found',
    notFoundBody: 'This payment link is not valid. Ask the merchant for a new one.',
    client: {
      sending: 'Sending the payment request to {operator}…',
      declining: 'Declining the payment…',
      waitingPush: 'Approve the payment on your phone.',
      ussdFallback: 'No prompt on your phone? Dial {ussd} to validate.',
      redirectingToOperator: 'Opening {operator}…',
      success: 'Payment successful.',
      failed: 'The payment failed.',
      expired: 'The payment expired.',
      declined: 'You declined the payment.',
      redirecting: 'Taking you back to the merchant…',
      unavailable: 'The service is unavailable. Try again in a moment.',
      fixErrors: 'Please correct the highlighted fields.',
    },
  },
  fr: {
    htmlLang: 'fr',
    numberLocale: 'fr-FR',
    pageTitle: 'Paiement',
    languageSwitch: 'Langue',
    otherLanguage: { code: 'en', label: 'English' },
    asksYouToPay: (m) => `${m} vous demande de payer`,
    amountLabel: 'Montant',
    reference: 'Référence :',
    provider: 'Payer avec',
    temporarilyUnavailable: 'temporairement indisponible',
    msisdn: 'Numéro mobile money',
    msisdnHint: (country) => `Par exemple ${typedExample[country]}`,
    otp: 'Code de paiement (OTP)',
    otpHint: (ussd) => `Composez ${ussd} sur votre téléphone pour obtenir le code.`,
    confirm: 'Confirmer le paiement',
    decline: 'Refuser',
    continue: 'Continuer',
    answerHere: 'Répondez sur la page de paiement elle-même.',
    notFoundTitle: 'Paiement introuvable',
    notFoundBody: "Ce lien de paiement n'est pas valide. Demandez-en un nouveau au marchand.",
    client: {
      sending: 'Envoi de la demande de paiement à {operator}…',
      declining: 'Refus du paiement…',
      waitingPush: 'Validez le paiement sur votre téléphone.',
      ussdFallback: 'Pas de demande sur votre téléphone ? Composez {ussd} pour valider.',
      redirectingToOperator: 'Ouverture de {operator}…',
      success: 'Paiement réussi.',
      failed: 'Le paiement a échoué.',
      expired: 'Le paiement a expiré.',
      declined: 'Vous avez refusé le paiement.',
      redirecting: 'Retour vers le marchand…',
      unavailable: 'Le service est indisponible. Réessayez dans un instant.',
      fixErrors: 'Corrigez les champs signalés.',
    },
  },
};
