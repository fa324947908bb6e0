// An audit entry's action as the page shows it, in its language: the structured action the server
// stored (src/dashboard/access/audit-actions.ts: a kind and a few parameters) rendered from the
// `auditActions` texts, e.g. "Refund of 5,000 XOF on order-123"; an entry without one (written
// before, or a route not described) shows its raw method and path.
import type { TFunction } from 'i18next';

export interface DescribedAction {
  kind: string;
  params: Record<string, string | number>;
}

/** 5,000 XOF (en), 5 000 XOF (fr): the amount in the page's language, then the currency's code. */
export function amountWithCode(amount: number, currency: string | undefined, language: string): string {
  const n = new Intl.NumberFormat(language, { maximumFractionDigits: 2 }).format(amount);
  return currency ? `${n} ${currency}` : n;
}

/** The readable action, or null when the entry has no structured action. */
export function auditActionText(
  described: DescribedAction | null | undefined,
  t: TFunction,
  language: string,
): string | null {
  if (!described) return null;
  const name = t(`auditActions.kinds.${described.kind}`, { defaultValue: '' });
  if (!name) return null;
  const p = described.params;
  const parts = [name];
  if (typeof p.amount === 'number')
    parts.push(
      t('auditActions.of', {
        amount: amountWithCode(p.amount, typeof p.currency === 'string' ? p.currency : undefined, language),
      }),
    );
  if (typeof p.phone === 'string') parts.push(t('auditActions.to', { phone: p.phone }));
  if (typeof p.reference === 'string') parts.push(t('auditActions.on', { reference: p.reference }));
  if (typeof p.items === 'number') parts.push(t('auditActions.items', { count: p.items }));
  // An export: which list, in which format ("List exported (refunds, CSV)").
  const list =
    typeof p.list === 'string' ? t(`auditActions.lists.${p.list}`, { defaultValue: p.list }) : undefined;
  const format = typeof p.format === 'string' ? p.format.toUpperCase() : undefined;
  const qualifier = [list, format, p.mode, p.role].filter((v): v is string => typeof v === 'string');
  return parts.join(' ') + (qualifier.length ? ` (${qualifier.join(', ')})` : '');
}
