// The durations a payin's workflow is started with, the same from the API and the recovery sweep
// (src/services/transaction-workflows.ts).
export interface PayinTiming {
  payinExpiryMs: number;
  sessionExpiryMs: number;
  correctionWindowMs: number;
  partnerCheckIntervalMs: number;
  refundWindowMs: number;
  /** The merchant's own refund window, fixed into each payin at its start; null: refundWindowMs. */
  refundWindowMsOf?: ((merchantId: string) => Promise<number | null>) | undefined;
  /** OTP_LIFETIME: the workflow deletes a stored OTP this long after its start. Unset: 5 min. */
  otpLifetimeMs?: number | undefined;
  /** PAYIN_LOCAL_ACTIVITIES: false runs a payin's short steps as regular activities only. Unset: true. */
  localActivities?: boolean | undefined;
}
