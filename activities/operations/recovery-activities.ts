import { Context, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Ledger } from '../../src/ledger';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { WorkflowStartLog } from '../../src/persistence/workflow-starts';
import type { PayinTiming } from '../../src/domain/payin-timing';
import {
  RecoverySweep,
  type ChainRepair,
  type RecoverySweepResult,
  type SweepLog,
  type TransactionStarts,
} from '../../src/recovery/sweep';

export type { RecoverySweepResult };

// The recovery sweep as an activity of the worker (workflows/operations/recovery-sweep.ts runs it on schedule).

/** What the sweep needs to start a transaction's workflow as the API would (src/main/wiring.ts). */
export interface RecoveryDeps {
  starts: WorkflowStartLog;
  transactions: TransactionStore;
  ledger: Ledger;
  taskQueue: string;
  payin: PayinTiming;
  payoutExpiryMs: number;
  /** RECOVERY_GRACE_PERIOD. */
  graceMs: number;
  /** Read chains whose lost entries the sweep lists again. */
  chains?: ChainRepair[];
  /**
   * Starts a transaction's workflow as the API would, with this client: the wiring builds it
   * (src/services/transaction-workflows.ts), since starting by workflow reference sits above the
   * workflows, and activities below them.
   */
  startsOf: (temporal: Client) => TransactionStarts;
}

export interface RecoveryActivityDeps {
  recovery: RecoveryDeps;
  /** Starts the dispatcher of each enabled endpoint without one (activities/webhooks/webhook-dispatch-activities.ts). */
  ensureDispatchers?: (temporal: Client) => Promise<number>;
}

/** Dispatchers are checked at a worker's first sweep, then hourly: a scan of the endpoints each time. */
const DISPATCHER_CHECK_MS = 60 * 60_000;
let dispatchersCheckedAt = Number.NEGATIVE_INFINITY;

/** The sweep over these dependencies, starting workflows with this client. */
export function recoverySweepOf(deps: RecoveryDeps, temporal: Client, sweepLog?: SweepLog): RecoverySweep {
  return new RecoverySweep({
    starts: deps.starts,
    transactions: deps.transactions,
    graceMs: deps.graceMs,
    ...(deps.chains ? { chains: deps.chains } : {}),
    ...(sweepLog ? { log: sweepLog } : {}),
    workflows: deps.startsOf(temporal),
  });
}

export function createRecoveryActivities({ recovery, ensureDispatchers }: RecoveryActivityDeps) {
  return {
    /** One pass: every start marker older than the grace period is resolved (src/recovery/sweep.ts). */
    async recoverUnstartedWorkflows(): Promise<RecoverySweepResult> {
      // The worker's own client: same connection and namespace as the workflows it starts.
      const client = Context.current().client;
      if (ensureDispatchers && Date.now() - dispatchersCheckedAt >= DISPATCHER_CHECK_MS) {
        dispatchersCheckedAt = Date.now();
        const started = await ensureDispatchers(client);
        if (started > 0) log.info('webhook dispatchers started for endpoints without one', { started });
      }
      return recoverySweepOf(recovery, client, log).run();
    },
  };
}
