import type { OperatorGateway, OperatorStatus, RefundRequest } from '../../src/operators/gateway';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { RefundStore } from '../../src/persistence/refunds';
import type { RefundAuditLog } from '../../src/persistence/refund-audit';
import type { Ledger } from '../../src/ledger';
import { debitRefund, reverseRefund, settleRefundFee } from '../../src/ledger/postings';
import { debitOrRefuse } from '../shared/ledger-refusals';
import { computeFee, type FeeSchedule } from '../../src/domain/fees';
import type { Refund, RefundType } from '../../src/domain/refund';
import { toRefundRecord } from '../../src/contract/records/refund-record';
import type { Country, OperatorCode } from '../../src/domain/operators';
import type { SandboxScenario, Transaction } from '../../src/domain/transaction';
import type { EventType } from '../../src/events/catalogue';
import type { RecordEventInput } from '../../src/events/event-store';
import { missingRecord } from '../../src/temporal/permanent-errors';

/**
 * What the payin workflow's refund handler tells the activity that debits the merchant and stores
 * the refund. Declared here, beside its activity: workflows import activity types, never the reverse.
 */
export interface OpenRefundInput {
  refundId: string;
  transactionRef: string;
  payinId: string;
  externalReference: string;
  reason: string;
  /** Integer minor units, decided by the payin workflow. */
  amount: number;
  refundType: RefundType;
  operator: OperatorCode;
  country: Country;
  sandboxScenario: SandboxScenario | null;
  idempotencyKey: string | null;
  /** RefundAsk.requestFingerprint, stored on the refund; absent in older histories. */
  requestFingerprint?: string | null;
  /** RefundAsk.withMetadata: false, the API kept none for this refund (nothing to read); absent, read. */
  withMetadata?: boolean;
  apiKey: string | null;
  requestedAt: string;
  workflowId: string;
}

/** What a payin's refund desk (workflows/refund/payin-refund-desk.ts) reads when it opens. */
export interface RefundDeskFacts {
  payin: {
    merchantId: string;
    transactionId: string;
    reference: string;
    /** Integer minor units: what the refunds of this payin may add up to (what the customer paid). */
    amount: number;
    currency: string;
    operator: OperatorCode;
    country: Country;
    /** Refundable: the payin succeeded, and its window is open for this many ms more (null: none). */
    success: boolean;
    refundableForMs: number | null;
  };
  /** Its refunds so far; every one not reversed keeps its amount reserved. */
  refunds: {
    refundId: string;
    externalReference: string;
    idempotencyKey: string | null;
    amount: number;
    reversed: boolean;
  }[];
  /** The payin record's last state write: the desk numbers its own writes on from it. */
  seq: number;
}

export interface RefundActivityDeps {
  transactions: TransactionStore;
  refunds: RefundStore;
  refundAudit: RefundAuditLog;
  ledger: Ledger;
  operators: OperatorGateway;
  refundFees: FeeSchedule;
}

/**
 * Activities of refunds. Each is idempotent: ledger movements have fixed sourceRefs
 * (src/ledger/postings.ts), the record is inserted by id, and audit steps are unique per (refund, step).
 */
export function createRefundActivities(deps: RefundActivityDeps) {
  const { transactions, refunds, refundAudit, ledger, operators } = deps;

  // A succeeded payin's identity (merchant, reference, currency, country, provider, customer) never
  // changes: the desk's read serves the openRefund that follows it in this worker, and failRefund.
  const settledPayins = new Map<string, Transaction>();
  const remember = (payin: Transaction) => {
    if (payin.status !== 'success' || !payin.provider) return;
    if (settledPayins.size >= 10_000) settledPayins.delete(settledPayins.keys().next().value!);
    settledPayins.set(payin.id, payin);
  };
  const settledPayin = async (payinId: string): Promise<Transaction | null> => {
    const known = settledPayins.get(payinId);
    if (known) return known;
    const payin = await transactions.findById(payinId);
    if (payin) remember(payin);
    return payin;
  };

  const requireRefund = async (refundId: string): Promise<Refund> => {
    const refund = await refunds.findById(refundId);
    if (!refund) throw missingRecord(`refund ${refundId} not found`);
    return refund;
  };
  /**
   * The refund's fields fixed at creation, for a step that uses only those before its own versioned
   * write (the ledger's postings, the audit): from this process's memory of it, else the document
   * alone. The write, once applied, leaves the refund as it wrote it for the event after it.
   */
  const requireFixed = async (refundId: string): Promise<Refund> => {
    const refund = await refunds.fixedOf(refundId);
    if (!refund) throw missingRecord(`refund ${refundId} not found`);
    return refund;
  };
  const audit = (r: Refund, action: 'refund.completed' | 'refund.failed' | 'refund.reversed') =>
    refundAudit.append({
      action,
      actor: 'system',
      merchantId: r.merchantId,
      apiKey: null,
      idempotencyKey: null,
      payinReference: r.payinReference,
      refundId: r.id,
      externalReference: r.externalReference,
      amount: r.amount + r.fee,
      outcome: action.slice('refund.'.length),
      stepKey: `${r.id}:${action}`,
    });

  return {
    /** The payin and its refunds as stored, read by its refund desk when it opens (refunds are never deleted). */
    async openRefundDesk(payinId: string): Promise<RefundDeskFacts> {
      // The state and the seq of its last write: the document, then the versions after it; or, when
      // this process knows the state after write `k` (its previous desk's list write), the versions
      // after `k` alone.
      const read = await transactions.latestWithSeq(payinId);
      const payin = read?.transaction;
      if (!read || !payin || payin.kind !== 'payin' || !payin.provider)
        throw missingRecord(`payin ${payinId} not found`);
      remember(payin);
      const { seq } = read;
      const known = await refunds.reservationsOf(payin);
      return {
        payin: {
          merchantId: payin.merchantId,
          transactionId: payin.id,
          reference: payin.reference,
          // What the operator collected (payFee false: amount + fee), as the payin's workflow had it.
          amount: payin.chargedAmount,
          currency: payin.currency,
          operator: payin.provider.split('_')[0] as OperatorCode,
          country: payin.country,
          success: payin.status === 'success',
          // Time left by the clock the API checks the window with; the desk adds it to its own.
          refundableForMs: payin.refundableUntil
            ? new Date(payin.refundableUntil).getTime() - Date.now()
            : null,
        },
        refunds: known.map((r) => ({
          refundId: r.id,
          externalReference: r.externalReference,
          idempotencyKey: r.idempotencyKey,
          amount: r.amount,
          reversed: r.status === 'reversed',
        })),
        seq,
      };
    },

    /**
     * Debits the merchant (amount + refund fee) and stores the refund `processing`. The debit comes
     * first: a refund the balance cannot cover leaves no record (the ledger's non-retryable InsufficientFundsError).
     */
    async openRefund(input: OpenRefundInput): Promise<{ fee: number }> {
      // Only identity fields of the payin are used here: its desk's read of them serves.
      const payin = await settledPayin(input.payinId);
      if (!payin) throw missingRecord(`payin ${input.payinId} not found`);
      const fee = computeFee(
        'refund',
        input.operator,
        input.country,
        input.amount,
        payin.currency,
        deps.refundFees,
      );
      await debitOrRefuse(() =>
        debitRefund(ledger, {
          id: input.refundId,
          merchantId: payin.merchantId,
          currency: payin.currency,
          amount: input.amount,
          fee,
          externalReference: input.externalReference,
          payinReference: payin.reference,
        }),
      );
      const now = new Date();
      const metadata = input.withMetadata === false ? undefined : await refunds.metadataFor(input.refundId);
      const stored = await refunds.insertOrGet(
        {
          ...(metadata ? { metadata } : {}),
          id: input.refundId,
          transactionRef: input.transactionRef,
          merchantId: payin.merchantId,
          payinId: payin.id,
          payinReference: payin.reference,
          externalReference: input.externalReference,
          reason: input.reason,
          amount: input.amount,
          fee,
          currency: payin.currency,
          refundType: input.refundType,
          status: 'processing',
          transactionStatus: 'pending',
          processedAt: null,
          customerMsisdn: payin.customer.phoneNumber,
          customerName: payin.customer.name,
          sandboxScenario: input.sandboxScenario,
          failure: null,
          idempotencyKey: input.idempotencyKey,
          requestFingerprint: input.requestFingerprint ?? null,
          apiKey: input.apiKey,
          workflowId: input.workflowId,
          createdAt: new Date(input.requestedAt),
          updatedAt: now,
        },
        { country: payin.country, provider: payin.provider },
      );
      await refundAudit.append({
        action: 'refund.debited',
        actor: 'system',
        merchantId: payin.merchantId,
        apiKey: input.apiKey,
        idempotencyKey: input.idempotencyKey,
        payinReference: payin.reference,
        refundId: input.refundId,
        externalReference: input.externalReference,
        amount: input.amount + fee,
        outcome: 'debited',
        stepKey: `${input.refundId}:refund.debited`,
      });
      return { fee: stored.fee };
    },

    /**
     * Writes the payin's list of its refunds (reads fetch them by `_id`). The payin's workflow runs
     * one at a time with every refund it opened so far, so the list only grows (FerretDB's updates
     * are read-then-write: concurrent writers would lose ids). A payin stored before the list
     * existed gets the refunds it already had listed first. With `seq` (the payin workflow's count of
     * its state writes) it is write `seq` of TransactionStore.applyState: a late attempt's shorter
     * list never lands over a longer one. Histories from before it replay without one.
     */
    async listPayinRefunds(payinId: string, refundIds: string[], seq?: number): Promise<void> {
      // The list as the previous write left it, when this process made that write: write `seq`
      // applies on top of exactly that state or not at all (its version's insert decides).
      const before = seq === undefined ? undefined : transactions.knownAfter(payinId, seq - 1, 'refundIds');
      if (Array.isArray(before) && before.every((id) => typeof id === 'string')) {
        const listed = { refundIds: [...before, ...refundIds.filter((id) => !before.includes(id))] };
        await transactions.applyState(payinId, seq!, listed);
        return;
      }
      const payin = await transactions.findById(payinId);
      if (!payin) throw missingRecord(`payin ${payinId} not found`);
      const earlier =
        payin.refundIds ?? (await refunds.searchOfPayin(payin.merchantId, payin.id)).map((r) => r.id);
      const listed = { refundIds: [...earlier, ...refundIds.filter((id) => !earlier.includes(id))] };
      if (seq === undefined) await transactions.update(payinId, listed);
      else await transactions.applyState(payinId, seq, listed);
    },

    /** Asks the operator to credit the customer; our refund id is its idempotency key. */
    async requestRefund(req: RefundRequest): Promise<OperatorStatus> {
      return operators.refund(req);
    },

    async readRefundStatus(
      refundId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<OperatorStatus> {
      return operators.refundStatus(refundId, operator, country);
    },

    /** The customer was credited: the refund fee (if any) leaves clearing for the fees account. */
    async completeRefund(refundId: string, processedAt: string): Promise<void> {
      const r = await requireFixed(refundId);
      await settleRefundFee(ledger, r);
      await refunds.advance(r.id, {
        status: 'completed',
        transactionStatus: 'completed',
        processedAt: new Date(processedAt),
      });
      await audit(r, 'refund.completed');
    },

    async failRefund(
      refundId: string,
      failure: { code: string; message: string },
      processedAt: string,
    ): Promise<void> {
      const r = await requireFixed(refundId);
      const provider = (await settledPayin(r.payinId))?.provider ?? null;
      await refunds.advance(r.id, {
        status: 'failed',
        transactionStatus: 'failed',
        processedAt: new Date(processedAt),
        failure: { code: failure.code, message: failure.message, provider },
      });
      await audit(r, 'refund.failed');
    },

    /** Credits the merchant back what was debited for a failed refund, once; the refund ends `reversed`. */
    async reverseRefund(refundId: string): Promise<void> {
      const r = await requireFixed(refundId);
      await reverseRefund(ledger, r);
      await refunds.advance(r.id, { status: 'reversed' });
      await audit(r, 'refund.reversed');
    },

    /** The event of a refund state change; its data is the refund record as GET /v1/refunds/{reference} shows it. */
    async refundEventInput(refundId: string, type: EventType): Promise<RecordEventInput> {
      // `refund.processing` carries the refund as it was stored `processing`: first recorded before
      // the operator is asked (announceAndRequestRefund), so before any answer is written, and a
      // repeat is a no-op by its emission key. When this process stored it, nothing is read.
      const r =
        (type === 'refund.processing' ? refunds.asCreated(refundId) : null) ??
        (await requireRefund(refundId));
      return {
        merchantId: r.merchantId,
        type,
        subjectId: r.id,
        reference: r.payinReference,
        data: toRefundRecord(r),
      };
    },
  };
}
