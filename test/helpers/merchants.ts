import { randomBytes } from 'node:crypto';
import type { Credentials } from './http';
import type { TestStack } from './stack';

// Every test that needs a caller gets a fresh merchant through this one helper, so tests stay
// isolated from each other and from how credentials are issued.
export interface TestMerchant {
  merchantId: string;
  credentials: Credentials;
}

export async function createTestMerchant(_stack: TestStack, name = 'Test merchant'): Promise<TestMerchant> {
  void name;
  // Placeholder until merchant credentials exist: the api_key names the merchant.
  const apiKey = `mk_${randomBytes(6).toString('hex')}`;
  return { merchantId: apiKey, credentials: { apiKey, apiClient: 'secret' } };
}
