import {
  ApplicationFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  condition,
  log,
  setHandler,
  startChild,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { CollectionRequest } from '../../src/operators/gateway';
import { providerName } from '../../src/domain/operators';
import { decideRefund, refundTypeOf, type RefundRefusal } from '../../src/domain/refund';
import {
  saKind,
  saMerchantId,
  saProvider,
  saReference,
  saStatus,
} from '../../src/temporal/search-attributes';
import type { PayinWorkflowInput } from '../payin/payin-api';
import { requestRefundUpdate, type RefundAsk, type RefundOutcome } from './refund-api';
import { refundWorkflowId } from '../../src/temporal/workflow-ids';
import { refundWorkflow } from './refund';
import { recordActivities, type RefundActivities } from '../shared/activity-proxies';
import { isInsufficientFunds } from '../shared/activity-failures';

// The refunds of one payin, decided by its refund desk (workflows/refund/payin-refund-desk.ts). Decisions
// are taken one at a time, so the remainder is checked and reserved atomically (FerretDB could not
// do it). Each accepted refund runs in its own child workflow, which outlives the desk if it must.

/** A refund of this payin as the workflow tracks it; `opening` while the merchant is being debited. */
interface RefundSlot {
  refundId: string;
  externalReference: string;
  idempotencyKey: string | null;
  /** Integer minor units, reserved from the refundable remainder until the refund is reversed. */
  amount: number;
  phase: 'opening' | 'processing' | 'completed' | 'reversed';
}

const acts = recordActivities<Pick<RefundActivities, 'openRefund' | 'failRefund' | 'reverseRefund'>>();

const refusalMessages: Record<RefundRefusal, string> = {
  REFUND_NOT_ALLOWED:
    'This payment is not refundable (not successful, fully refunded, or its refund window closed).',
  INVALID_AMOUNT: 'The amount is greater than what this payment still allows.',
  DUPLICATE_REFUND: 'A refund of this payment already uses this externalReference.',
};

/** A queued refund request and, once the loop decided it, its answer for the waiting handler. */
interface QueuedAsk {
  ask: RefundAsk;
  answer: { refundId: string } | { error: unknown } | null;
}

/** What the refunds of a payin are decided on. */
export type RefundedPayin = Pick<
  PayinWorkflowInput,
  'merchantId' | 'transactionId' | 'amount' | 'currency' | 'reference'
>;

/** A desk's start: the refunds already stored, and when the window closes (workflow time, ms). */
export interface RefundSeed {
  known: {
    refundId: string;
    externalReference: string;
    idempotencyKey: string | null;
    amount: number;
    reversed: boolean;
  }[];
  windowEndsAt: number | null;
}

export interface PayinRefunds {
  /** Refunds are accepted from now (within the window), for `collection`. */
  open(collection: CollectionRequest): void;
  /** Refund Updates handled so far (accepted by the validator). */
  asked(): number;
  /** Resolves once every refund accepted here reached its end (a reversed one frees its amount). */
  settled(): Promise<void>;
}

/**
 * Registers the `requestRefund` Update. `writeList` records the payin's list of refund ids; the
 * workflow gives it its next state-write sequence number. `seed` is what the desk read of the payin
 * (null until it has).
 */
export function payinRefunds(
  input: RefundedPayin,
  state: { status: 'processing' | 'success' },
  writeList: (refundIds: string[]) => Promise<void>,
  seed: () => RefundSeed | null,
): PayinRefunds {
  const desk = new RefundDesk(input, state, writeList, seed);
  desk.listen();
  void desk.serveQueue();
  return desk;
}

/**
 * The refunds of one payin as its desk decides them: what is reserved, the queue of requests, and
 * the named steps a request goes through (decide, debit, list, start, watch), one batch at a time.
 */
class RefundDesk implements PayinRefunds {
  /** Every refund of the payin this desk knows, reserved until reversed. */
  private readonly refunds: RefundSlot[] = [];
  /** The refunds stored before the desk opened: reserved like any other, and already listed. */
  private readonly seeded = new Set<string>();
  /** The requests accepted and not yet decided, in the order the Updates were accepted. */
  private readonly queue: QueuedAsk[] = [];
  private collectedWith: CollectionRequest | null = null;
  private windowEndsAt: number | null = null;
  private inFlight = 0;
  private listing: Promise<void> = Promise.resolve();
  private seedTaken = false;
  private askedCount = 0;

  constructor(
    private readonly input: RefundedPayin,
    private readonly payin: { status: 'processing' | 'success' },
    private readonly writeList: (refundIds: string[]) => Promise<void>,
    private readonly seed: () => RefundSeed | null,
  ) {}

  // ---- What the desk workflow asks ----

  /** Refunds are accepted from now (within the window), for `collection`. */
  open(collection: CollectionRequest): void {
    this.collectedWith = collection;
  }

  asked(): number {
    return this.askedCount;
  }

  settled(): Promise<void> {
    return condition(() => this.inFlight === 0);
  }

  // ---- The Update ----

  /**
   * The handler issues no command: its request waits in the queue, in the order the Updates were
   * accepted, for one loop to answer it, so the commands do not depend on how handlers interleave
   * (replayed after a worker restart, concurrent handlers started children in another order:
   * TMPRL1100, docs/faults.md; temporalio/sdk-python#673). The validator refuses early a request
   * that surely does not fit (no history); it is decided again when its turn comes.
   */
  listen(): void {
    setHandler(
      requestRefundUpdate,
      async (ask: RefundAsk) => {
        this.askedCount++;
        const queued: QueuedAsk = { ask, answer: null };
        this.queue.push(queued);
        await condition(() => queued.answer !== null);
        const answer = queued.answer!;
        if ('error' in answer) throw answer.error;
        return answer;
      },
      {
        validator: (ask: RefundAsk) => {
          if (this.takeSeed()) this.decide(ask);
        },
      },
    );
  }

  /** Answers the queued requests, in order, batch after batch. */
  async serveQueue(): Promise<void> {
    // A desk's Updates can arrive before the desk has read its payin: they wait for it here.
    if (!this.takeSeed()) await condition(() => this.takeSeed());
    for (;;) {
      await condition(() => this.queue.length > 0);
      const batch = this.queue.splice(0);
      try {
        await this.openBatch(batch);
      } catch (err) {
        // A step that failed for good (its activity gave up): its requests get the error, as a
        // handler's would, and what was debited stays reserved; the loop goes on with the next.
        for (const queued of batch) queued.answer ??= { error: err };
      }
    }
  }

  /**
   * The requests queued so far, decided in order (each reserves its amount for the next), then
   * every accepted one debited, listed and started together: a batch costs a few workflow tasks
   * however many it holds, and its commands follow the queue's order.
   */
  private async openBatch(batch: QueuedAsk[]): Promise<void> {
    const opening: { queued: QueuedAsk; slot: RefundSlot; workflowId: string }[] = [];
    const replays: { queued: QueuedAsk; slot: RefundSlot }[] = [];
    for (const queued of batch) {
      let decision: ReturnType<RefundDesk['decide']>;
      try {
        decision = this.decide(queued.ask);
      } catch (err) {
        queued.answer = { error: err };
        continue;
      }
      if ('replay' in decision) {
        replays.push({ queued, slot: decision.replay });
        continue;
      }
      opening.push({ queued, ...this.reserve(queued.ask, decision.amount) });
    }
    const req = this.collectedWith!;
    const debits = await Promise.allSettled(
      opening.map((o) => this.debit(o.queued.ask, o.slot.amount, req, o.workflowId)),
    );
    const opened = opening.filter((o, i) => {
      const result = debits[i]!;
      if (result.status === 'fulfilled') o.slot.phase = 'processing';
      else o.queued.answer = { error: this.release(o.slot, result.reason) };
      return result.status === 'fulfilled';
    });
    if (opened.length > 0) {
      try {
        // Listed before the merchant's answer, so its next read of the payin shows the refunds.
        await this.listRefunds();
      } catch (err) {
        // Debited and stored, but not listed: their amounts stay reserved.
        for (const o of opened) o.queued.answer = { error: err };
        opened.length = 0;
      }
    }
    const started = await Promise.all(
      opened.map((o) => this.startRefund(o.queued.ask, o.slot.amount, req, o.workflowId)),
    );
    for (const [i, o] of opened.entries()) {
      const child = started[i]!;
      if (child === 'running') {
        // An earlier start of this very refund runs: it decides the money, not this one.
        this.inFlight--;
      } else if (!child) {
        await this.returnUnsent(o.slot);
      } else this.watch(o.slot, child);
      o.queued.answer = { refundId: o.slot.refundId };
    }
    // A retry of a request of this batch is answered once that request was.
    for (const { queued, slot } of replays)
      queued.answer = this.refunds.includes(slot)
        ? { refundId: slot.refundId }
        : { error: refusal('REFUND_NOT_ALLOWED') };
  }

  // ---- The steps ----

  /** The refunds stored before the desk opened, once the desk has read them; false until then. */
  private takeSeed(): boolean {
    if (this.seedTaken) return true;
    const s = this.seed();
    if (!s) return false;
    for (const r of s.known) {
      this.refunds.push({ ...r, phase: r.reversed ? 'reversed' : 'processing' });
      this.seeded.add(r.refundId);
    }
    this.windowEndsAt = s.windowEndsAt ?? 0;
    this.seedTaken = true;
    return true;
  }

  private windowOpen(): boolean {
    return this.windowEndsAt === null || Date.now() < this.windowEndsAt;
  }

  /** A retry of an accepted request (same externalReference and key), a new refund, or a refusal. */
  private decide(ask: RefundAsk): { replay: RefundSlot } | { amount: number } {
    const same = this.refunds.find((r) => r.externalReference === ask.externalReference);
    if (same) {
      if (ask.idempotencyKey !== null && same.idempotencyKey === ask.idempotencyKey) return { replay: same };
      throw refusal('DUPLICATE_REFUND');
    }
    const committed = this.refunds
      .filter((r) => r.phase !== 'reversed')
      .reduce((sum, r) => sum + r.amount, 0);
    const decision = decideRefund(
      {
        refundable: this.payin.status === 'success' && this.windowOpen() && this.collectedWith !== null,
        originalAmount: this.input.amount,
        committed,
      },
      ask.amount,
    );
    if (!decision.ok)
      throw refusal(
        decision.refusal,
        decision.remaining === undefined ? undefined : { remaining: decision.remaining },
      );
    return { amount: decision.amount };
  }

  /** An accepted refund's amount, reserved for the requests after it while it is debited. */
  private reserve(ask: RefundAsk, amount: number): { slot: RefundSlot; workflowId: string } {
    const slot: RefundSlot = {
      refundId: ask.refundId,
      externalReference: ask.externalReference,
      idempotencyKey: ask.idempotencyKey,
      amount,
      phase: 'opening',
    };
    this.refunds.push(slot);
    this.inFlight++;
    return { slot, workflowId: refundWorkflowId(this.input.merchantId, ask.refundId) };
  }

  /** The merchant debited and the refund stored, `processing` (activities/refund/refund-activities.ts). */
  private debit(ask: RefundAsk, amount: number, req: CollectionRequest, workflowId: string) {
    return acts.openRefund({
      refundId: ask.refundId,
      transactionRef: ask.transactionRef,
      payinId: this.input.transactionId,
      externalReference: ask.externalReference,
      reason: ask.reason,
      amount,
      refundType: refundTypeOf(amount, this.input.amount),
      operator: req.operator,
      country: req.country,
      sandboxScenario: ask.sandboxScenario,
      idempotencyKey: ask.idempotencyKey,
      ...(ask.requestFingerprint !== undefined ? { requestFingerprint: ask.requestFingerprint } : {}),
      ...(ask.withMetadata !== undefined ? { withMetadata: ask.withMetadata } : {}),
      apiKey: ask.apiKey,
      requestedAt: ask.requestedAt,
      workflowId,
    });
  }

  /** A debit that failed: nothing was debited or stored, so the reservation and externalReference are free. */
  private release(slot: RefundSlot, err: unknown): unknown {
    this.refunds.splice(this.refunds.indexOf(slot), 1);
    this.inFlight--;
    if (isInsufficientFunds(err))
      return ApplicationFailure.create({
        type: 'INSUFFICIENT_BALANCE',
        message: 'The merchant balance does not cover this refund.',
        nonRetryable: true,
      });
    return err;
  }

  /** One list write at a time, each with every refund opened so far (FerretDB updates read, then write). */
  private listRefunds(): Promise<void> {
    // Only those opened here: the activity keeps the ones the record already lists.
    const write = () =>
      this.writeList(
        this.refunds
          .filter((r) => r.phase !== 'opening' && !this.seeded.has(r.refundId))
          .map((r) => r.refundId),
      );
    this.listing = this.listing.then(write, write);
    return this.listing;
  }

  /** The refund's child workflow, or null when it could not be started (nothing was sent). */
  private async startRefund(
    ask: RefundAsk,
    amount: number,
    req: CollectionRequest,
    workflowId: string,
  ): Promise<ChildWorkflowHandle<typeof refundWorkflow> | 'running' | null> {
    const { input } = this;
    try {
      return await startChild(refundWorkflow, {
        workflowId,
        // A refund id runs once: a closed refund is never started again.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        args: [
          {
            refundId: ask.refundId,
            payinId: input.transactionId,
            operator: req.operator,
            country: req.country,
            amount,
            currency: input.currency,
            sandboxScenario: ask.sandboxScenario,
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
        memo: { amount, currency: input.currency, payin: input.reference },
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'running';
      log.error('refund workflow not started; returning the debit', {
        refundId: ask.refundId,
        error: err instanceof Error ? err.name : 'unknown',
      });
      return null;
    }
  }

  /** The operator was never asked: returning the debit is safe, and the remainder is free again. */
  private async returnUnsent(slot: RefundSlot): Promise<void> {
    await acts.failRefund(
      slot.refundId,
      { code: 'REFUND_NOT_STARTED', message: 'The refund could not be started; nothing was sent' },
      new Date().toISOString(),
    );
    await acts.reverseRefund(slot.refundId);
    slot.phase = 'reversed';
    this.inFlight--;
  }

  /** Follows a started refund to its end: a reversed one frees its amount. */
  private watch(slot: RefundSlot, child: ChildWorkflowHandle<typeof refundWorkflow>): void {
    void child.result().then(
      (outcome: RefundOutcome) => {
        slot.phase = outcome; // reversed: the amount is refundable again
        this.inFlight--;
      },
      (err: unknown) => {
        // Unknown money state: keep the amount reserved, but let the desk end.
        log.error('refund workflow failed', { refundId: slot.refundId, error: String(err) });
        this.inFlight--;
      },
    );
  }
}

/** `details`: what the API says with the refusal (INVALID_AMOUNT: what remains, minor units). */
function refusal(type: RefundRefusal, details?: { remaining: number }): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message: refusalMessages[type],
    nonRetryable: true,
    ...(details ? { details: [details] } : {}),
  });
}
