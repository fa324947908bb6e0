// Reconciliation against the operators' books: import it from here (docs/reconciliation.md).
export { reconcileOperatorDay, type ReconcileInput, type ReconciliationDeps } from './reconcile';
export { ReconciliationReportStore, REPORTS_COLLECTION, type ReportSummary } from './report-store';
export { CorrectionLog, CORRECTIONS_COLLECTION } from './corrections';
export {
  AskRecordingGateway,
  OperatorAskIndex,
  ASKS_COLLECTION,
  ASK_DAYS_COLLECTION,
  type OperatorAsk,
} from './operator-asks';
export { eventNotifier, temporalProbe, type CorrectionNotifier, type WorkflowProbe } from './ports';
export * from './types';
export { buildReconciliationStores } from './stores';
export { previousUtcDay, shiftDay, utcDay } from '../domain/days';
