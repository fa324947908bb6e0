import type { Country, OperatorCode } from '../domain/operators';
import type { SandboxScenario } from '../domain/transaction';

// The one boundary between activities and mobile-money operators. The sandbox implements it
// today; real operators' adapters slot in behind the same interface.

export type OperatorOutcome = 'completed' | 'failed' | 'pending';

export interface CollectionRequest {
  /** Our transaction id: the operator's idempotency key, so a retried request collects once. */
  transactionId: string;
  operator: OperatorCode;
  country: Country;
  msisdn: string;
  /** Integer minor units. */
  amount: number;
  currency: string;
  otp?: string;
  sandboxScenario: SandboxScenario | null;
}

export interface OperatorStatus {
  outcome: OperatorOutcome;
  operatorReference: string;
  failure?: { code: string; message: string };
}

export interface OperatorGateway {
  requestCollection(req: CollectionRequest): Promise<OperatorStatus>;
  collectionStatus(transactionId: string): Promise<OperatorStatus>;
}
