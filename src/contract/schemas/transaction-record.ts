import { z } from 'zod';
import { failureRecord } from './common';
import { refundRecord } from './refund';

// The transaction record of the interface (payin or payout), as returned by creations and reads.

export const transactionRecord = z.object({
  id: z.string().startsWith('pr_'),
  type: z.enum(['payin', 'payout']),
  reference: z.string(),
  status: z.string(),
  confirmationRequired: z.boolean(),
  confirmationStatus: z.enum(['none', 'pending', 'accepted', 'declined']),
  paymentUrl: z.string().nullable(),
  customer: z.object({ name: z.string(), phoneNumber: z.string() }),
  mobileMoney: z.object({ provider: z.object({ name: z.string() }) }).optional(),
  isDirect: z.boolean(),
  payFee: z.boolean(),
  createdAt: z.string(),
  /** Whether it was made with a live key (real money) or a test key (the sandbox). */
  livemode: z.boolean(),
  amount: z.number(),
  fee: z.number(),
  chargedAmount: z.number(),
  currency: z.string(),
  failure: failureRecord.nullable(),
  /** Direct payins with MTN CI (*133#) or MOOV CI (*155#): what the customer dials when no prompt appears. */
  ussdCode: z.string().optional(),
  /** Payin status read: the amount refunded so far (completed refunds) and every refund, oldest first. */
  refundedAmount: z.number().optional(),
  refunds: z.array(refundRecord).optional(),
  /** The merchant's pairs given at creation; {} when none. */
  metadata: z.record(z.string(), z.string()),
  /** A payin opened from a payment link's page: the link (pl_…). Absent otherwise. */
  paymentLinkId: z.string().optional(),
});
export type TransactionRecord = z.infer<typeof transactionRecord>;
