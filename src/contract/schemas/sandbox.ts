import { z } from 'zod';

// The test helpers (POST /v1/sandbox/...): test mode only, they play the operator's part on the
// merchant's own test transactions, as Stripe's test helpers do (docs/sandbox.md).

/** Failures a payin can be settled with; the first is the default. */
export const sandboxPayinFailureCodes = ['PAYER_DECLINED', 'INSUFFICIENT_FUNDS', 'OPERATOR_TIMEOUT'] as const;

const completed = z.strictObject({ outcome: z.literal('completed') });

/** POST /v1/sandbox/payins/{reference}/settle. */
export const sandboxPayinSettleRequest = z.discriminatedUnion('outcome', [
  completed,
  z.strictObject({
    outcome: z.literal('failed'),
    failureCode: z
      .enum(sandboxPayinFailureCodes)
      .optional()
      .meta({
        description:
          'PAYER_DECLINED (default) and INSUFFICIENT_FUNDS: the customer was not debited. OPERATOR_TIMEOUT: ' +
          'the customer may have been debited, so the payin waits for the partner check (see `collected`).',
      }),
  }),
]);
export type SandboxPayinSettleRequest = z.infer<typeof sandboxPayinSettleRequest>;

/** POST /v1/sandbox/payouts/{reference}/settle and /v1/sandbox/refunds/{reference}/settle. */
export const sandboxSettleRequest = z.discriminatedUnion('outcome', [
  completed,
  z.strictObject({ outcome: z.literal('failed') }),
]);
export type SandboxSettleRequest = z.infer<typeof sandboxSettleRequest>;

/** POST /v1/sandbox/payins/{reference}/collected: nothing to say, so `{}` (or no body). */
export const sandboxCollectedRequest = z.strictObject({});
