import { z } from 'zod';
import { fieldMessages } from '../field-messages';
import { matches } from '../zod-messages';
import { decodeCursor } from '../../ledger/cursor';
import { currency } from './common';

// GET /v1/accounts and GET /v1/accounts/{id}/entries. Amounts are in the currency's major unit,
// as in transaction records (XOF and XAF have no decimals).

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** An ISO 8601 date or date-time; a date alone starts (from) or ends (to) that UTC day. */
const isoBound = (end: boolean) =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((text) => {
    const at = new Date(text);
    return end && dateOnly.test(text) ? new Date(at.getTime() + DAY_MS - 1) : at;
  });

export const accountEntriesQuery = z
  .strictObject({
    limit: z
      .string()
      // The pattern is the whole rule (1 to 200), so the OpenAPI document states it exactly.
      .check(matches(/^(?:[1-9]\d?|1\d\d|200)$/, fieldMessages.integerBetween(1, 200)))
      .transform(Number)
      .pipe(z.number().int().min(1).max(200))
      .optional(),
    cursor: z
      .string()
      .max(200)
      .refine((c) => decodeCursor(c) !== null, { params: fieldMessages.cursorNotIssued })
      .optional(),
    from: isoBound(false).optional(),
    to: isoBound(true).optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, {
    path: ['to'],
    params: fieldMessages.notBeforeFrom,
  });
export type AccountEntriesQuery = z.infer<typeof accountEntriesQuery>;

export const accountRecord = z.object({
  id: z.string(),
  currency,
  kind: z.enum(['main', 'sub']),
  name: z.string(),
  /** Spendable now: the sum of the account's entries. */
  available: z.number(),
  /** Incoming money not yet settled; the ledger has no such notion yet, so always 0. */
  pending: z.number(),
  createdAt: z.string(),
  /** Live money, or the sandbox's play money (test mode). */
  livemode: z.boolean(),
});
export type AccountRecord = z.infer<typeof accountRecord>;

export const accountList = z.object({ data: z.array(accountRecord) });

export const entryRecord = z.object({
  id: z.string(),
  accountId: z.string(),
  direction: z.enum(['credit', 'debit']),
  /** Signed: negative for a debit. */
  amount: z.number(),
  balanceAfter: z.number(),
  currency,
  reason: z.string(),
  transactionId: z.string().nullable(),
  createdAt: z.string(),
});
export type EntryRecord = z.infer<typeof entryRecord>;

export const entryPage = z.object({
  data: z.array(entryRecord),
  nextCursor: z.string().nullable(),
  /** The statement's mode: the mode of its account. */
  livemode: z.boolean(),
});
