import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TransactionStore } from '../persistence/transactions';
import type { RefundStore } from '../persistence/refunds';
import type { RefundAuditLog } from '../persistence/refund-audit';
import type { RefundRequest } from '../contract/schemas/refund';
import { ApiProblem, type ProblemCode } from '../contract/problems';
import { fieldMessages, problemAt, refundConflict } from '../contract/field-messages';
import { minorUnitDigits, toMajor, toMinor } from '../domain/money';
import { modeOfScope } from '../domain/modes';
import type { RefundRulesOf } from '../operators/connectors/connector';
import { operatorOf } from './transaction-workflows';
import { newId } from '../domain/ids';
import type { Transaction } from '../domain/transaction';
import { refundedTotal, type Refund } from '../domain/refund';
import { RETRY_AFTER_SECONDS } from '../persistence/unavailable';
import { isUpdateLimitReached, refundIdsOf, refundUpdateId } from './update-limits';
import { askRefundDesk } from './start-workflow';
import { fingerprintsDiffer } from '../security/request-fingerprint';

export interface RefundServiceDeps {
  transactions: TransactionStore;
  refunds: RefundStore;
  audit: RefundAuditLog;
  temporal: Client;
  /** Where a payin's refund desk runs (workflows/refund/payin-refund-desk.ts). */
  taskQueue: string;
  /** How long the API waits for the payin's workflow to decide before answering 503 (retry). */
  decisionWaitMs: number;
  /** The rules of the provider a refund is routed to (live mode's connectors). Unset: none. */
  /** The rules of the route that collected the payin (live mode); none when absent. */
  rulesOf?: RefundRulesOf | undefined;
}

/** Who asks: the merchant and the api_key it called with, and the request's idempotency key. */
export interface RefundCaller {
  merchantId: string;
  apiKey: string | null;
  idempotencyKey: string | null;
  /** requestFingerprint() of the request: kept on the refund, so a same-key retry with another body is told apart. */
  requestFingerprint?: string | null;
}

/** The payin's workflow holds too many Updates right now: nothing was queued by this request. */
const tooManyPending = () =>
  new ApiProblem('DECISION_PENDING', {
    detail: {
      en: 'Too many requests are being decided on this payment at once. Retry after Retry-After with the same X-Idempotency-Key: it is never applied twice.',
      fr: "Trop de demandes sont en cours de décision sur ce paiement. Réessayez après Retry-After avec la même X-Idempotency-Key : elle n'est jamais appliquée deux fois.",
    },
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });

/** The refusals the payin workflow answers, by ApplicationFailure type. */
const workflowRefusals = new Set<ProblemCode>([
  'REFUND_NOT_ALLOWED',
  'INVALID_AMOUNT',
  'DUPLICATE_REFUND',
  'INSUFFICIENT_BALANCE',
]);

export class RefundService {
  constructor(private readonly deps: RefundServiceDeps) {}

  /**
   * Endpoint 8. The payin's workflow decides (Update): it checks and reserves the remainder, debits
   * the merchant and stores the refund before answering, then runs the refund as a child workflow.
   * Every request is audited with its outcome.
   */
  async create(
    caller: RefundCaller,
    payinReference: string,
    body: RefundRequest,
  ): Promise<{ created: boolean; refund: Refund }> {
    const log = (outcome: string, refundId: string | null = null) =>
      this.deps.audit.append({
        action: 'refund.requested',
        actor: 'merchant',
        merchantId: caller.merchantId,
        apiKey: caller.apiKey,
        idempotencyKey: caller.idempotencyKey,
        payinReference,
        refundId,
        externalReference: body.externalReference,
        amount: payin && body.amount !== undefined ? toMinor(body.amount, payin.currency) : null,
        outcome,
      });
    const refuse = async (
      code: ProblemCode,
      extra?: ConstructorParameters<typeof ApiProblem>[1],
    ): Promise<never> => {
      await log(code);
      throw new ApiProblem(code, extra);
    };

    // A payin whose document shows its success is checked from it (no version probe): the desk
    // decides again from its own fresh read of the payin.
    const payin = await this.deps.transactions.findSettled(
      caller.merchantId,
      'payin',
      payinReference,
      (p) => p.status === 'success',
    );
    if (!payin) return refuse('PAYMENT_NOT_FOUND');
    // The stored status trails the workflow's: not yet success here means not refundable now.
    if (payin.status !== 'success') return refuse('REFUND_NOT_ALLOWED');
    // A success writes the end of its refund window (workflows/payin/payin-steps.ts); the desk checks it again.
    if (!payin.refundableUntil || new Date(payin.refundableUntil).getTime() <= Date.now())
      return refuse('REFUND_NOT_ALLOWED');
    if (body.amount !== undefined && !Number.isInteger(body.amount * 10 ** minorUnitDigits[payin.currency])) {
      await log('VALIDATION_ERROR');
      const digits = minorUnitDigits[payin.currency];
      throw problemAt('VALIDATION_ERROR', 'amount', fieldMessages.tooManyDecimals(payin.currency, digits));
    }
    // The routed provider's own rules, answered now rather than by a reversal after the 201.
    const operator = payin.provider ? operatorOf(payin.provider) : null;
    const rules = operator
      ? await this.deps.rulesOf?.(modeOfScope(caller.merchantId), payin.id, operator, payin.country)
      : undefined;
    const limits = rules?.refundAmounts;
    if (operator && limits) {
      // The amount asked, or the rest of the payin (its refunds not failed nor reversed).
      const minor =
        body.amount !== undefined
          ? toMinor(body.amount, payin.currency)
          : payin.amount -
            // The latest list of its refunds (the document's copy may lag it).
            (await this.deps.refunds.ofPayin((await this.deps.transactions.findById(payin.id)) ?? payin))
              .filter((r) => r.status !== 'failed' && r.status !== 'reversed')
              .reduce((sum, r) => sum + r.amount, 0);
      const outside =
        minor < limits.min || minor > limits.max || (limits.multipleOf && minor % limits.multipleOf !== 0);
      // Nothing left (minor ≤ 0) is the desk's REFUND_NOT_ALLOWED, not a matter of limits.
      if (minor > 0 && outside) {
        const message = fieldMessages.refundAmountLimits(
          operator,
          toMajor(limits.min, payin.currency),
          toMajor(limits.max, payin.currency),
          limits.multipleOf ? toMajor(limits.multipleOf, payin.currency) : null,
          payin.currency,
        );
        return refuse('INVALID_AMOUNT', { detail: message, errors: [{ path: 'amount', message }] });
      }
    }
    if (operator && rules?.fullRefundsOnly) {
      // The provider returns what it collected: the customer's fee too when the customer paid it,
      // which is more than the merchant's payment a refund of ours reverses.
      if (payin.chargedAmount !== payin.amount) {
        const detail = fieldMessages.fullRefundOfFeeInclusive(operator);
        return refuse('REFUND_NOT_ALLOWED', { detail });
      }
      if (body.amount !== undefined && toMinor(body.amount, payin.currency) !== payin.amount) {
        const message = fieldMessages.fullRefundOnly(
          operator,
          toMajor(payin.amount, payin.currency),
          payin.currency,
        );
        return refuse('INVALID_AMOUNT', { detail: message, errors: [{ path: 'amount', message }] });
      }
    }
    // The externalReference is taken: by this very request (a retry after a crash) it is answered
    // again; by any other, refused. The workflow checks it again, race-free.
    const existing = await this.deps.refunds.findByExternalReference(
      caller.merchantId,
      payin.id,
      body.externalReference,
    );
    if (existing) {
      if (caller.idempotencyKey && existing.idempotencyKey === caller.idempotencyKey) {
        // The same key with another body: refused as the idempotency middleware does (refunds name it so).
        if (otherRequest(existing, caller))
          return refuse('DUPLICATE_REFUND', refundConflict.keyReused().extra);
        await log('accepted', existing.id);
        return { created: false, refund: existing };
      }
      return refuse('DUPLICATE_REFUND', refundConflict.externalReferenceUsed().extra);
    }

    // A retry of this request (same key) attaches to the Update its first attempt queued, with the
    // same ids: an Update id never carries two different requests.
    const updateId = caller.idempotencyKey
      ? refundUpdateId(payin.id, body.externalReference, caller.idempotencyKey)
      : undefined;
    const { refundId, transactionRef } = updateId
      ? refundIdsOf(updateId)
      : { refundId: newId('rf'), transactionRef: newId('tr') };
    if (body.metadata) await this.deps.refunds.putMetadata(refundId, body.metadata);
    let accepted: { refundId: string };
    try {
      const ask = {
        refundId,
        transactionRef,
        externalReference: body.externalReference,
        reason: body.reason,
        amount: body.amount === undefined ? null : toMinor(body.amount, payin.currency),
        sandboxScenario: body.sandboxScenario ?? null,
        idempotencyKey: caller.idempotencyKey,
        requestFingerprint: caller.requestFingerprint ?? null,
        withMetadata: Boolean(body.metadata),
        apiKey: caller.apiKey,
        requestedAt: new Date().toISOString(),
      };
      // Bounded: with its worker down or backlogged the desk cannot decide now. The Update stays
      // queued and is decided later; the client's retry (same key and externalReference) finds it.
      // The payin's refund desk decides (workflows/refund/payin-refund-desk.ts).
      accepted = await this.deps.temporal.withDeadline(Date.now() + this.deps.decisionWaitMs, () =>
        askRefundDesk(this.deps.temporal, this.deps.taskQueue, payin, ask, updateId),
      );
    } catch (err) {
      const code = refusalOf(err);
      // The workflow's DUPLICATE_REFUND is always a taken externalReference (another key's refund).
      if (code === 'DUPLICATE_REFUND') return refuse(code, refundConflict.externalReferenceUsed().extra);
      const remaining = code === 'INVALID_AMOUNT' ? remainingOf(err) : null;
      if (remaining !== null) {
        const message = fieldMessages.refundAboveRemainder(
          toMajor(remaining, payin.currency),
          payin.currency,
        );
        return refuse(code!, { detail: message, errors: [{ path: 'amount', message }] });
      }
      if (code) return refuse(code);
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
        throw new ApiProblem('DECISION_PENDING', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
      if (isUpdateLimitReached(err)) throw tooManyPending();
      throw err; // a fault: 500, nothing was debited or stored by this request
    }
    const refund = await this.storedRefund(accepted.refundId);
    // Stored before the Update answered, but a read on FerretDB can trail a write from another
    // connection under load: the decision is made, so the retry (same key) is answered with it.
    if (!refund)
      throw new ApiProblem('DECISION_PENDING', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
    // Answered with a refund an earlier request of this key opened: only if it was this same request.
    if (accepted.refundId !== refundId && otherRequest(refund, caller))
      return refuse('DUPLICATE_REFUND', refundConflict.keyReused().extra);
    await log('accepted', refund.id);
    return { created: accepted.refundId === refundId, refund };
  }

  /**
   * The refund the workflow stored, read again for up to about two seconds while it is not visible.
   * Its document alone (one `_id` read, no version probe): the 201 shows the refund as stored, in a
   * state it had (`processing` at least), which a later read may find further on.
   */
  private async storedRefund(id: string): Promise<Refund | null> {
    for (let attempt = 0; ; attempt++) {
      const refund = await this.deps.refunds.findStored(id);
      if (refund || attempt === 10) return refund;
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  /** A merchant's refund by its rf_ reference. */
  async get(merchantId: string, reference: string): Promise<Refund | null> {
    return this.deps.refunds.find(merchantId, reference);
  }

  /** What GET /v1/payin/{reference} adds: the payin's refunds and the amount refunded (minor units). */
  async ofPayin(payin: Transaction): Promise<{ refunds: Refund[]; refunded: number }> {
    const refunds = await this.deps.refunds.ofPayin(payin);
    return { refunds, refunded: refundedTotal(refunds) };
  }

  async auditTrail(merchantId: string, payinReference: string) {
    return this.deps.audit.list(merchantId, payinReference);
  }
}

/** A same-key request whose body differs from the one that opened the refund (unknown for older refunds). */
function otherRequest(refund: Refund, caller: RefundCaller): boolean {
  return fingerprintsDiffer(refund.requestFingerprint, caller.requestFingerprint);
}

/** What remains refundable, as the desk said with its INVALID_AMOUNT (minor units); null when it did not. */
function remainingOf(err: unknown): number | null {
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : null;
  const details = cause instanceof ApplicationFailure ? cause.details : null;
  const remaining = (details?.[0] as { remaining?: unknown } | undefined)?.remaining;
  return typeof remaining === 'number' && Number.isInteger(remaining) && remaining >= 0 ? remaining : null;
}

/** The problem a failed Update stands for; null for a fault. */
function refusalOf(err: unknown): ProblemCode | null {
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type && workflowRefusals.has(cause.type as ProblemCode))
      return cause.type as ProblemCode;
    return null;
  }
  // The desk closed under each of askRefundDesk's attempts (src/services/start-workflow.ts).
  if (err instanceof WorkflowNotFoundError) return 'REFUND_NOT_ALLOWED';
  return null;
}
