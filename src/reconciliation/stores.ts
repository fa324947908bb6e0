import type { Connection } from 'mongoose';
import { CorrectionLog } from './corrections';
import { OperatorAskIndex } from './operator-asks';
import { ReconciliationReportStore } from './report-store';

/** The stores of reconciliation on one connection (all keyed by `_id`: no index to create). */
export function buildReconciliationStores(mongo: Connection) {
  return {
    asks: OperatorAskIndex.on(mongo),
    reports: ReconciliationReportStore.on(mongo),
    corrections: CorrectionLog.on(mongo),
  };
}
