import type { PayinWorkflowInput } from '../../workflows/payin/payin-api';
import type { Transaction } from '../../src/domain/transaction';

/** The input of a direct MTN CI payin of 1,000 XOF, for tests that start its workflow themselves. */
export function directPayinInput(p: {
  id: string;
  merchantId: string;
  reference: string;
  refundWindowMs: number;
}): PayinWorkflowInput {
  const { id, refundWindowMs } = p;
  return {
    transactionId: id,
    merchantId: p.merchantId,
    reference: p.reference,
    flow: 'direct',
    country: 'CI',
    currency: 'XOF',
    amount: 1000,
    sandboxScenario: 'completed',
    collection: {
      transactionId: id,
      operator: 'MTN',
      country: 'CI',
      msisdn: '+2250500000001',
      amount: 1000,
      currency: 'XOF',
      sandboxScenario: 'completed',
    },
    timing: {
      expiryMs: 15 * 60_000,
      sessionExpiryMs: 30 * 60_000,
      correctionWindowMs: 48 * 3_600_000,
      refundWindowMs,
    },
  };
}

/** The stored document of that payin (MTN CI, 1,000 XOF, processing), for tests that write it themselves. */
export function storedDirectPayin(p: {
  id: string;
  merchantId: string;
  reference: string;
  workflowId: string;
}): Transaction {
  const now = new Date();
  return {
    ...p,
    kind: 'payin',
    flow: 'direct',
    status: 'processing',
    confirmationRequired: true,
    confirmationStatus: 'none',
    paymentUrl: null,
    customer: { name: 'Test', phoneNumber: '+2250500000001' },
    country: 'CI',
    provider: 'MTN_CI',
    currency: 'XOF',
    amount: 1000,
    fee: 15,
    chargedAmount: 1000,
    payFee: true,
    sandboxScenario: 'completed',
    failure: null,
    createdAt: now,
    updatedAt: now,
  };
}
