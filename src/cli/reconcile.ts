import { Command } from 'commander';
import { z } from 'zod';
import { operatorCodes, type OperatorCode } from '../domain/operators';
import { Ledger } from '../ledger';
import { MerchantService } from '../merchants';
import { RefundStore } from '../persistence/refunds';
import { TransactionStore } from '../persistence/transactions';
import type { Finding, ReconciliationReport, ReportSummary } from '../reconciliation';
import type { CliContext } from './context';

// `payments reconcile`: the reconciliation the daily schedule runs, for one operator and day, on
// the configured database and operator endpoint; or the list of stored reports. Exit code 2 when a
// finding needs a person (docs/reconciliation.md).

export const NEEDS_PERSON_EXIT_CODE = 2;

interface Helpers {
  print(json: boolean | undefined, value: unknown, human: () => string): void;
  table(head: string[], rows: string[][]): string;
  fail(message: string): Error;
}

interface ReconcileOptions {
  operator?: string;
  date?: string;
  list?: boolean;
  limit: string;
  json?: boolean;
}

export function reconcileCommand(ctx: CliContext, h: Helpers): Command {
  return new Command('reconcile')
    .description(
      "Compare an operator's statement of a UTC day with our transactions and ledger: store the report, print it, " +
        `exit ${NEEDS_PERSON_EXIT_CODE} when something needs a person. Or list stored reports.`,
    )
    .option('--operator <CODE>', `one of ${operatorCodes.join(', ')}`)
    .option('--date <YYYY-MM-DD>', 'the UTC day to reconcile')
    .option('--list', 'list stored reports, newest first (with --operator: of that operator)')
    .option('--limit <n>', 'how many reports --list shows', '20')
    .option('--json', 'print the report (or the list) as JSON')
    .action(async (opts: ReconcileOptions) => {
      const operator = opts.operator === undefined ? undefined : checkOperator(opts.operator, h);
      const conn = await ctx.mongo();
      // Loaded on use: reconciliation brings Temporal's client, which the other commands never need.
      /* eslint-disable @typescript-eslint/no-require-imports -- loaded on use (tsx/cjs has no import() of .ts) */
      const { buildReconciliationStores, eventNotifier, reconcileOperatorDay, temporalProbe } =
        require('../reconciliation') as typeof import('../reconciliation');
      const { HttpOperatorGateway } =
        require('../operators/http-gateway') as typeof import('../operators/http-gateway');
      /* eslint-enable @typescript-eslint/no-require-imports */
      const stores = buildReconciliationStores(conn);
      if (opts.list) {
        const limit = z.coerce.number().int().min(1).max(1000).safeParse(opts.limit);
        if (!limit.success) throw h.fail('--limit must be a whole number from 1 to 1000');
        const reports = await stores.reports.list({ ...(operator ? { operator } : {}), limit: limit.data });
        h.print(opts.json, reports, () => listTable(reports, h));
        return;
      }
      if (!operator || opts.date === undefined)
        throw h.fail('reconcile needs --operator and --date (or --list)');
      if (!z.iso.date().safeParse(opts.date).success) throw h.fail(`not a day YYYY-MM-DD: "${opts.date}"`);
      const config = ctx.config;
      if (!config || !ctx.temporal) throw h.fail('reconcile needs the service configuration and Temporal');
      const temporal = () => ctx.temporal!();
      const transactions = TransactionStore.on(conn);
      const refunds = RefundStore.on(conn);
      const ledger = Ledger.on(conn);
      await ledger.init();
      const merchants = MerchantService.on(conn);
      const report = await reconcileOperatorDay(
        {
          // The operator endpoint the worker uses (the embedded simulator unless OPERATOR_BASE_URL is set).
          operators: new HttpOperatorGateway({
            baseUrl: config.OPERATOR_BASE_URL ?? `http://127.0.0.1:${config.EMBEDDED_SIMULATOR_PORT}`,
            timeoutMs: config.OPERATOR_TIMEOUT,
          }),
          transactions,
          refunds,
          ledger,
          ...stores,
          workflows: temporalProbe(temporal),
          // As the worker's: the merchant's own window (settings.refundWindowDays), else REFUND_WINDOW.
          refundWindowMs: async (merchantId) => {
            const days = (await merchants.settingsOf(merchantId))?.refundWindowDays;
            return typeof days === 'number' ? days * 86_400_000 : config.REFUND_WINDOW;
          },
          notify: eventNotifier({ transactions, refunds, temporal, taskQueue: config.TEMPORAL_TASK_QUEUE }),
        },
        { operator, date: opts.date, trigger: 'cli' },
      );
      h.print(opts.json, report, () => renderReport(report, h));
      if (report.needsPerson) ctx.setExitCode?.(NEEDS_PERSON_EXIT_CODE);
    });
}

function checkOperator(text: string, h: Helpers): OperatorCode {
  const code = operatorCodes.find((c) => c === text.trim().toUpperCase());
  if (!code) throw h.fail(`unknown operator "${text}"; one of ${operatorCodes.join(', ')}`);
  return code;
}

export function renderReport(r: ReconciliationReport, h: Pick<Helpers, 'table'>): string {
  const t = r.totals;
  const lines = [
    `Reconciliation of ${r.operator} for ${r.date}: report ${r.id} (${r.trigger}).`,
    `  statement  ${t.statement} entries (generated ${r.statementGeneratedAt}); we asked ${t.asked} ids that day`,
    `  matched    ${t.matched} (${t.pending} pending on both sides)`,
    `  findings   ${t.findings}: ${t.corrected} corrected, ${t.inProgress} in progress, ${t.needsPerson} need a person`,
  ];
  if (r.findings.length === 0) return [...lines, '', 'Nothing to reconcile: both sides agree.'].join('\n');
  lines.push(
    '',
    h.table(
      ['CLASS', 'KIND', 'ID', 'ACTION', 'OPERATOR', 'OURS'],
      r.findings.map((f) => [f.class, f.kind, f.id, f.action, theirs(f), ours(f)]),
    ),
    '',
    ...r.findings.map((f) => `${f.id}: ${f.detail}`),
    '',
    r.needsPerson
      ? `${t.needsPerson} finding(s) need a person: docs/reconciliation.md says how to resolve each class.`
      : 'Nothing needs a person.',
  );
  return lines.join('\n');
}

const theirs = (f: Finding) =>
  f.operator ? `${f.operator.status} ${f.operator.amount} ${f.operator.currency}` : 'not listed';
const ours = (f: Finding) => (f.ours ? `${f.ours.status} ${f.ours.amount} ${f.ours.currency}` : 'unknown');

function listTable(reports: ReportSummary[], h: Pick<Helpers, 'table'>): string {
  if (reports.length === 0) return 'No reconciliation reports.';
  return h.table(
    ['REPORT', 'TRIGGER', 'STARTED', 'ENTRIES', 'FINDINGS', 'CORRECTED', 'NEEDS PERSON'],
    reports.map((r) => [
      r.id,
      r.trigger,
      r.startedAt,
      String(r.totals.statement),
      String(r.totals.findings),
      String(r.totals.corrected),
      r.needsPerson ? `yes (${r.totals.needsPerson})` : 'no',
    ]),
  );
}
