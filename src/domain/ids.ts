import { createHash, randomBytes } from 'node:crypto';

// Public identifiers carry a recognisable prefix (pr_ transactions, rf_ refunds, ...).
// le_ ledger entries, lt_ ledger transfers, aud_ refund audit entries.
// st_ statements, pb_ bulk payouts, rp_ webhook replays.
export type IdPrefix =
  'pr' | 'rf' | 'tr' | 'mtr' | 'evt' | 'mer' | 'acc' | 'we' | 'le' | 'lt' | 'aud' | 'st' | 'pb' | 'rp';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/**
 * The id a request names with its idempotency key: the same merchant and key give the same id, so a
 * retried request finds what its first attempt made (and the workflow id built from it runs once).
 */
export function idOfKey(prefix: IdPrefix, scope: string, key: string): string {
  return `${prefix}_${createHash('sha256').update(`${scope}\u0000${key}`).digest('hex').slice(0, 24)}`;
}
