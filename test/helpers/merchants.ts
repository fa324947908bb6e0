import { Ledger } from '../../src/ledger';
import { fundFromSandbox } from '../../src/ledger/postings';
import { MerchantService } from '../../src/merchants';
import { scopeOf } from '../../src/domain/modes';
import type { Credentials } from './http';
import type { TestStack } from './stack';

// Every test that needs a caller gets a fresh merchant through this one helper, so tests stay
// isolated from each other and from how credentials are issued.
export interface TestMerchant {
  /** The merchant's test-mode scope (`mer_…_test`), which every store is keyed by for test keys. */
  merchantId: string;
  credentials: Credentials;
  /** The same merchant's live pair (its data is under the bare `mer_…` id). */
  live: { merchantId: string; credentials: Credentials };
}

/** A real merchant, issued by the merchant service in the stack's database, with its real credentials. */
export async function createTestMerchant(stack: TestStack, name = 'Test merchant'): Promise<TestMerchant> {
  const merchants = MerchantService.on(stack.mongo);
  await merchants.init();
  const { merchantId, apiKey, apiClient, live } = await merchants.createMerchant(name);
  return {
    merchantId: scopeOf(merchantId, 'test'),
    credentials: { apiKey, apiClient },
    live: { merchantId, credentials: { apiKey: live.apiKey, apiClient: live.apiClient } },
  };
}

/** Credits a merchant's main account from the sandbox funding account (what `accounts fund` does). */
export async function fundMerchant(
  stack: Pick<TestStack, 'mongo'>,
  merchantId: string,
  amount = 100_000,
  currency: 'XOF' | 'XAF' = 'XOF',
): Promise<void> {
  await fundFromSandbox(Ledger.on(stack.mongo), { merchantId, currency, amount, reason: 'test funding' });
}
