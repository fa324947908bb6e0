import { randomBytes } from 'node:crypto';

// Public identifiers carry a recognisable prefix (pr_ transactions, rf_ refunds, ...).
// le_ ledger entries, lt_ ledger transfers, aud_ refund audit entries.
export type IdPrefix = 'pr' | 'rf' | 'tr' | 'mtr' | 'evt' | 'mer' | 'acc' | 'we' | 'le' | 'lt' | 'aud';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
