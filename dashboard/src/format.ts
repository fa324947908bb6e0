// Numbers, amounts and dates through Intl in the page's language. XOF and XAF have no minor unit.
import { useTranslation } from 'react-i18next';

const noDecimals = new Set(['XOF', 'XAF']);

/** `signed`: a credit reads with its plus sign, as a debit with its minus (a movement, not a total). */
export function formatAmount(amount: number, currency: string, language: string, signed = false): string {
  const digits = noDecimals.has(currency) ? 0 : undefined;
  const signDisplay = signed ? 'exceptZero' : 'auto';
  try {
    return new Intl.NumberFormat(language, {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      signDisplay,
    }).format(amount);
  } catch {
    return `${new Intl.NumberFormat(language, { signDisplay }).format(amount)} ${currency}`;
  }
}

/**
 * A phone number as staff see it: the country code and the last four digits (the rest stays in the
 * records, for the customer's privacy on a shared screen); search works on those last digits.
 */
export function maskPhone(phone: string | null | undefined): string {
  if (!phone) return '—';
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 4) return phone;
  const code = phone.startsWith('+') ? `+${digits.slice(0, 3)} ` : '';
  return `${code}•• •• ${digits.slice(-4, -2)} ${digits.slice(-2)}`;
}

export function useFormat() {
  const { i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? i18n.language;
  return {
    language,
    amount: (amount: number, currency: string) => formatAmount(amount, currency, language),
    signedAmount: (amount: number, currency: string) => formatAmount(amount, currency, language, true),
    number: (n: number) => new Intl.NumberFormat(language).format(n),
    percent: (ratio: number) =>
      new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(ratio),
    dateTime: (iso: string | null | undefined) =>
      iso
        ? new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso))
        : '—',
    time: (iso: string) => new Intl.DateTimeFormat(language, { timeStyle: 'short' }).format(new Date(iso)),
    /**
     * A period [from, to) as asked: whole days (local midnights, `to` the day after the last) read
     * as the days they cover ("Nov 26 – 27, 2026"), any other bounds as times.
     */
    period: (from: string, to: string) => {
      const [a, b] = [new Date(from), new Date(to)];
      const midnight = (d: Date) =>
        d.getHours() + d.getMinutes() + d.getSeconds() + d.getMilliseconds() === 0;
      if (!midnight(a) || !midnight(b) || b <= a) {
        const f = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
        return `${f.format(a)} – ${f.format(b)}`;
      }
      const last = new Date(b);
      last.setDate(last.getDate() - 1);
      return new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).formatRange(a, last);
    },
    date: (iso: string) =>
      new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso)),
    shortDate: (iso: string) =>
      new Intl.DateTimeFormat(language, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(
        new Date(iso),
      ),
  };
}
