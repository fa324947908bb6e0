import {
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  log,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { CollectionRequest, OperatorStatus } from '../../src/operators/gateway';
import type { Failure, TransactionStatus, ConfirmationStatus } from '../../src/domain/transaction';
import { providerName } from '../../src/domain/operators';
import { isAmbiguousFailure } from '../../src/domain/failures';
import {
  saKind,
  saMerchantId,
  saProvider,
  saReference,
  saStatus,
} from '../../src/temporal/search-attributes';
import {
  confirmSessionUpdate,
  declineSessionUpdate,
  operatorAnswerUpdate,
  payinStateQuery,
  type PayinState,
  type PayinWorkflowInput,
  type SessionConfirmation,
} from '../payin-api';
import { operatorCallbackSignal } from '../signals';
import { acts, operator, pollDelayMs } from '../activity-proxies';
import { decideRefund, refundTypeOf } from '../../src/domain/refund';
import { refundWorkflowId, requestRefundUpdate, type RefundAsk, type RefundOutcome } from '../refund-api';
import { refundWorkflow } from '../refund';
import { CODE_REVISION, hasChange } from '../code-revision';
import {
  failureOf,
  insufficientBalance,
  isFinal,
  partnerCheckDelayMs,
  refusal,
  type Outcome,
  type RefundSlot,
} from './payin-helpers';

// The payin workflow as it ran before "ambiguity never moves money" (workflows/payin.ts): kept
// unchanged so that histories started before it replay exactly as they ran. Do not edit.

/**
 * One payin, direct or session, from creation to the end of its refund window.
 * Direct: the collection is requested at once. Session: the workflow waits for the customer to
 * confirm (Update) on the hosted page, then runs the same collection. A failure that may have
 * debited the customer is re-checked with the operator's partner for 48 hours.
 */
export async function legacyPayinWorkflow(input: PayinWorkflowInput): Promise<PayinState> {
  const state: PayinState = {
    status: 'processing',
    confirmationStatus: 'none',
    failure: null,
    awaitingCustomer: input.flow === 'session',
    paymentUrl: null,
    ussdCode: null,
  };
  let operatorSignalled = false;
  let operatorAnswered = false;
  let confirmation: SessionConfirmation | null = null;
  let declined = false;
  // Refunds: the workflow is their single point of decision, so the remainder is checked and
  // reserved atomically (handlers run one at a time; FerretDB could not do it).
  const refunds: RefundSlot[] = [];
  const refundChildren = new Map<string, ChildWorkflowHandle<typeof refundWorkflow>>();
  // Refundable from the moment success is recorded (before the API can read it) until the window's timer fires.
  let refundWindowClosed = false;
  let refundsInFlight = 0;
  let listing: Promise<void> = Promise.resolve();
  let collectedWith: CollectionRequest | null = null;

  setHandler(payinStateQuery, () => state);
  setHandler(operatorCallbackSignal, (payload) => {
    if (payload.kind !== 'refund') {
      operatorSignalled = true;
      return;
    }
    // A refund's callback reaches the payin's workflow (the operator names the collection): pass it on.
    const child = refundChildren.get(payload.id);
    if (child) void child.signal(operatorCallbackSignal, payload).catch(() => undefined);
  });
  setHandler(requestRefundUpdate, (ask: RefundAsk) => openRefund(ask), {
    validator: (ask: RefundAsk) => {
      decideOnRefund(ask);
    },
  });
  setHandler(operatorAnswerUpdate, async () => {
    await condition(() => operatorAnswered || isFinal(state.status));
    return state;
  });
  setHandler(
    confirmSessionUpdate,
    (choice) => {
      confirmation = choice;
      state.awaitingCustomer = false;
      return state;
    },
    { validator: (_choice) => assertSessionOpen() },
  );
  setHandler(
    declineSessionUpdate,
    () => {
      declined = true;
      state.awaitingCustomer = false;
      return state;
    },
    { validator: () => assertSessionOpen() },
  );
  // Rejected Updates never reach history: a late click on the page changes nothing.
  function assertSessionOpen(): void {
    if (!state.awaitingCustomer) throw new Error('This payment session is no longer open.');
  }

  const record = async (
    changes: Partial<{
      status: TransactionStatus;
      confirmationStatus: ConfirmationStatus;
      failure: Failure | null;
    }>,
  ) => {
    Object.assign(state, changes);
    if (changes.status) upsertSearchAttributes([{ key: saStatus, value: changes.status }]);
    await acts.recordPayinState(input.transactionId, changes);
  };

  // Session flow: nothing happens until the customer confirms, declines, or lets it expire.
  let collection: CollectionRequest | null = input.collection;
  if (input.flow === 'session') {
    const acted = await condition(() => confirmation !== null || declined, input.timing.sessionExpiryMs);
    state.awaitingCustomer = false;
    if (!acted) return finish({ kind: 'expired' });
    if (declined || !confirmation) {
      await record({ confirmationStatus: 'declined' });
      return finish({
        kind: 'failed',
        failure: failureOf('DECLINED_BY_CUSTOMER', 'The customer declined the payment', null),
      });
    }
    const choice: SessionConfirmation = confirmation;
    collection = {
      transactionId: input.transactionId,
      operator: choice.provider,
      country: input.country,
      msisdn: choice.msisdn,
      amount: input.amount,
      currency: input.currency,
      ...(choice.otp ? { otp: choice.otp } : {}),
      sandboxScenario: input.sandboxScenario,
    };
    const provider = providerName(choice.provider, input.country);
    upsertSearchAttributes([{ key: saProvider, value: provider }]);
    await acts.recordPayinState(input.transactionId, { provider, customerPhone: choice.msisdn });
  }
  if (!collection) throw new Error('a direct payin needs its collection request');
  collectedWith = collection;
  const outcome = await collect(collection);
  return finish(outcome, collection);

  /** A retry of an accepted request (same externalReference and key), a new refund, or a refusal. */
  function decideOnRefund(ask: RefundAsk): { replay: RefundSlot } | { amount: number } {
    const same = refunds.find((r) => r.externalReference === ask.externalReference);
    if (same) {
      if (ask.idempotencyKey !== null && same.idempotencyKey === ask.idempotencyKey) return { replay: same };
      throw refusal('DUPLICATE_REFUND');
    }
    const committed = refunds.filter((r) => r.phase !== 'reversed').reduce((sum, r) => sum + r.amount, 0);
    const decision = decideRefund(
      {
        refundable: state.status === 'success' && !refundWindowClosed && collectedWith !== null,
        originalAmount: input.amount,
        committed,
      },
      ask.amount,
    );
    if (!decision.ok) throw refusal(decision.refusal);
    return { amount: decision.amount };
  }

  /**
   * One list write at a time, each with every refund opened so far: FerretDB's updates read, then
   * write, so two at once could drop an id. Refund Updates otherwise run concurrently.
   */
  function listRefunds(): Promise<void> {
    const write = () =>
      acts.listPayinRefunds(
        input.transactionId,
        refunds.filter((r) => r.phase !== 'opening').map((r) => r.refundId),
      );
    listing = listing.then(write, write);
    return listing;
  }

  async function openRefund(ask: RefundAsk): Promise<{ refundId: string }> {
    // Decided again: the state may have changed since this Update was validated.
    const decision = decideOnRefund(ask);
    if ('replay' in decision) {
      const slot = decision.replay;
      await condition(() => slot.phase !== 'opening' || !refunds.includes(slot));
      if (!refunds.includes(slot)) throw refusal('REFUND_NOT_ALLOWED');
      return { refundId: slot.refundId };
    }
    const req = collectedWith!;
    const slot: RefundSlot = {
      refundId: ask.refundId,
      externalReference: ask.externalReference,
      idempotencyKey: ask.idempotencyKey,
      amount: decision.amount,
      phase: 'opening',
    };
    refunds.push(slot); // reserved before the first await: the next request sees it
    refundsInFlight++;
    const workflowId = refundWorkflowId(input.merchantId, ask.refundId);
    try {
      await acts.openRefund({
        refundId: ask.refundId,
        transactionRef: ask.transactionRef,
        payinId: input.transactionId,
        externalReference: ask.externalReference,
        reason: ask.reason,
        amount: decision.amount,
        refundType: refundTypeOf(decision.amount, input.amount),
        operator: req.operator,
        country: req.country,
        sandboxScenario: ask.sandboxScenario,
        idempotencyKey: ask.idempotencyKey,
        apiKey: ask.apiKey,
        requestedAt: ask.requestedAt,
        workflowId,
      });
    } catch (err) {
      // Nothing was debited or stored: release the reservation and the externalReference.
      refunds.splice(refunds.indexOf(slot), 1);
      refundsInFlight--;
      throw insufficientBalance(err) ?? err;
    }
    slot.phase = 'processing';
    // Listed before the merchant's answer, so its next read of the payin shows the refund. A change:
    // histories recorded before the list existed replay without it.
    if (hasChange(input, 'payin-lists-its-refunds')) await listRefunds();
    const child = await startChild(refundWorkflow, {
      workflowId,
      args: [
        {
          refundId: ask.refundId,
          payinId: input.transactionId,
          operator: req.operator,
          country: req.country,
          amount: decision.amount,
          currency: input.currency,
          sandboxScenario: ask.sandboxScenario,
          codeRevision: CODE_REVISION,
        },
      ],
      // The merchant was debited: the refund must reach its end even if this workflow is stopped.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // Findable in the Temporal UI like every transaction: by merchant, kind, reference and status.
      typedSearchAttributes: [
        { key: saMerchantId, value: input.merchantId },
        { key: saKind, value: 'refund' },
        { key: saReference, value: ask.refundId },
        { key: saProvider, value: providerName(req.operator, req.country) },
        { key: saStatus, value: 'processing' },
      ],
      memo: { amount: decision.amount, currency: input.currency, payin: input.reference },
    });
    refundChildren.set(ask.refundId, child);
    void child.result().then(
      (outcome: RefundOutcome) => {
        slot.phase = outcome; // reversed: the amount is refundable again
        refundChildren.delete(ask.refundId);
        refundsInFlight--;
      },
      (err: unknown) => {
        // Unknown money state: keep the amount reserved, but let the payin workflow end.
        log.error('refund workflow failed', { refundId: ask.refundId, error: String(err) });
        refundChildren.delete(ask.refundId);
        refundsInFlight--;
      },
    );
    return { refundId: ask.refundId };
  }

  async function collect(req: CollectionRequest): Promise<Outcome> {
    const provider = providerName(req.operator, req.country);
    await record({ confirmationStatus: 'pending' });
    let answer: OperatorStatus;
    try {
      answer = await operator.requestCollection(req);
    } catch {
      return {
        kind: 'failed',
        failure: failureOf('OPERATOR_UNAVAILABLE', 'The operator could not be reached', provider),
      };
    }
    state.paymentUrl = answer.paymentUrl ?? null;
    state.ussdCode = answer.ussdCode ?? null;
    if (answer.paymentUrl)
      await acts.recordPayinState(input.transactionId, { paymentUrl: answer.paymentUrl });
    operatorAnswered = true;
    // Wait for the operator: a callback wakes us early, polling covers a callback that never comes.
    const deadline = Date.now() + input.timing.expiryMs; // workflow time: deterministic
    let attempt = 0;
    while (answer.outcome === 'pending') {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return { kind: 'expired' };
      // A callback that came while the operator was being asked (a fast operator) wakes the first
      // wait too: cleared after each wait, not before it (before, every such payin slept a whole
      // poll interval, 5 s). A change: histories recorded before it replay as they ran.
      const keepEarlyCallback = hasChange(input, 'payin-keeps-early-operator-callback');
      if (!keepEarlyCallback) operatorSignalled = false;
      await condition(() => operatorSignalled, Math.min(pollDelayMs(attempt++), remaining));
      if (keepEarlyCallback) operatorSignalled = false;
      try {
        answer = await operator.readCollectionStatus(req.transactionId, req.operator, req.country);
      } catch (err) {
        log.warn('collection status unavailable; polling again', { error: String(err) });
      }
    }
    if (answer.outcome === 'completed') return { kind: 'success' };
    const f = answer.failure ?? { code: 'OPERATOR_ERROR', message: 'The operator refused the payment' };
    return { kind: 'failed', failure: failureOf(f.code, f.message, provider) };
  }

  async function finish(outcome: Outcome, req?: CollectionRequest): Promise<PayinState> {
    if (outcome.kind === 'expired') {
      await record({
        status: 'expired',
        failure: failureOf(
          'EXPIRED',
          'Nobody answered in time',
          req ? providerName(req.operator, req.country) : null,
        ),
      });
      await acts.emitTransactionEvent(input.transactionId, 'payin.expired');
      return state;
    }
    if (outcome.kind === 'failed') {
      const declinedByPayer = !isAmbiguousFailure(outcome.failure.code);
      await record({
        status: 'failed',
        failure: outcome.failure,
        ...(declinedByPayer && state.confirmationStatus !== 'declined'
          ? { confirmationStatus: 'declined' }
          : {}),
      });
      await acts.emitTransactionEvent(input.transactionId, 'payin.failed');
      if (declinedByPayer || !req) return state;
      // The customer may have been debited: ask the partner until the correction window closes.
      if (!(await correctedByPartner(req))) return state;
      await acts.creditMerchantForPayin(input.transactionId);
      await record({ status: 'success', confirmationStatus: 'accepted', failure: null });
      await acts.emitTransactionEvent(input.transactionId, 'payin.corrected');
    } else {
      await record({ confirmationStatus: 'accepted' });
      await acts.creditMerchantForPayin(input.transactionId);
      await record({ status: 'success' });
      await acts.emitTransactionEvent(input.transactionId, 'payin.completed');
    }
    // The refund window is this durable timer; requestRefund Updates are handled while it runs.
    await sleep(input.timing.refundWindowMs);
    refundWindowClosed = true;
    // Refunds accepted in time still finish under this workflow (their callbacks come through it).
    await condition(() => refundsInFlight === 0 && allHandlersFinished());
    return state;
  }

  async function correctedByPartner(req: CollectionRequest): Promise<boolean> {
    const deadline = Date.now() + input.timing.correctionWindowMs;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await sleep(Math.min(partnerCheckDelayMs(attempt, input.timing.partnerCheckIntervalMs), remaining));
      try {
        const check = await operator.partnerCheck(req.transactionId, req.operator, req.country);
        if (check.collected) return true;
      } catch (err) {
        log.warn('partner check unavailable; trying again later', { error: String(err) });
      }
    }
  }
}
