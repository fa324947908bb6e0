import type { Country, ProviderName } from './operators';
import type { Currency } from './money';

// The lifecycle of a payin or payout as the service stores it.
export const transactionKinds = ['payin', 'payout'] as const;
export type TransactionKind = (typeof transactionKinds)[number];

export const sandboxScenarios = ['completed', 'failed', 'pending'] as const;
export type SandboxScenario = (typeof sandboxScenarios)[number];

export type TransactionStatus =
  'pending' | 'processing' | 'processed' | 'success' | 'completed' | 'failed' | 'reversed' | 'expired';

export type ConfirmationStatus = 'none' | 'pending' | 'accepted' | 'declined';

export interface Failure {
  code: string;
  message: string;
  provider: ProviderName | null;
}

export interface Transaction {
  id: string;
  merchantId: string;
  kind: TransactionKind;
  reference: string;
  flow: 'direct' | 'session';
  status: TransactionStatus;
  confirmationRequired: boolean;
  confirmationStatus: ConfirmationStatus;
  paymentUrl: string | null;
  customer: { name: string; phoneNumber: string };
  country: Country;
  provider: ProviderName | null;
  currency: Currency;
  /** Integer minor units. */
  amount: number;
  fee: number;
  chargedAmount: number;
  payFee: boolean;
  sandboxScenario: 'completed' | 'failed' | 'pending' | null;
  failure: Failure | null;
  /** Where the checkout page sends the customer once the payin ends (the merchant's action URLs). */
  action?: { successUrl: string; failureUrl: string };
  workflowId: string;
  /** X-Idempotency-Key of the request that created it: its retry gets it back, another key a 409. */
  idempotencyKey?: string | null;
  createdAt: Date;
  updatedAt: Date;
}
