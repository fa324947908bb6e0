import { z } from 'zod';
import { accountPayoutRequest, standardPayoutRequest } from './payout';
import { problemSchema } from '../problems';
import { languages, type Text } from '../i18n';
import { zodErrorMap } from '../zod-messages';
import type { FieldError } from '../problems';

// POST /v1/payouts/bulk and its read (docs/bulk-payouts.md). The body is checked in two steps: its
// frame here (an `items` array of 1 to 100 objects), then each item on its own, so one bad item is
// refused with its own problem while the others are paid.

export const MAX_BATCH_ITEMS = 100;

export const createPayoutBatchRequest = z.strictObject({
  items: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_BATCH_ITEMS),
  /** All or none: the whole batch is covered by the balance before any item is debited. */
  atomic: z.boolean().default(false),
});
export type CreatePayoutBatchRequest = z.infer<typeof createPayoutBatchRequest>;

/** The body as the OpenAPI document shows it: each item in the shape of POST /v1/payout. */
export const createPayoutBatchRequestDoc = z.strictObject({
  items: z
    .array(z.union([standardPayoutRequest, accountPayoutRequest]))
    .min(1)
    .max(MAX_BATCH_ITEMS),
  atomic: z.boolean().optional(),
});

/** One item, parsed: shape B when it names an `accountId` (as POST /v1/payout decides). */
export type BatchItemInput =
  | ({ shape: 'A' } & z.infer<typeof standardPayoutRequest>)
  | ({ shape: 'B' } & z.infer<typeof accountPayoutRequest>);

/**
 * An item checked as POST /v1/payout checks its body, its messages in every language (a batch is
 * read later, maybe in another language than the one it was sent in). Paths are the item's own.
 */
export function parseBatchItem(
  raw: Record<string, unknown>,
): { item: BatchItemInput } | { errors: FieldError[] } {
  const withAccount = 'accountId' in raw;
  const schema = withAccount ? accountPayoutRequest : standardPayoutRequest;
  const first = schema.safeParse(raw);
  if (first.success) return { item: { shape: withAccount ? 'B' : 'A', ...first.data } as BatchItemInput };
  const byLang = languages.map((lang) => schema.safeParse(raw, { error: zodErrorMap(lang) }).error!.issues);
  const at = (path: PropertyKey[]) => path.map(String).join('.') || '(body)';
  return {
    errors: byLang[0]!.flatMap((issue, i) => {
      const message = Object.fromEntries(languages.map((l, k) => [l, byLang[k]![i]!.message])) as Text;
      return issue.code === 'unrecognized_keys'
        ? issue.keys.map((k) => ({ path: at([...issue.path, k]), message }))
        : [{ path: at(issue.path), message }];
    }),
  };
}

const batchItemResult = z.object({
  /** The item's position in `items`, from 0. */
  index: z.number().int(),
  reference: z.string().nullable(),
  result: z.enum(['accepted', 'refused']),
  /** Accepted: the payout's record, as GET /v1/payout/{reference} gives it. */
  payout: z.record(z.string(), z.unknown()).nullable(),
  /** Refused: why, as POST /v1/payout would have answered (paths are the item's own). */
  problem: problemSchema.nullable(),
});

const currencyTotal = z.object({
  currency: z.string(),
  /** Accepted items: their count and sums, in major units. */
  count: z.number().int(),
  amount: z.number(),
  fee: z.number(),
  chargedAmount: z.number(),
  /** Of those, what reached the beneficiaries (status completed). */
  completedAmount: z.number(),
});

export const payoutBatchRecord = z.object({
  id: z.string().startsWith('pb_'),
  atomic: z.boolean(),
  /** `processing` until every accepted item is final, then `completed`. */
  status: z.enum(['processing', 'completed']),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  livemode: z.boolean(),
  summary: z.object({
    items: z.number().int(),
    accepted: z.number().int(),
    refused: z.number().int(),
    /** Accepted items by their payout's status. */
    byStatus: z.record(z.string(), z.number().int()),
    totals: z.array(currencyTotal),
  }),
  items: z.array(batchItemResult),
});
export type PayoutBatchRecord = z.infer<typeof payoutBatchRecord>;
export type BatchItemResult = z.infer<typeof batchItemResult>;
