import { createHash } from 'node:crypto';

// Providers that want a UUID as the idempotency id of a request (pawaPay's depositId/payoutId/
// refundId, MTN's X-Reference-Id) get one that is a pure, reversible function of our id: a retry
// always sends the same UUID (the provider deduplicates it), and a callback or a statement line that
// names only the UUID leads back to our transaction without any lookup table. Our operator-facing
// ids are `pr_<24 hex>` (payins, payouts) and `rf_<24 hex>` (refunds).

const prefixCodes: Record<string, string> = { pr: '01', rf: '02' };
const prefixOfCode = Object.fromEntries(Object.entries(prefixCodes).map(([p, c]) => [c, p]));

/** 4 hex of SHA-256 over the payload: a UUID that is not one of ours is recognised as such. */
function check(payload: string): string {
  return createHash('sha256').update(`momo-provider-id:${payload}`).digest('hex').slice(0, 4);
}

/**
 * `pr_0123…` → a UUID of version 4 layout (version nibble 4, variant 8) holding the prefix code, the
 * 24 hex digits of the id and a 4-digit check. Throws for an id that is not ours.
 */
export function toProviderUuid(id: string): string {
  const m = /^([a-z]+)_([0-9a-f]{24})$/.exec(id);
  const code = m ? prefixCodes[m[1]!] : undefined;
  if (!m || !code) throw new Error('not an operator-facing id (pr_… or rf_…)');
  const payload = `${code}${m[2]!}`;
  const free = `${payload}${check(payload)}`; // 30 hex digits
  const hex = `${free.slice(0, 12)}4${free.slice(12, 15)}8${free.slice(15)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The inverse of toProviderUuid; null for a UUID we did not make (forged, or another system's). */
export function fromProviderUuid(uuid: string): string | null {
  const hex = uuid.toLowerCase().replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(hex) || hex[12] !== '4' || hex[16] !== '8') return null;
  const free = `${hex.slice(0, 12)}${hex.slice(13, 16)}${hex.slice(17)}`;
  const payload = free.slice(0, 26);
  if (check(payload) !== free.slice(26)) return null;
  const prefix = prefixOfCode[payload.slice(0, 2)];
  return prefix ? `${prefix}_${payload.slice(2)}` : null;
}
