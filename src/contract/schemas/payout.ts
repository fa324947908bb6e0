import { z } from 'zod';
import {
  country,
  customerName,
  failureRecord,
  metadata,
  msisdn,
  provider,
  reference,
  sandboxScenario,
  wholeAmount,
} from './common';

// Endpoints 4 and 6. The interface does not say which direct-payout fields are required: the
// beneficiary, the amount and the country are (nothing can be paid without them); provider is
// optional everywhere and predicted from the number's prefix when absent (docs/payouts.md).

/** Endpoint 4: POST /v1/direct/payout. */
export const directPayoutRequest = z.strictObject({
  reference,
  sandboxScenario: sandboxScenario.optional(),
  customerName: customerName.optional(),
  payout: z.strictObject({
    amount: wholeAmount,
    msisdn,
    provider: provider.optional(),
    country,
  }),
  metadata: metadata.optional(),
});
export type DirectPayoutRequest = z.infer<typeof directPayoutRequest>;

/** Endpoint 6, shape A (flat): debits the merchant's main account of the country's currency. */
export const standardPayoutRequest = z.strictObject({
  reference,
  sandboxScenario: sandboxScenario.optional(),
  amount: wholeAmount,
  msisdn,
  country,
  customerName: customerName.optional(),
  provider: provider.optional(),
  metadata: metadata.optional(),
});

/** Endpoint 6, shape B: debits the named account (main or sub-account, `acc_…`). */
export const accountPayoutRequest = z.strictObject({
  reference,
  sandboxScenario: sandboxScenario.optional(),
  accountId: z.string().trim().min(1).max(100),
  amount: wholeAmount,
  msisdn,
  country,
  customerName,
  provider: provider.optional(),
  metadata: metadata.optional(),
});

export type AccountPayoutRequest = z.infer<typeof accountPayoutRequest>;
export type StandardPayoutRequest = z.infer<typeof standardPayoutRequest>;

/** Decimal text with two decimals ("1000.00"), as the interface shows the transaction object. */
const decimalText = z.string().regex(/^-?\d+\.\d{2}$/);

/** The alternative payout record (shape B), as created and as read by endpoint 7. */
export const accountPayoutRecord = z.object({
  type: z.literal('payout'),
  fee: z.number(),
  reference: z.string().startsWith('mtr_'),
  phoneNumber: z.string(),
  customerName: z.string(),
  amount: z.number(),
  chargedAmount: z.number(),
  status: z.enum(['pending', 'processing', 'processed', 'completed', 'failed', 'reversed', 'expired']),
  currency: z.string(),
  customerReference: z.string(),
  confirmationRequired: z.boolean(),
  confirmationStatus: z.enum(['none', 'pending', 'accepted', 'declined']),
  transaction: z.union([
    z.strictObject({}),
    z.object({
      reference: z.string(),
      status: z.enum(['completed', 'failed', 'pending']),
      processedAt: z.string(),
      phoneNumber: z.string(),
      amount: decimalText,
      fees: decimalText,
      chargedAmount: decimalText,
      currency: z.string(),
    }),
  ]),
  createdAt: z.string(),
  /** Whether it was made with a live key (real money) or a test key (the sandbox). */
  livemode: z.boolean(),
  failure: failureRecord.nullable(),
  /** The merchant's pairs given at creation; {} when none. */
  metadata: z.record(z.string(), z.string()),
});
export type AccountPayoutRecord = z.infer<typeof accountPayoutRecord>;
