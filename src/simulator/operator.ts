import { currencyByCountry, type Country, type OperatorCode } from '../domain/operators';
import type { CallbackKind, OperatorStatementBody, OperatorStatusBody } from '../operators/wire';
import { Books, type SimTransaction } from './books';
import type { CallbackSender } from './callbacks';

// What the sandbox operator does with its books: admits requests (idempotent by our id), settles
// them after a delay as their sandboxScenario says, cancels, and draws a statement per day.

export type Failure = { code: string; message: string };

export const scenarioFailures: Record<CallbackKind, Failure> = {
  collection: { code: 'PAYER_DECLINED', message: 'The customer declined the payment' },
  disbursement: { code: 'PAYEE_REJECTED', message: 'The beneficiary account cannot receive this transfer' },
  refund: { code: 'REFUND_REJECTED', message: 'The operator refused the reversal' },
};
const operatorTimeout: Failure = {
  code: 'OPERATOR_TIMEOUT',
  message: 'The operator did not confirm the debit in time',
};
export const cancelled: Failure = { code: 'CANCELLED', message: 'Cancelled at the request of the partner' };

export type Draft = Omit<
  SimTransaction,
  | 'requests'
  | 'partnerChecks'
  | 'partnerCollected'
  | 'createdAt'
  | 'outcome'
  | 'failure'
  | 'fee'
  | 'tombstone'
  | 'finalizedAt'
>;

export function view(tx: SimTransaction): OperatorStatusBody {
  return {
    id: tx.id,
    outcome: tx.outcome,
    operatorReference: tx.operatorReference,
    failure: tx.failure,
    paymentUrl: tx.paymentUrl,
    ussdCode: tx.ussdCode,
  };
}

export class SandboxOperator {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    readonly books: Books,
    private readonly callbacks: CallbackSender,
    private readonly opts: { settleDelayMs: number; partnerChecksBeforeCollected: number; now: () => Date },
  ) {}

  private now(): string {
    return this.opts.now().toISOString();
  }

  private later(ms: number, fn: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /** After a restart: what was pending when the simulator stopped is settled again, as it would have been. */
  resumePending(): void {
    for (const tx of this.books.all())
      if (tx.outcome === 'pending') this.later(this.opts.settleDelayMs, () => this.settle(tx));
  }

  /** Records a new transaction (or returns the known one, a tombstone included) and schedules its outcome. */
  admit(draft: Draft, immediateFailure: Failure | null): { tx: SimTransaction; created: boolean } {
    const known = this.books.get(draft.kind, draft.id);
    if (known) {
      known.requests++;
      this.books.save(known);
      return { tx: known, created: false };
    }
    const now = this.now();
    const tx: SimTransaction = {
      ...draft,
      fee: 0,
      outcome: immediateFailure ? 'failed' : 'pending',
      failure: immediateFailure,
      requests: 1,
      partnerChecks: 0,
      partnerCollected: false,
      tombstone: false,
      createdAt: now,
      finalizedAt: immediateFailure ? now : null,
    };
    this.books.save(tx);
    if (!immediateFailure) this.later(this.opts.settleDelayMs, () => this.settle(tx));
    return { tx, created: true };
  }

  /** The scheduled outcome of a pending transaction. */
  private settle(tx: SimTransaction): void {
    if (tx.outcome !== 'pending' || this.books.get(tx.kind, tx.id) !== tx) return;
    if (
      tx.kind === 'collection' &&
      (tx.magic === 'partner-collects-on-signal' || tx.magic === 'partner-collects-after-checks')
    ) {
      this.finalize(tx, 'failed', operatorTimeout);
    } else if (tx.scenario === 'pending') {
      return; // stays pending for ever, so the service's expiry is what ends it
    } else if (tx.scenario === 'failed') {
      this.finalize(tx, 'failed', scenarioFailures[tx.kind]);
    } else {
      this.finalize(tx, 'completed', null);
    }
  }

  /** Sets a final outcome, records it, and calls the service back. */
  finalize(tx: SimTransaction, outcome: 'completed' | 'failed', failure: Failure | null): void {
    tx.outcome = outcome;
    tx.failure = outcome === 'failed' ? failure : null;
    tx.finalizedAt = this.now();
    this.books.save(tx);
    if (tx.magic !== 'no-callback') void this.callbacks.deliver(tx);
  }

  /**
   * Cancels: a pending transaction fails CANCELLED (a refund's reservation is freed with it); a final
   * one is answered as it is (too late); an unknown id gets a tombstone, so a request with it arriving
   * later is answered cancelled and never executed.
   */
  cancel(kind: CallbackKind, id: string, operator: OperatorCode, country: Country): SimTransaction {
    const known = this.books.get(kind, id);
    if (known) {
      if (known.outcome === 'pending') this.finalize(known, 'failed', cancelled);
      return known;
    }
    const now = this.now();
    const tombstone: SimTransaction = {
      kind,
      id,
      operator,
      country,
      msisdn: '',
      amount: 0,
      currency: currencyByCountry[country],
      fee: 0,
      scenario: 'completed',
      magic: null,
      outcome: 'failed',
      failure: cancelled,
      operatorReference: '',
      paymentUrl: null,
      ussdCode: null,
      callbackUrl: null,
      originalId: null,
      requests: 0,
      partnerChecks: 0,
      partnerCollected: false,
      tombstone: true,
      createdAt: now,
      finalizedAt: now,
    };
    this.books.save(tombstone);
    return tombstone;
  }

  /** The partner side of a collection: were the customer's funds taken after all? */
  partnerCheck(tx: SimTransaction): boolean {
    tx.partnerChecks++;
    if (
      tx.magic === 'partner-collects-after-checks' &&
      tx.partnerChecks >= this.opts.partnerChecksBeforeCollected &&
      !tx.partnerCollected
    )
      this.markCollected(tx);
    else this.books.save(tx);
    return collected(tx);
  }

  markCollected(tx: SimTransaction): void {
    if (tx.tombstone || tx.failure?.code === cancelled.code) return;
    tx.partnerCollected = true;
    tx.finalizedAt = this.now();
    this.books.save(tx);
  }

  /** The operator's books for one UTC day: what it created that day, as it stands now. */
  statement(operator: OperatorCode, date: string): OperatorStatementBody {
    const entries = [...this.books.all()]
      .filter((tx) => tx.operator === operator && !tx.tombstone && tx.createdAt.slice(0, 10) === date)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((tx) => {
        const status = collected(tx) ? 'completed' : tx.outcome;
        return {
          kind: tx.kind,
          id: tx.id,
          originalId: tx.originalId,
          operatorReference: tx.operatorReference,
          country: tx.country,
          amount: tx.amount,
          currency: tx.currency as OperatorStatementBody['entries'][number]['currency'],
          fee: tx.fee,
          status,
          failureCode: status === 'failed' ? (tx.failure?.code ?? null) : null,
          createdAt: tx.createdAt,
          finalizedAt: status === 'pending' ? null : tx.finalizedAt,
        };
      });
    return { operator, date, generatedAt: this.now(), entries };
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

/** A collection the partner found the funds of counts as completed, whatever its first answer. */
export function collected(tx: SimTransaction): boolean {
  return tx.outcome === 'completed' || (tx.kind === 'collection' && tx.partnerCollected);
}
