import { randomBytes } from 'node:crypto';

// Public identifiers carry a recognisable prefix (pr_ transactions, rf_ refunds, ...).
// le_ ledger entries, lt_ ledger transfers.
export type IdPrefix = 'pr' | 'rf' | 'tr' | 'mtr' | 'evt' | 'mer' | 'acc' | 'we' | 'le' | 'lt';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
