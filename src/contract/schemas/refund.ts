import { z } from 'zod';
import type { MajorAmount } from '../../domain/money';
import { failureRecord, metadata, reference, sandboxScenario } from './common';

/** Endpoint 8: POST /v1/payin/{reference}/refund. Without `amount`, the whole remainder is refunded. */
export const refundRequest = z.strictObject({
  // Major units (decimals for USD/EUR payins); toMinor is the way to the ledger.
  amount: (z.number().positive().max(100_000_000) as z.ZodType<MajorAmount, number>).optional(),
  reason: z.string().trim().min(1).max(500),
  externalReference: reference,
  sandboxScenario: sandboxScenario.optional(),
  metadata: metadata.optional(),
});
export type RefundRequest = z.infer<typeof refundRequest>;

/** The refund record of the interface; `failure` is ours (null unless the operator refused). */
export const refundRecord = z.object({
  type: z.literal('refund'),
  reference: z.string().startsWith('rf_'),
  originalReference: z.string(),
  externalReference: z.string(),
  amount: z.number(),
  fee: z.number(),
  currency: z.string(),
  status: z.enum(['pending', 'processing', 'completed', 'failed', 'reversed']),
  reason: z.string(),
  refundType: z.enum(['full', 'partial']),
  customerMsisdn: z.string(),
  customerName: z.string(),
  createdAt: z.string(),
  /** Whether it was made with a live key (real money) or a test key (the sandbox). */
  livemode: z.boolean(),
  transaction: z.object({
    reference: z.string().startsWith('tr_'),
    status: z.enum(['pending', 'completed', 'failed']),
    processedAt: z.string().nullable(),
  }),
  failure: failureRecord.nullable(),
  /** The merchant's pairs given at creation; {} when none. */
  metadata: z.record(z.string(), z.string()),
});
export type RefundRecord = z.infer<typeof refundRecord>;
