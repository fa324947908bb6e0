import type { Ledger } from '../src/ledger';
import type { TransactionStore } from '../src/persistence/transactions';
import type { RefundStore } from '../src/persistence/refunds';
import type { StatementStore } from '../src/statements/store';
import { generateStatement } from '../src/statements/generate';
import { toStatementRecord } from '../src/contract/records/statement-record';
import { missingRecord } from '../src/temporal/permanent-errors';
import { createEventActivities, type EventActivityDeps } from './event-activities';

export interface StatementActivityDeps extends EventActivityDeps {
  statements: StatementStore;
  ledger: Ledger;
  transactions: TransactionStore;
  refunds: RefundStore;
}

/** A statement's generation and its event. Each is idempotent: a retry writes the same again. */
export function createStatementActivities(deps: StatementActivityDeps) {
  const { recordEvent } = createEventActivities(deps);
  const stored = async (id: string) => {
    const st = await deps.statements.findById(id);
    if (!st) throw missingRecord(`no statement ${id}`);
    return st;
  };
  return {
    /** Generates the content, checks it adds up, stores it in chunks, marks the statement ready. */
    async generateStatement(statementId: string): Promise<{ entryCount: number }> {
      const st = await stored(statementId);
      if (st.status === 'ready') return { entryCount: st.entryCount ?? 0 };
      const made = await generateStatement(deps, st);
      const chunks = await deps.statements.putContent(st.id, made.content);
      await deps.statements.markReady(st.id, {
        openingBalance: made.opening,
        closingBalance: made.closing,
        entryCount: made.count,
        chunks,
      });
      return { entryCount: made.count };
    },

    async failStatement(statementId: string): Promise<void> {
      await deps.statements.markFailed(statementId, 'generation failed');
    },

    /** `statement.ready`: its data is the statement's record, without a download link (links expire). */
    async publishStatementReady(statementId: string): Promise<{ eventId: string }> {
      const st = await stored(statementId);
      return recordEvent({
        merchantId: st.merchantId,
        type: 'statement.ready',
        subjectId: st.id,
        reference: st.id,
        data: toStatementRecord(st, null),
        emissionKey: `${st.id}:statement.ready`,
      });
    },
  };
}
