import type { Connection } from 'mongoose';
import type { Config } from '../config';
import type { Ledger } from '../ledger';
import { MerchantService } from '../merchants';
import type { TransactionStore } from '../persistence/transactions';
import { WorkflowStartLog } from '../persistence/workflow-starts';
import type { RecoveryDeps } from './activities';

/** The worker's recovery sweep dependencies, with the same payin timing the API starts payins with. */
export async function buildRecoveryDeps(opts: {
  mongo: Connection;
  config: Config;
  transactions: TransactionStore;
  ledger: Ledger;
}): Promise<RecoveryDeps> {
  const starts = WorkflowStartLog.on(opts.mongo);
  await starts.init();
  const merchants = MerchantService.on(opts.mongo);
  const { config } = opts;
  return {
    starts,
    transactions: opts.transactions,
    ledger: opts.ledger,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    payin: {
      payinExpiryMs: config.PAYIN_EXPIRY,
      sessionExpiryMs: config.SESSION_EXPIRY,
      correctionWindowMs: config.PAYIN_CORRECTION_WINDOW,
      partnerCheckIntervalMs: config.PAYIN_PARTNER_CHECK_INTERVAL,
      refundWindowMs: config.REFUND_WINDOW,
      // As the API (src/main/wiring.ts): the merchant's settings.refundWindowDays wins.
      refundWindowMsOf: async (merchantId) => {
        const days = (await merchants.getMerchant(merchantId))?.settings?.refundWindowDays;
        return typeof days === 'number' ? days * 86_400_000 : null;
      },
    },
    payoutExpiryMs: config.PAYOUT_EXPIRY,
    graceMs: config.RECOVERY_GRACE_PERIOD,
  };
}
