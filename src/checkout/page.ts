import type { Language } from '../contract/i18n';
import { toMajor } from '../domain/money';
import type { CheckoutView } from './service';
import { checkoutTexts, type CheckoutTexts } from './i18n';
import { checkoutScriptUrl } from './script-asset';
import { frameStyles } from './page-frame-styles';

// The hosted checkout page: one server-rendered HTML document with inline CSS and one same-origin
// script (assets/checkout.js), mobile first. Every interpolated value goes through `esc` or
// `jsonForScript`.

export function esc(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** JSON inside <script type="application/json">: no `<` can close the element early. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function formatAmount(minor: number, currency: string, locale: string): string {
  const major = toMajor(minor, currency as Parameters<typeof toMajor>[1]);
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(major);
  } catch {
    return `${major} ${currency}`;
  }
}

const styles = `${frameStyles}
h1{font-size:1.15rem;margin:.25rem 0 .5rem}
.amount-label{color:#4a4a4a;font-size:.9rem;margin:.5rem 0 0}
.amount{font-size:2rem;font-weight:700;margin:0 0 .25rem}
.ref{color:#4a4a4a;font-size:.9rem;margin:0 0 1rem;word-break:break-all}
.field{margin:0 0 1rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
select,input{width:100%;font:inherit;padding:.7rem .75rem;border:2px solid #6b6b6b;border-radius:8px;background:#fff;color:#1a1a1a}
[aria-invalid="true"]{border-color:#b00020}
.hint{color:#4a4a4a;font-size:.9rem;margin:.25rem 0 0}
.error{color:#b00020;font-weight:600;margin:.25rem 0 0}
.actions{display:flex;flex-direction:column;gap:.75rem;margin-top:1.25rem}
button{font:inherit;font-weight:700;padding:.85rem 1rem;border-radius:8px;border:2px solid #0a4f96;cursor:pointer;min-height:48px}
#confirm{background:#0a4f96;color:#fff}
#decline{background:#fff;color:#0a4f96}
button:disabled{opacity:.6;cursor:progress}
:focus-visible{outline:3px solid #e07b00;outline-offset:2px}
#status{min-height:1.5rem;font-weight:600;margin:1rem 0 0}
#status.busy::before{content:"";display:inline-block;width:1em;height:1em;margin-right:.5em;vertical-align:-.15em;border:3px solid #0a4f96;border-right-color:transparent;border-radius:50%;animation:spin 1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){#status.busy::before{animation:none}}
[hidden]{display:none!important}
`;

export interface PageOptions {
  lang: Language;
  nonce: string;
  /** A form posted without JavaScript (POST /checkout/:id), shown back: its values and its errors. */
  form?: PostedForm;
}

export interface PostedForm {
  /** The answer was taken: the form stays closed while the stored record catches up. */
  answered?: boolean;
  values?: { provider?: string; msisdn?: string };
  errors?: { path: string; message: string }[];
  /** The problem's words when no field is at fault. */
  message?: string;
}

/**
 * What the status line says before the script runs, so that a page without JavaScript says it too
 * (the script's show() says the same), and where the page sends its reader by itself: the operator's
 * page, or the merchant's once the payment is final.
 */
function statusOf(view: CheckoutView, t: CheckoutTexts, answered: boolean) {
  const { state } = view;
  const c = t.client;
  if (state.final) {
    const done =
      state.confirmationStatus === 'declined'
        ? c.declined
        : ((c as Record<string, string>)[state.status] ?? c.failed);
    return { text: state.redirectUrl ? `${done} ${c.redirecting}` : done, goTo: state.redirectUrl };
  }
  if (state.awaitingCustomer && !answered) return { text: '', goTo: null };
  if (answered && state.paymentUrl) return { text: '', goTo: state.paymentUrl };
  const push = c.waitingPush + (state.ussdCode ? ` ${fill(c.ussdFallback, { ussd: state.ussdCode })}` : '');
  return { text: push, goTo: null };
}

const fill = (text: string, vars: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? '');

export function renderCheckoutPage(view: CheckoutView, opts: PageOptions): string {
  const t = checkoutTexts[opts.lang];
  const { tx, providers } = view;
  const posted = opts.form ?? {};
  const merchant = view.merchantName || '—';
  const otpUssd = providers.find((p) => p.otpRequired)?.otpUssdCode ?? '';
  const closed = new Set(view.unavailable);
  const selected =
    providers.find((p) => p.code === posted.values?.provider && !closed.has(p.code))?.code ??
    view.suggested ??
    providers.find((p) => !closed.has(p.code))?.code;
  const fieldError = (path: string) => posted.errors?.find((e) => e.path === path)?.message;
  /** A field's error, shown as the script shows it; the input is marked invalid. */
  const errorOf = (path: string) => {
    const message = fieldError(path);
    return {
      attr: message ? ' aria-invalid="true"' : '',
      p: `<p id="${path}-error" class="error"${message ? '' : ' hidden'}>${esc(message ?? '')}</p>`,
    };
  };
  const formMessage = posted.errors?.length ? t.client.fixErrors : (posted.message ?? '');
  const status = statusOf(view, t, posted.answered === true);
  const showForm = view.state.awaitingCustomer && !posted.answered;
  // Without JavaScript the page reloads itself while the payment goes on, and leaves for the
  // operator's or the merchant's page as the script would.
  const refresh = status.goTo
    ? `${view.state.final ? 1 : 0};url=${status.goTo}`
    : showForm || view.state.final
      ? null
      : `3;url=${tx.id}?lang=${opts.lang}&answered=1`;
  const otpOffered = providers.some((p) => p.otpRequired && !closed.has(p.code));
  const msisdnValue = posted.values?.msisdn ?? tx.customer.phoneNumber;
  const provider = errorOf('provider');
  const msisdn = errorOf('msisdn');
  const otp = errorOf('otp');
  // A closed provider stays listed (the customer knows it) but cannot be chosen.
  const options = providers
    .map((p) =>
      closed.has(p.code)
        ? `<option value="${esc(p.code)}" disabled data-unavailable>${esc(p.displayName)} — ${esc(t.temporarilyUnavailable)}</option>`
        : `<option value="${esc(p.code)}"${p.code === selected ? ' selected' : ''}>${esc(p.displayName)}</option>`,
    )
    .join('');
  const data = {
    id: tx.id,
    lang: opts.lang,
    texts: t.client,
    providers: Object.fromEntries(
      providers.map((p) => [p.code, { name: p.displayName, otpRequired: p.otpRequired }]),
    ),
    state: view.state,
  };
  const other = t.otherLanguage;
  return `<!doctype html>
<html lang="${t.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${esc(t.pageTitle)} · ${esc(merchant)}</title>
<style nonce="${opts.nonce}">${styles}</style>
${refresh ? `<noscript><meta http-equiv="refresh" content="${esc(refresh)}"></noscript>` : ''}
</head>
<body>
<main>
<nav aria-label="${esc(t.languageSwitch)}"><a href="?lang=${other.code}" hreflang="${other.code}" lang="${other.code}">${esc(other.label)}</a></nav>
<h1>${esc(t.asksYouToPay(merchant))}</h1>
<p class="amount-label">${esc(t.amountLabel)}</p>
<p class="amount" data-testid="amount">${esc(formatAmount(tx.chargedAmount, tx.currency, t.numberLocale))}</p>
<p class="ref">${esc(t.reference)} ${esc(tx.reference)}</p>
<form id="form" method="post" action="${esc(tx.id)}?lang=${opts.lang}" novalidate${showForm ? '' : ' hidden'}>
<p id="form-error" class="error" role="alert">${esc(formMessage)}</p>
<div class="field">
<label for="provider">${esc(t.provider)}</label>
<select id="provider" name="provider" data-testid="provider" aria-describedby="provider-error"${provider.attr}>${options}</select>
${provider.p}
</div>
<div class="field">
<label for="msisdn">${esc(t.msisdn)}</label>
<input id="msisdn" name="msisdn" type="tel" inputmode="tel" autocomplete="tel" required value="${esc(msisdnValue)}" data-testid="msisdn" aria-describedby="msisdn-hint msisdn-error"${msisdn.attr}>
<p id="msisdn-hint" class="hint">${esc(t.msisdnHint(tx.country))}</p>
${msisdn.p}
</div>
<div class="field" id="otp-field"${otpOffered ? '' : ' hidden'}>
<label for="otp">${esc(t.otp)}</label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" data-testid="otp" aria-describedby="otp-hint otp-error"${otp.attr}>
<p id="otp-hint" class="hint">${esc(t.otpHint(otpUssd))}</p>
${otp.p}
</div>
<div class="actions">
<button type="submit" id="confirm" name="answer" value="confirm" data-testid="confirm">${esc(t.confirm)}</button>
<button type="submit" id="decline" name="answer" value="decline" formnovalidate data-testid="decline">${esc(t.decline)}</button>
</div>
</form>
<p id="status" data-testid="status" role="status" aria-live="polite"${status.text && !view.state.final && !showForm ? ' class="busy"' : ''}>${esc(status.text)}</p>
${status.goTo ? `<noscript><p><a href="${esc(status.goTo)}">${esc(t.continue)}</a></p></noscript>` : ''}
</main>
<script type="application/json" id="checkout-data">${jsonForScript(data)}</script>
<script nonce="${opts.nonce}" src="${esc(checkoutScriptUrl)}"></script>
</body>
</html>`;
}

/** The customer-facing page for a link that leads nowhere (unknown id, or not a session). */
export function renderNotFoundPage(lang: Language, nonce: string): string {
  const t = checkoutTexts[lang];
  return `<!doctype html>
<html lang="${t.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(t.notFoundTitle)}</title>
<style nonce="${nonce}">${styles}</style>
</head>
<body>
<main>
<h1>${esc(t.notFoundTitle)}</h1>
<p>${esc(t.notFoundBody)}</p>
</main>
</body>
</html>`;
}
