import { Context } from '@temporalio/activity';
import type { CollectionRequest, OperatorGateway, OperatorStatus } from '../../src/operators/gateway';
import type { OtpStore } from '../../src/persistence/otp-store';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { Transaction } from '../../src/domain/transaction';
import { providerName, type Country, type OperatorCode } from '../../src/domain/operators';
import type { Ledger } from '../../src/ledger';
import { missingRecord } from '../../src/temporal/permanent-errors';
import { creditPayin } from '../../src/ledger/postings';

export interface PayinActivityDeps {
  transactions: TransactionStore;
  operators: OperatorGateway;
  ledger: Ledger;
  /** Stored OTPs (src/persistence/otp-store.ts): workflows carry their ids only. */
  otps: OtpStore;
}

/**
 * A collection as the payin workflow carries it: the operator's request with, for an OTP, the id of
 * the stored OTP (read just before calling the operator); never the OTP itself.
 */
export interface PayinCollection extends CollectionRequest {
  otpId?: string;
}

/** The stored OTP is gone (expired or deleted) and the operator was never asked: nothing can be collected. */
export const OTP_EXPIRED = 'OTP_EXPIRED';

/** The fields of a payin its workflow may change; everything else is fixed at creation. */
export type PayinStateUpdate = Partial<
  Pick<Transaction, 'status' | 'confirmationStatus' | 'failure' | 'provider' | 'paymentUrl' | 'attention'>
> & {
  customerPhone?: string;
  /** ISO 8601 (workflow time): the end of the refund window, set with the success. */
  refundableUntil?: string;
};

/** Activities of the payin workflow. Each is idempotent: a retry or a replay changes nothing twice. */
export function createPayinActivities({ transactions, operators, ledger, otps }: PayinActivityDeps) {
  return {
    /**
     * Asks the operator to push a payment request; our transaction id is its idempotency key. An OTP
     * comes from the store by its id (never in history). The OTP gone (expired, or deleted by the
     * workflow's timer): if the operator was never asked (the workflow's first send, first attempt),
     * the payin cannot be authorised, a definitive `OTP_EXPIRED`, as the operator itself would refuse
     * it; otherwise an earlier attempt may have reached the operator, so ask again without it: the
     * operator answers for the id it holds, or refuses the request for want of an OTP.
     */
    async requestCollection(
      req: PayinCollection,
      opts: { sentBefore?: boolean; pendingSeq?: number; recordsCustomer?: boolean } = {},
    ): Promise<OperatorStatus> {
      const { otpId, ...request } = req;
      // Merged write: the record says `pending` before we ask; a session's with the provider and
      // phone its customer chose.
      if (opts.pendingSeq !== undefined)
        await transactions.applyState(req.transactionId, opts.pendingSeq, {
          confirmationStatus: 'pending',
          ...(opts.recordsCustomer
            ? { provider: providerName(req.operator, req.country), 'customer.phoneNumber': req.msisdn }
            : {}),
        });
      if (otpId === undefined) return operators.requestCollection(request);
      const otp = await otps.read(otpId);
      if (otp !== null) return operators.requestCollection({ ...request, otp });
      if (!opts.sentBefore && Context.current().info.attempt === 1) {
        return {
          outcome: 'failed',
          operatorReference: '',
          failure: { code: OTP_EXPIRED, message: 'The OTP expired before the operator was asked' },
        };
      }
      return operators.requestCollection(request);
    },

    /** Deletes a stored OTP (used, or its lifetime over); an OTP already gone is fine. */
    async forgetOtp(otpId: string): Promise<void> {
      await otps.forget(otpId);
    },

    async readCollectionStatus(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<OperatorStatus> {
      return operators.collectionStatus(transactionId, operator, country);
    },

    /** Asks the operator's partner whether the funds of a failed collection were collected after all. */
    async partnerCheck(
      transactionId: string,
      operator: OperatorCode,
      country: Country,
    ): Promise<{ collected: boolean; operatorReference?: string }> {
      return operators.partnerCheck(transactionId, operator, country);
    },

    /**
     * Records the workflow's view of the payin; setting the same state twice is harmless. `seq` (the
     * workflow's count of its state writes) makes it write `seq` of TransactionStore.applyState: a late
     * attempt never lands over a later write. Histories from before it replay without one.
     */
    async recordPayinState(transactionId: string, update: PayinStateUpdate, seq?: number): Promise<void> {
      const { customerPhone, refundableUntil, ...fields } = update;
      const changes = {
        ...fields,
        ...(customerPhone ? { 'customer.phoneNumber': customerPhone } : {}),
        ...(refundableUntil ? { refundableUntil: new Date(refundableUntil) } : {}),
      };
      if (seq === undefined) await transactions.update(transactionId, changes);
      else await transactions.applyState(transactionId, seq, changes);
    },

    /**
     * Credits the merchant for a collected payin: the net amount to its main account and the fee to
     * the fees account, both from operator clearing. Each movement has its own sourceRef, so a
     * retried or replayed credit never applies twice.
     */
    async creditMerchantForPayin(transactionId: string): Promise<{ credited: number; fee: number }> {
      const tx = await transactions.findById(transactionId);
      if (!tx) throw missingRecord(`payin ${transactionId} not found`);
      return creditPayin(ledger, tx);
    },
  };
}
