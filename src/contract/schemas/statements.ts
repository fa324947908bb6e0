import { z } from 'zod';
import { pageCursor, pageLimit } from './common';
import { fieldMessages } from '../field-messages';
import { matches } from '../zod-messages';
import { periodOfAtMost } from './period';

// POST /v1/statements, its list and its reads (docs/statements.md).

/** The longest period one statement covers. */
export const STATEMENT_MAX_DAYS = 31;

const instant = z.iso.datetime({ offset: true });

export const createStatementRequest = z
  .strictObject({
    accountId: z.string().trim().min(1).max(100),
    /** Inclusive. */
    from: instant,
    /** Exclusive. */
    to: instant,
    format: z.enum(['csv', 'json']),
  })
  .superRefine(periodOfAtMost(STATEMENT_MAX_DAYS));
export type CreateStatementRequest = z.infer<typeof createStatementRequest>;

export const statementRecord = z.object({
  id: z.string().startsWith('st_'),
  status: z.enum(['pending', 'ready', 'failed']),
  accountId: z.string(),
  currency: z.string(),
  from: z.string(),
  to: z.string(),
  format: z.enum(['csv', 'json']),
  createdAt: z.string(),
  livemode: z.boolean(),
  /** Once ready: the entries, balances (major units) and the link to download it. */
  entryCount: z.number().int().nullable(),
  openingBalance: z.number().nullable(),
  closingBalance: z.number().nullable(),
  readyAt: z.string().nullable(),
  /** A link valid for a limited time, usable without credentials; a new one at every read. */
  download: z.object({ url: z.string(), expiresAt: z.string() }).nullable(),
});
export type StatementRecord = z.infer<typeof statementRecord>;

/** GET /v1/statements: the merchant's statements, newest first, any member's (one account's with `accountId`). */
export const listStatementsQuery = z.strictObject({
  accountId: z.string().trim().min(1).max(100).optional(),
  limit: pageLimit,
  cursor: pageCursor,
});
export const statementPage = z.object({ data: z.array(statementRecord), nextCursor: z.string().nullable() });

export const statementDownloadQuery = z.strictObject({
  expires: z.coerce.number().int().positive(),
  signature: z.string().check(matches(/^[0-9a-f]{64}$/, fieldMessages.linkSignature)),
});

/** One row of a statement, as the JSON format shows it (the CSV has the same columns). */
export const statementRow = z.object({
  entryId: z.string(),
  createdAt: z.string(),
  type: z.string(),
  direction: z.enum(['debit', 'credit']),
  /** Major units, signed: negative for a debit. */
  amount: z.number(),
  /** The fee of the transaction this entry belongs to (major units), 0 when none. */
  fee: z.number(),
  balanceAfter: z.number(),
  transactionReference: z.string().nullable(),
  operatorReference: z.string().nullable(),
  description: z.string(),
  metadata: z.record(z.string(), z.string()),
});
export type StatementRow = z.infer<typeof statementRow>;

export const statementDocument = z.object({
  statementId: z.string(),
  accountId: z.string(),
  currency: z.string(),
  from: z.string(),
  to: z.string(),
  openingBalance: z.number(),
  closingBalance: z.number(),
  entries: z.array(statementRow),
});
export type StatementDocument = z.infer<typeof statementDocument>;
