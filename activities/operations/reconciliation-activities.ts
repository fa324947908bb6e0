import { Context } from '@temporalio/activity';
import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';
import type { OperatorGateway } from '../../src/operators/gateway';
import type { Ledger } from '../../src/ledger';
// From the modules themselves, not the folder's index: the index also exports the schedule, which
// starts the reconciliation workflow, which imports these activities' types.
import { reconcileOperatorDay, type ReconcileInput } from '../../src/reconciliation/reconcile';
import { temporalProbe } from '../../src/reconciliation/ports';
import type { CorrectionLog } from '../../src/reconciliation/corrections';
import type { OperatorAsk, OperatorAskIndex } from '../../src/reconciliation/operator-asks';
import type { ReconciliationReportStore } from '../../src/reconciliation/report-store';
import type { ReportTotals } from '../../src/reconciliation/types';
import type { RecoveryDeps } from './recovery-activities';

export interface ReconciliationActivityDeps extends EventActivityDeps {
  operators: OperatorGateway;
  ledger: Ledger;
  reconciliation: {
    asks: OperatorAskIndex;
    reports: ReconciliationReportStore;
    corrections: CorrectionLog;
  };
  /** The payin timing the API starts payins with: a corrected payin gets the same refund window. */
  recovery: Pick<RecoveryDeps, 'payin'>;
}

/** What the workflow keeps of a run (the report itself is stored; history stays small). */
export interface ReconcileDaySummary {
  id: string;
  operator: string;
  date: string;
  totals: ReportTotals;
  needsPerson: boolean;
}

/** Reconciliation (docs/reconciliation.md). Idempotent: its one correction applies once, and a rerun stores a new report. */
export function createReconciliationActivities(deps: ReconciliationActivityDeps) {
  const events = createEventActivities(deps);
  return {
    /** One operator's statement of one day against our records and ledger; stores and answers the report. */
    async reconcileOperatorDay(input: ReconcileInput): Promise<ReconcileDaySummary> {
      const ctx = Context.current();
      const report = await reconcileOperatorDay(
        {
          ...deps,
          ...deps.reconciliation,
          workflows: temporalProbe(() => Promise.resolve(ctx.client)),
          refundWindowMs: async (merchantId) =>
            (await deps.recovery.payin.refundWindowMsOf?.(merchantId)) ?? deps.recovery.payin.refundWindowMs,
          // As the payin workflow sends it: the event, and its first webhook attempts right here.
          notify: {
            payinCorrected: async (id) => {
              await events.emitTransactionEvent(id, 'payin.corrected');
            },
          },
        },
        input,
      );
      return {
        id: report.id,
        operator: report.operator,
        date: report.date,
        totals: report.totals,
        needsPerson: report.needsPerson,
      };
    },

    /** Lists an id asked of an operator today (the gateway does it for every request; see wiring). */
    async recordOperatorAsk(ask: OperatorAsk): Promise<void> {
      await deps.reconciliation.asks.record(ask);
    },
  };
}
