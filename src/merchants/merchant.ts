import { z } from 'zod';

// A merchant is the tenant every API call is scoped to; its credentials say who is calling.

export const merchantStatuses = ['active', 'suspended'] as const;
export type MerchantStatus = (typeof merchantStatuses)[number];

export const merchantIdSchema = z
  .string()
  .regex(/^mer_[0-9a-f]{24}$/, { error: 'not a merchant id (mer_...)' });

export const merchantNameSchema = z
  .string()
  .trim()
  .min(1, { error: 'the name is empty' })
  .max(200, { error: 'the name is longer than 200 characters' });

export const merchantSettingsSchema = z.strictObject({
  /** How long after success a payin stays refundable; the interface gives 7 days as its example. */
  refundWindowDays: z.number().int().min(0).max(365).default(7),
  /** Who pays payin fees when a request does not say: true, the merchant (docs/fees.md). */
  payFee: z.boolean().default(true),
});
export type MerchantSettings = z.infer<typeof merchantSettingsSchema>;

export interface Merchant {
  id: string;
  name: string;
  status: MerchantStatus;
  settings: MerchantSettings;
  createdAt: Date;
  updatedAt: Date;
}

export const credentialStatuses = ['active', 'revoked'] as const;
export type CredentialStatus = (typeof credentialStatuses)[number];

/** One api_key/api_client pair. Only the secret's hash is stored; the secret is shown once. */
export interface ApiCredential {
  apiKey: string;
  merchantId: string;
  secretHash: string;
  status: CredentialStatus;
  createdAt: Date;
  revokedAt: Date | null;
  /** Not stored on the credential (see store.ts, KeyUsage): merged in when keys are listed. */
  lastUsedAt: Date | null;
}

/** What issuing credentials answers, the only time the secret (api_client) is ever visible. */
export interface IssuedCredentials {
  merchantId: string;
  apiKey: string;
  apiClient: string;
}

export class MerchantNotFoundError extends Error {
  constructor(readonly merchantId: string) {
    super(`no merchant ${merchantId}`);
  }
}

export class ApiKeyNotFoundError extends Error {
  constructor(readonly apiKey: string) {
    super(`no api key ${apiKey}`);
  }
}
