import { Counter } from 'prom-client';
import { metricsRegistry } from '../infra/metrics';
import type { TransactionStore } from '../persistence/transactions';
import type { HoleRepairResult } from '../persistence/read-chains';
import type { StartOutcome, WorkflowStartLog, WorkflowStartMarker } from '../persistence/workflow-starts';
import type { Transaction } from '../domain/transaction';

// The recovery sweep: a crash between storing a payin or payout and starting its workflow leaves a
// record nobody runs until the client retries with the same key. Its start marker stays behind
// (src/persistence/workflow-starts.ts); past a grace period (longer than any request takes) the sweep
// starts the workflow exactly as the API would have (src/services/transaction-workflows.ts): a payout
// still `pending` is debited first, a final transaction or a workflow that already runs just clears
// the marker. Idempotent: the start rejects a used workflow id, the debit has a fixed sourceRef.
// Run by a Temporal schedule (src/main/recovery-schedule.ts); docs/operations.md.

/** What became of a marker: a start outcome, `missing` (no record was ever stored), `error` (retried next time). */
export type SweepOutcome = StartOutcome | 'missing' | 'error';

/**
 * How the sweep starts a transaction's workflow: as the API would (src/services/transaction-workflows.ts,
 * handed in by the wiring; the sweep sits below the workflows and imports no start).
 */
export interface TransactionStarts {
  startPayin(tx: Transaction): Promise<StartOutcome>;
  startPayout(tx: Transaction): Promise<StartOutcome>;
}

export const recoverySweepMarkers = new Counter({
  name: 'payments_recovery_sweep_total',
  help: 'Start markers the recovery sweep resolved, by kind and outcome (started: a workflow that had never started was started)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

export interface SweepLog {
  warn(message: string, fields: Record<string, unknown>): void;
}

export interface RecoverySweepDeps {
  starts: WorkflowStartLog;
  transactions: TransactionStore;
  workflows: TransactionStarts;
  /** A marker younger than this belongs to a request that may still be running. */
  graceMs: number;
  /** Markers handled per run (oldest first); the next run takes the rest. */
  batchSize?: number;
  log?: SweepLog;
  /** Read chains whose holes (entries lost below a head) each run closes (src/persistence/read-chains.ts). */
  chains?: ChainRepair[];
}

export interface ChainRepair {
  chain: string;
  repair: () => Promise<HoleRepairResult>;
}

export interface RecoverySweepResult {
  examined: number;
  outcomes: Partial<Record<SweepOutcome, number>>;
  /** Read chain holes closed, by chain (only chains that had any). */
  holes?: Record<string, HoleRepairResult>;
}

export class RecoverySweep {
  constructor(private readonly deps: RecoverySweepDeps) {}

  async run(now = new Date()): Promise<RecoverySweepResult> {
    const cutoff = new Date(now.getTime() - this.deps.graceMs);
    const markers = await this.deps.starts.olderThan(cutoff, this.deps.batchSize ?? 100);
    const outcomes: RecoverySweepResult['outcomes'] = {};
    for (const marker of markers) {
      const outcome = await this.resolve(marker);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      recoverySweepMarkers.inc({ kind: marker.kind, outcome });
    }
    const holes = await this.repairChains();
    return { examined: markers.length, outcomes, ...(holes ? { holes } : {}) };
  }

  /** Each chain's noted holes; a chain that fails is retried next run, the others go on. */
  private async repairChains(): Promise<Record<string, HoleRepairResult> | undefined> {
    let holes: Record<string, HoleRepairResult> | undefined;
    for (const { chain, repair } of this.deps.chains ?? []) {
      try {
        const result = await repair();
        if (result.holes === 0) continue;
        (holes ??= {})[chain] = result;
        this.deps.log?.warn('recovery sweep: read chain entries were lost; their members are listed again', {
          chain,
          ...result,
        });
      } catch (err) {
        this.deps.log?.warn('recovery sweep: could not close read chain holes; retried next run', {
          chain,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return holes;
  }

  private async resolve(marker: WorkflowStartMarker): Promise<SweepOutcome> {
    // The workflow id names the merchant and its reference, never the customer: fine in a log line.
    const fields = { workflowId: marker._id, kind: marker.kind, markedAt: marker.createdAt.toISOString() };
    try {
      const tx = await this.deps.transactions.find(marker.merchantId, marker.kind, marker.reference);
      if (!tx) {
        // The crash came before the record was stored: nothing to run (a retry stores and starts it).
        await this.deps.starts.clear(marker._id);
        return 'missing';
      }
      // Its creation may have stopped before its lists were written (TransactionStore.insertOrGet).
      await this.deps.transactions.relist(tx);
      const outcome =
        tx.kind === 'payin'
          ? await this.deps.workflows.startPayin(tx)
          : await this.deps.workflows.startPayout(tx);
      if (outcome === 'started' || outcome === 'refused') {
        this.deps.log?.warn('recovery sweep: a transaction whose workflow never started was resumed', {
          ...fields,
          transactionId: tx.id,
          status: tx.status,
          outcome,
        });
      }
      return outcome;
    } catch (err) {
      // Left for the next run (the marker stays); the others are not held up by this one.
      this.deps.log?.warn('recovery sweep: could not resolve a start marker; retried next run', {
        ...fields,
        error: err instanceof Error ? err.message : String(err),
      });
      return 'error';
    }
  }
}
