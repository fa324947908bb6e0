import type { StatementRecord } from '../schemas/statements';
import { toMajor, type Currency } from '../../domain/money';
import { isLiveScope } from '../../domain/modes';

/** What a stored statement holds, as the record needs it (the store's type lives above the contract). */
export interface StatementFacts {
  id: string;
  merchantId: string;
  accountId: string;
  currency: Currency;
  from: Date;
  to: Date;
  format: 'csv' | 'json';
  status: 'pending' | 'ready' | 'failed';
  createdAt: Date;
  readyAt: Date | null;
  openingBalance: number | null;
  closingBalance: number | null;
  entryCount: number | null;
}

/** The public record; `download` is given by the caller (a signed link, only when ready). */
export function toStatementRecord(
  st: StatementFacts,
  download: { url: string; expiresAt: Date } | null,
): StatementRecord {
  const major = (n: number | null) => (n === null ? null : toMajor(n, st.currency));
  return {
    id: st.id,
    status: st.status,
    accountId: st.accountId,
    currency: st.currency,
    from: new Date(st.from).toISOString(),
    to: new Date(st.to).toISOString(),
    format: st.format,
    createdAt: new Date(st.createdAt).toISOString(),
    livemode: isLiveScope(st.merchantId),
    entryCount: st.entryCount,
    openingBalance: major(st.openingBalance),
    closingBalance: major(st.closingBalance),
    readyAt: st.readyAt ? new Date(st.readyAt).toISOString() : null,
    download:
      st.status === 'ready' && download
        ? { url: download.url, expiresAt: download.expiresAt.toISOString() }
        : null,
  };
}
