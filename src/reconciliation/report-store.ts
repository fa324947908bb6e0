import type { Connection } from 'mongoose';
import type { OperatorCode } from '../domain/operators';
import type { ReconciliationReport } from './types';

// Stored reconciliation reports, one document per run: `_id` `<operator>:<date>:<run>`. The run
// number is claimed by the insert (unique `_id`), so two runs of one day at once get 1 and 2. Runs
// are few (four operators, a run a day, and what ops start), so listing them reads the collection.

export const REPORTS_COLLECTION = 'reconciliation_reports';

type ReportDoc = ReconciliationReport & { _id: string };

export type ReportSummary = Omit<ReconciliationReport, 'findings'> & {
  /** Finding count per class. */
  classes: Record<string, number>;
};

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

export class ReconciliationReportStore {
  constructor(private readonly conn: Connection) {}

  static on(conn: Connection): ReconciliationReportStore {
    return new ReconciliationReportStore(conn);
  }

  private get reports() {
    return this.conn.collection<ReportDoc>(REPORTS_COLLECTION);
  }

  /** Stores a run under the next free run number of its operator and day. */
  async save(report: Omit<ReconciliationReport, 'id' | 'run'>): Promise<ReconciliationReport> {
    for (let run = 1; ; run++) {
      const id = `${report.operator}:${report.date}:${run}`;
      if (await this.reports.findOne({ _id: id }, { projection: { _id: 1 } })) continue;
      const stored: ReconciliationReport = { ...report, id, run };
      try {
        await this.reports.insertOne({ _id: id, ...stored });
        return stored;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // another run took this number: try the next
      }
    }
  }

  async get(id: string): Promise<ReconciliationReport | null> {
    return this.reports.findOne({ _id: id }, { projection: { _id: 0 } });
  }

  /** Newest first. */
  async list(
    filter: { operator?: OperatorCode; date?: string; limit?: number } = {},
  ): Promise<ReportSummary[]> {
    const docs = await this.reports
      .find(
        {
          ...(filter.operator ? { operator: filter.operator } : {}),
          ...(filter.date ? { date: filter.date } : {}),
        },
        { projection: { _id: 0 } },
      )
      .sort({ startedAt: -1, id: -1 })
      .limit(filter.limit ?? 50)
      .toArray();
    return docs.map(({ findings, ...rest }) => ({
      ...rest,
      classes: findings.reduce<Record<string, number>>(
        (acc, f) => ({ ...acc, [f.class]: (acc[f.class] ?? 0) + 1 }),
        {},
      ),
    }));
  }
}
