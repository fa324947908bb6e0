import type { Language } from '../contract/i18n';
import type { Country } from '../domain/operators';
import { esc, formatAmount } from './page';
import { checkoutTexts } from './i18n';
import { frameStyles } from './page-frame-styles';

// The page of a payment link (GET /l/:slug): server-rendered, no script, mobile first, like the
// hosted checkout (docs/decisions/checkout/works-without-javascript.md). Its form posts back to
// the same address; a taken form goes on to the session's own checkout page.

export interface LinkPageView {
  slug: string;
  title: string;
  description: string | null;
  merchantName: string | null;
  /** The merchant's logo, relative to the page; null: none set. */
  merchantLogo: string | null;
  livemode: boolean;
  currency: string;
  amount: { type: 'fixed'; value: number } | { type: 'open'; min: number; max: number };
  countries: Country[];
  customerFields: { name: boolean; email: boolean; question: string | null };
}

export interface LinkForm {
  token: string;
  values?: Record<string, string>;
  errors?: { path: string; message: string }[];
  message?: string;
}

const texts = {
  en: {
    pay: 'Pay',
    amount: 'Amount',
    chooseAmount: (min: string, max: string) => `Amount (from ${min} to ${max})`,
    country: 'Country',
    msisdn: 'Mobile money number',
    name: 'Your name',
    email: 'Your e-mail',
    fixErrors: 'Please correct the fields marked below.',
    testMode: 'Test mode: no real money moves; payments go to the sandbox.',
    countries: { CI: "Côte d'Ivoire", CM: 'Cameroon' } as Record<Country, string>,
    closedTitle: 'This payment link no longer takes payments',
    closed: {
      inactive: 'The merchant has deactivated this link.',
      expired: 'This link has expired.',
      spent: 'This link has already been used.',
      busy: 'A payment on this link is under way. Try again in a few minutes if it does not go through.',
    },
    askMerchant: 'Ask the merchant for a new link.',
    thanksTitle: 'Thank you!',
    thanks: 'Your payment has been received.',
    by: (merchant: string) => `Payment to ${merchant}`,
  },
  fr: {
    pay: 'Payer',
    amount: 'Montant',
    chooseAmount: (min: string, max: string) => `Montant (de ${min} à ${max})`,
    country: 'Pays',
    msisdn: 'Numéro Mobile Money',
    name: 'Votre nom',
    email: 'Votre e-mail',
    fixErrors: 'Veuillez corriger les champs signalés ci-dessous.',
    testMode: "Mode test : aucun argent réel n'est débité ; les paiements vont au bac à sable.",
    countries: { CI: "Côte d'Ivoire", CM: 'Cameroun' } as Record<Country, string>,
    closedTitle: "Ce lien de paiement n'accepte plus de paiements",
    closed: {
      inactive: 'Le marchand a désactivé ce lien.',
      expired: 'Ce lien a expiré.',
      spent: 'Ce lien a déjà été utilisé.',
      busy: "Un paiement est en cours sur ce lien. Réessayez dans quelques minutes s'il n'aboutit pas.",
    },
    askMerchant: 'Demandez un nouveau lien au marchand.',
    thanksTitle: 'Merci !',
    thanks: 'Votre paiement a bien été reçu.',
    by: (merchant: string) => `Paiement à ${merchant}`,
  },
} satisfies Record<Language, unknown>;

export type LinkClosedReason = keyof (typeof texts)['en']['closed'];

const styles = `${frameStyles}
h1{font-size:1.25rem;margin:.25rem 0 .5rem}
.merchant{color:#4a4a4a;margin:0 0 .5rem}
.logo{display:block;max-height:56px;max-width:180px;width:auto;height:auto;margin:0 0 .5rem}
.amount{font-size:2rem;font-weight:700;margin:0 0 1rem}
.test{background:#fff4d6;border:2px solid #e07b00;border-radius:8px;padding:.5rem .75rem;font-weight:600}
.field{margin:0 0 1rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
select,input{width:100%;font:inherit;padding:.7rem .75rem;border:2px solid #6b6b6b;border-radius:8px;background:#fff;color:#1a1a1a}
[aria-invalid="true"]{border-color:#b00020}
.error{color:#b00020;font-weight:600;margin:.25rem 0 0}
button{width:100%;font:inherit;font-weight:700;padding:.85rem 1rem;border-radius:8px;border:2px solid #0a4f96;background:#0a4f96;color:#fff;cursor:pointer;min-height:48px}
:focus-visible{outline:3px solid #e07b00;outline-offset:2px}
`;

function shell(lang: Language, nonce: string, title: string, body: string, switchTo?: string): string {
  const t = checkoutTexts[lang];
  const other = t.otherLanguage;
  return `<!doctype html>
<html lang="${t.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${esc(title)}</title>
<style nonce="${nonce}">${styles}</style>
</head>
<body>
<main>
<nav aria-label="${esc(t.languageSwitch)}"><a href="${esc(switchTo ?? '')}?lang=${other.code}" hreflang="${other.code}" lang="${other.code}">${esc(other.label)}</a></nav>
${body}
</main>
</body>
</html>`;
}

export function renderLinkPage(
  view: LinkPageView,
  opts: { lang: Language; nonce: string; form: LinkForm },
): string {
  const t = texts[opts.lang];
  const locale = checkoutTexts[opts.lang].numberLocale;
  const money = (n: number) => formatAmount(n, view.currency, locale);
  const { form } = opts;
  const value = (name: string) => esc(form.values?.[name] ?? '');
  const field = (name: string, label: string, input: string) => {
    const message = form.errors?.find((e) => e.path === name)?.message;
    const invalid = message ? ' aria-invalid="true"' : '';
    return `<div class="field">
<label for="${name}">${esc(label)}</label>
${input.replace('<input', `<input aria-describedby="${name}-error"${invalid}`).replace('<select', `<select aria-describedby="${name}-error"${invalid}`)}
<p id="${name}-error" class="error"${message ? '' : ' hidden'}>${esc(message ?? '')}</p>
</div>`;
  };
  const formMessage = form.errors?.length ? t.fixErrors : (form.message ?? '');
  const amount =
    view.amount.type === 'fixed'
      ? `<p class="amount" data-testid="amount">${esc(money(view.amount.value))}</p>`
      : field(
          'amount',
          t.chooseAmount(money(view.amount.min), money(view.amount.max)),
          `<input id="amount" name="amount" type="text" inputmode="numeric" required value="${value('amount')}" data-testid="amount">`,
        );
  const country =
    view.countries.length > 1
      ? field(
          'country',
          t.country,
          `<select id="country" name="country">${view.countries
            .map(
              (c) =>
                `<option value="${c}"${form.values?.country === c ? ' selected' : ''}>${esc(t.countries[c])}</option>`,
            )
            .join('')}</select>`,
        )
      : '';
  const body = `${view.livemode ? '' : `<p class="test" data-testid="test-mode">${esc(t.testMode)}</p>`}
${view.merchantLogo ? `<img class="logo" src="${esc(view.merchantLogo)}" alt="" height="56" data-testid="merchant-logo">` : ''}
<h1>${esc(view.title)}</h1>
${view.merchantName ? `<p class="merchant">${esc(t.by(view.merchantName))}</p>` : ''}
${view.description ? `<p>${esc(view.description)}</p>` : ''}
<form method="post" action="${esc(view.slug)}?lang=${opts.lang}" novalidate>
<p id="form-error" class="error" role="alert">${esc(formMessage)}</p>
<input type="hidden" name="token" value="${esc(form.token)}">
${amount}
${country}
${field('msisdn', t.msisdn, `<input id="msisdn" name="msisdn" type="tel" inputmode="tel" autocomplete="tel" required value="${value('msisdn')}" data-testid="msisdn">`)}
${view.customerFields.name ? field('name', t.name, `<input id="name" name="name" type="text" autocomplete="name" maxlength="100" required value="${value('name')}">`) : ''}
${view.customerFields.email ? field('email', t.email, `<input id="email" name="email" type="email" autocomplete="email" maxlength="200" required value="${value('email')}">`) : ''}
${view.customerFields.question ? field('answer', view.customerFields.question, `<input id="answer" name="answer" type="text" maxlength="500" required value="${value('answer')}">`) : ''}
<button type="submit" data-testid="pay">${esc(t.pay)}</button>
</form>`;
  return shell(opts.lang, opts.nonce, view.title, body, view.slug);
}

/** A link that takes no payment now: deactivated, expired, spent, or (single use) busy. */
export function renderLinkClosedPage(
  reason: LinkClosedReason,
  opts: { lang: Language; nonce: string; slug: string; title: string },
): string {
  const t = texts[opts.lang];
  const body = `<h1>${esc(t.closedTitle)}</h1>
<p data-testid="closed-reason">${esc(t.closed[reason])}</p>
${reason === 'busy' ? '' : `<p>${esc(t.askMerchant)}</p>`}`;
  return shell(opts.lang, opts.nonce, `${t.closedTitle} · ${opts.title}`, body, opts.slug);
}

/** Where a paid session's customer lands when the link names no return URL of its own. */
export function renderLinkThanksPage(
  message: string | null,
  opts: { lang: Language; nonce: string; title: string },
): string {
  const t = texts[opts.lang];
  const body = `<h1>${esc(t.thanksTitle)}</h1>
<p data-testid="thanks">${esc(message ?? t.thanks)}</p>`;
  return shell(opts.lang, opts.nonce, `${t.thanksTitle} · ${opts.title}`, body, 'thanks');
}
