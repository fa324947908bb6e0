import { randomBytes } from 'node:crypto';
import type { Ledger } from '../../src/ledger';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { RefundStore } from '../../src/persistence/refunds';
import type { StatementStore } from '../../src/statements/store';
import { generateStatement } from '../../src/statements/generate';
import { toStatementRecord } from '../../src/contract/records/statement-record';
import { missingRecord } from '../../src/temporal/permanent-errors';
import { createEventActivities, type EventActivityDeps } from '../shared/event-activities';

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
    /**
     * Generates the content, checks it adds up, stores it in chunks of its own generation, then
     * proposes it: the first generation to end the statement is its content (another attempt
     * running at once may have read other entries), a later one removes its chunks.
     */
    async generateStatement(statementId: string): Promise<{ entryCount: number }> {
      const st = await stored(statementId);
      if (st.status !== 'pending') return { entryCount: st.entryCount ?? 0 };
      const made = await generateStatement(deps, st);
      const generation = randomBytes(6).toString('hex');
      const chunks = await deps.statements.putContent(st.id, made.content, generation);
      const decided = await deps.statements.decide(st.id, {
        status: 'ready',
        generation,
        readyAt: new Date(),
        openingBalance: made.opening,
        closingBalance: made.closing,
        entryCount: made.count,
        chunks,
      });
      if (decided.status !== 'ready' || decided.generation !== generation)
        await deps.statements.discardContent(st.id, generation, chunks);
      return { entryCount: decided.status === 'ready' ? (decided.entryCount ?? 0) : 0 };
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
