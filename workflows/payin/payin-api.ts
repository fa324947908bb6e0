import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ConfirmationStatus, Failure, TransactionStatus } from '../../src/domain/transaction';
import type { Country, OperatorCode } from '../../src/domain/operators';
import type { SandboxScenario } from '../../src/domain/transaction';
import type { PayinCollection } from '../../activities/payin/payin-activities';
import type { AskState } from '../shared/ask-operator';

export type { PayinCollection } from '../../activities/payin/payin-activities';

// The messages a payin workflow answers: shared by the workflow, the API and the checkout page.

export interface PayinState {
  status: TransactionStatus;
  confirmationStatus: ConfirmationStatus;
  failure: Failure | null;
  /** Session flow: the customer may still confirm or decline. */
  awaitingCustomer: boolean;
  /** Operator's redirect (WAVE) or USSD hint, once the collection was requested. */
  paymentUrl: string | null;
  ussdCode: string | null;
}

export const payinStateQuery = defineQuery<PayinState>('payinState');

/** What the customer chose on the hosted checkout page. */
export interface SessionConfirmation {
  provider: OperatorCode;
  /** E.164, already validated for the session's country. */
  msisdn: string;
  /** The customer's OTP, stored sealed by the API (src/persistence/otp-store.ts): never the OTP itself. */
  otpId?: string;
}

/** Accepted only while the session awaits the customer; the collection then runs in the same workflow. */
export const confirmSessionUpdate = defineUpdate<PayinState, [SessionConfirmation]>('confirmSession');
export const declineSessionUpdate = defineUpdate<PayinState, []>('declineSession');

/** How a payin workflow is started (direct flow: collection set; session flow: null until confirmed). */
export interface PayinWorkflowInput {
  transactionId: string;
  merchantId: string;
  reference: string;
  flow: 'direct' | 'session';
  country: Country;
  currency: string;
  /** Integer minor units. */
  amount: number;
  sandboxScenario: SandboxScenario | null;
  collection: PayinCollection | null;
  timing: {
    /** The customer must answer the operator's push within this. */
    expiryMs: number;
    /** A session nobody confirms or declines expires after this. */
    sessionExpiryMs: number;
    /** After an ambiguous failure, the partner check runs until this long after it (48 hours). */
    correctionWindowMs: number;
    /** First partner check this long after the failure, then doubling, capped at 24 times it. Absent: 5 min. */
    partnerCheckIntervalMs?: number;
    /** After success the payin stays refundable this long (a date on its record, read by its refund desk). */
    refundWindowMs: number;
    /** Status reads in one run before continuing as new (tests lower it). */
    readsPerRun?: number;
    /** OTP_LIFETIME: the workflow deletes a stored OTP this long after it got its id. Absent: 5 min. */
    otpLifetimeMs?: number;
    /** PAYIN_LOCAL_ACTIVITIES: false runs the operator calls as regular activities only. Absent: true. */
    localActivities?: boolean;
  };
  /** Set when the workflow continued as new while asking the operator. */
  resume?: PayinResume;
}

/** Where a payin stood when its workflow continued as new (always before the operator's answer). */
export interface PayinResume {
  ask: AskState;
  /** Workflow time (ms) of the customer's deadline, fixed by the first run. */
  deadline: number;
  /** Last sequence number of a state write (monotonic writes). */
  seq: number;
  /** The collection asked (for a session, what the customer chose). */
  collection: PayinCollection;
  state: PayinState;
  /** Workflow time (ms) at which the stored OTP is deleted, if the previous run had not yet deleted it. */
  otpForgetAt?: number;
}

/**
 * Returns once the operator answered the collection request (or the payin ended), so the API can
 * hand the merchant what the operator gave: WAVE's redirect address in `paymentUrl`.
 */
export const operatorAnswerUpdate = defineUpdate<PayinState, []>('operatorAnswer');
