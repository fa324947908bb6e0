import { setTimeout as sleep } from 'node:timers/promises';
import { ApiProblem, type ProblemCode } from '../contract/problems';
import { fieldMessages, problemAt } from '../contract/field-messages';
import type {
  SandboxPayinSettleRequest,
  SandboxRouteControlRequest,
  SandboxSettleRequest,
} from '../contract/schemas/sandbox';
import { modeOfScope } from '../domain/modes';
import type { Refund } from '../domain/refund';
import type { Transaction } from '../domain/transaction';
import type { OperatorKind } from '../operators/gateway';
import type { RouteControlInForce, SandboxControls } from '../operators/connectors/simulator-controls';
import { isFinal } from '../domain/final-status';

// The test helpers (POST /v1/sandbox/...): the sandbox simulator's controls, offered on the
// authenticated API for the merchant's own test transactions. A transaction is settled at the
// operator (the simulator), which calls us back as a real operator would: the helper never writes
// our records itself, so a test drives the very path live money takes.
// docs/decisions/sandbox/test-helpers-on-the-api.md says why a helper waits for the operator request.

export interface SandboxHelperDeps {
  transactions: {
    find(merchantId: string, kind: Transaction['kind'], reference: string): Promise<Transaction | null>;
    findById(id: string): Promise<Transaction | null>;
  };
  refunds: {
    find(merchantId: string, id: string): Promise<Refund | null>;
    findById(id: string): Promise<Refund | null>;
  };
  /** The test-mode operator's controls (the simulator at OPERATOR_BASE_URL). */
  controls: SandboxControls;
  /** How long a helper waits for the request to reach the operator (default 5 s). */
  arrivalWaitMs?: number;
  /** How long a settle waits for our record to follow the operator's callback (default 3 s). */
  followWaitMs?: number;
  pollMs?: number;
}

/** Seconds a client waits before retrying a helper whose transaction is not at the operator yet. */
const RETRY_AFTER_SECONDS = 1;

const failureMessages: Record<string, string> = {
  PAYER_DECLINED: 'The customer declined the payment',
  INSUFFICIENT_FUNDS: "The customer's balance does not cover the payment",
  OPERATOR_TIMEOUT: 'The operator did not confirm the debit in time',
};

/** What a helper needs to know of the transaction it acts on, read again while it waits. */
interface Subject<T> {
  kind: OperatorKind;
  /** Our id: the operator's idempotency key, under which the simulator files it. */
  id: string;
  load: () => Promise<T | null>;
  final: (record: T) => boolean;
  /** A reason the request cannot reach the operator by waiting (a session nobody confirmed). */
  blocked?: (record: T) => ApiProblem | null;
}

const notYet = (detail?: ApiProblem['extra']['detail']) =>
  new ApiProblem('NOT_AT_OPERATOR_YET', {
    ...(detail ? { detail } : {}),
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });

/** A session's payin reaches the operator only once its customer confirms on the checkout page. */
const awaitingCustomer = (tx: Transaction): ApiProblem | null =>
  tx.kind === 'payin' &&
  tx.flow === 'session' &&
  tx.confirmationStatus !== 'accepted' &&
  !isFinal(tx.kind, tx.status)
    ? notYet({
        en: 'The customer has not confirmed this payment session on its checkout page yet: nothing was sent to the operator. Confirm it first (POST /checkout/{id}/confirm), then settle.',
        fr: "Le client n'a pas encore confirmé cette session de paiement sur sa page de paiement : rien n'a été envoyé à l'opérateur. Confirmez-la d'abord (POST /checkout/{id}/confirm), puis réglez-la.",
      })
    : null;

export class SandboxHelpers {
  private readonly arrivalWaitMs: number;
  private readonly followWaitMs: number;
  private readonly pollMs: number;

  constructor(private readonly deps: SandboxHelperDeps) {
    this.arrivalWaitMs = deps.arrivalWaitMs ?? 5_000;
    this.followWaitMs = deps.followWaitMs ?? 3_000;
    this.pollMs = deps.pollMs ?? 100;
  }

  async settlePayin(scope: string, reference: string, body: SandboxPayinSettleRequest): Promise<Transaction> {
    const subject = await this.transaction(scope, 'payin', reference, 'PAYMENT_NOT_FOUND');
    const code = body.outcome === 'failed' ? (body.failureCode ?? 'PAYER_DECLINED') : null;
    return this.settle(subject, body.outcome, code ? { code, message: failureMessages[code]! } : undefined);
  }

  async settlePayout(scope: string, reference: string, body: SandboxSettleRequest): Promise<Transaction> {
    const subject = await this.transaction(scope, 'payout', reference, 'PAYOUT_NOT_FOUND');
    return this.settle(subject, body.outcome);
  }

  async settleRefund(scope: string, reference: string, body: SandboxSettleRequest): Promise<Refund> {
    assertTestMode(scope);
    const refund = await this.deps.refunds.find(scope, reference);
    if (!refund) throw new ApiProblem('REFUND_NOT_FOUND');
    return this.settle(
      {
        kind: 'refund',
        id: refund.id,
        load: () => this.deps.refunds.findById(refund.id),
        final: (r) => isFinal('refund', r.status),
      },
      body.outcome,
    );
  }

  /**
   * A merchant's outage of one sandbox route (closed, degraded, slow, or lifted): it acts on the
   * merchant's own new test requests only, which then fail over as live ones do. Answers the
   * merchant's controls in force.
   */
  async controlRoute(scope: string, body: SandboxRouteControlRequest): Promise<RouteControlInForce[]> {
    assertTestMode(scope);
    const { route, ...control } = body;
    if (route > this.deps.controls.routes)
      throw problemAt(
        'VALIDATION_ERROR',
        'route',
        fieldMessages.noSuchSandboxRoute(this.deps.controls.routes),
      );
    await this.deps.controls.setRouteControl(route, scope, control);
    return this.deps.controls.routeControls(scope);
  }

  /** The merchant's outage controls in force, on every sandbox route. */
  async routeControls(scope: string): Promise<RouteControlInForce[]> {
    assertTestMode(scope);
    return this.deps.controls.routeControls(scope);
  }

  /**
   * The partner finds the funds of a payin whose collection failed ambiguously (OPERATOR_TIMEOUT, or
   * a number ending in 9901): the payin's next partner check reads `collected` and corrects it.
   */
  async markCollected(scope: string, reference: string): Promise<Transaction> {
    const subject = await this.transaction(scope, 'payin', reference, 'PAYMENT_NOT_FOUND');
    await this.arrival(subject, { finalIsRefusal: false });
    if (!(await this.deps.controls.markCollected(subject.id))) throw notYet();
    return (await subject.load())!;
  }

  private async transaction(
    scope: string,
    kind: Transaction['kind'],
    reference: string,
    notFound: ProblemCode,
  ): Promise<Subject<Transaction>> {
    assertTestMode(scope);
    const tx = await this.deps.transactions.find(scope, kind, reference);
    if (!tx) throw new ApiProblem(notFound);
    return {
      kind: kind === 'payin' ? 'collection' : 'disbursement',
      id: tx.id,
      load: () => this.deps.transactions.findById(tx.id),
      final: (t) => isFinal(t.kind, t.status),
      blocked: awaitingCustomer,
    };
  }

  private async settle<T>(
    subject: Subject<T>,
    outcome: 'completed' | 'failed',
    failure?: { code: string; message: string },
  ): Promise<T> {
    const atOperator = await this.arrival(subject, { finalIsRefusal: true });
    if (atOperator !== 'pending') throw new ApiProblem('ALREADY_FINAL');
    const result = await this.deps.controls.settle(subject.kind, subject.id, outcome, failure);
    if (result === 'already-final') throw new ApiProblem('ALREADY_FINAL');
    if (result === 'unknown') throw notYet();
    // The operator calls us back at once: the answer usually shows the final record already.
    const until = Date.now() + this.followWaitMs;
    for (;;) {
      const record = (await subject.load())!;
      if (subject.final(record) || Date.now() >= until) return record;
      await sleep(this.pollMs);
    }
  }

  /**
   * Waits (bounded) for the operator to hold the request: a create answers before its workflow has
   * sent it, and a test settles right after creating. Answers the operator's outcome.
   */
  private async arrival<T>(
    subject: Subject<T>,
    opts: { finalIsRefusal: boolean },
  ): Promise<'pending' | 'completed' | 'failed'> {
    const until = Date.now() + this.arrivalWaitMs;
    for (;;) {
      const outcome = await this.deps.controls.outcome(subject.kind, subject.id);
      if (outcome) return outcome;
      const record = await subject.load();
      // Ended without reaching the operator (refused at once, expired, declined by the customer).
      if (record && subject.final(record) && opts.finalIsRefusal) throw new ApiProblem('ALREADY_FINAL');
      const blocked = record && subject.blocked?.(record);
      if (blocked) throw blocked;
      if (Date.now() >= until) throw notYet();
      await sleep(this.pollMs);
    }
  }
}

function assertTestMode(scope: string): void {
  if (modeOfScope(scope) !== 'test') throw new ApiProblem('TEST_MODE_ONLY');
}
