import { z } from 'zod';
import { pageCursor, pageLimit } from './common';
import { fieldMessages } from '../field-messages';
import { countries, operatorCodes, operatorsByCountry } from '../../domain/operators';
import { METADATA_KEY_MAX, METADATA_VALUE_MAX } from '../../domain/metadata';
import { transactionRecord } from './transaction-record';
import { accountPayoutRecord } from './payout';
import { refundRecord } from './refund';

// GET /v1/transactions: the merchant's payins, payouts and refunds, newest first (docs/search.md).

const providerNames = countries.flatMap((c) => operatorsByCountry[c].map((o) => `${o}_${c}`)) as [
  string,
  ...string[],
];
const statuses = [
  'pending',
  'processing',
  'processed',
  'success',
  'completed',
  'failed',
  'reversed',
  'expired',
] as const;

export const transactionSearchQuery = z.strictObject({
  limit: pageLimit,
  cursor: pageCursor,
  type: z.enum(['payin', 'payout', 'refund']).optional(),
  status: z.enum(statuses).optional(),
  /**
   * As records name it (`MTN_CI`, `ORANGE_CM`…) or as requests do (`MTN`: in every country it
   * serves, or in `country` when given). docs/decisions/api/provider-spelling.md
   */
  provider: z.enum([...providerNames, ...operatorCodes]).optional(),
  country: z.enum(countries).optional(),
  /** createdAt at or after. */
  from: z.iso.datetime({ offset: true }).optional(),
  /** createdAt before. */
  to: z.iso.datetime({ offset: true }).optional(),
  /** The merchant's reference of a payin or payout, or a refund's `rf_` reference: exact. */
  reference: z.string().trim().min(1).max(100).optional(),
  /** `metadata[key]=value`, every pair must match (sent as a deepObject query parameter). */
  metadata: z
    .record(z.string().min(1).max(METADATA_KEY_MAX), z.string().max(METADATA_VALUE_MAX))
    .refine((m) => Object.keys(m).length <= 10, { params: fieldMessages.tooManyKeys(10) })
    .optional(),
});
export type TransactionSearchQuery = z.infer<typeof transactionSearchQuery>;

/** Each item is the record its own read endpoint returns (`type` tells which). */
export const transactionSearchItem = z.union([transactionRecord, accountPayoutRecord, refundRecord]);

export const transactionSearchPage = z.object({
  data: z.array(transactionSearchItem),
  /** Continue with this cursor; null when nothing is left. A page may be short and still continue. */
  nextCursor: z.string().nullable(),
});
export type TransactionSearchPage = z.infer<typeof transactionSearchPage>;

/**
 * Express parses `metadata[orderId]=42` as the key `metadata[orderId]`: gathered here into the
 * `metadata` object the schema reads.
 */
export function gatherMetadataParams(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    const m = /^metadata\[(.*)\]$/.exec(k);
    if (m) metadata[m[1]!] = v;
    else out[k] = v;
  }
  return Object.keys(metadata).length > 0 ? { ...out, metadata } : out;
}
