import { z } from 'zod';
import { fieldMessages } from '../field-messages';
import { matches } from '../zod-messages';
import { countries, operatorCodes } from '../../domain/operators';
import { sandboxScenarios } from '../../domain/transaction';
import { currencies, type MajorAmount } from '../../domain/money';
import { validNumberPattern } from '../../domain/msisdn';
import {
  METADATA_KEY_MAX,
  METADATA_MAX_KEYS,
  METADATA_VALUE_MAX,
  type Metadata,
  METADATA_KEY_PATTERN,
} from '../../domain/metadata';

// Shared request and response building blocks; the single source of validation and types.
export const reference = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .check(matches(/^[A-Za-z0-9._:-]+$/, fieldMessages.referenceCharacters));
export const country = z.enum(countries);
export const provider = z.enum(operatorCodes);
export const sandboxScenario = z.enum(sandboxScenarios);
export const currency = z.enum(currencies);
/**
 * International format, validated per country by libphonenumber-js in the service (localized
 * messages); the document states that rule exactly, as a pattern of every valid CI and CM number.
 */
export const msisdn = z
  .string()
  .trim()
  .check(matches(/^\+[1-9]\d{6,14}$/, fieldMessages.internationalNumber('+2250700000001')))
  .meta({ pattern: validNumberPattern() });
/** Whole units: amounts of XOF and XAF have no decimals. Parsed as MajorAmount (what merchants send),
 * so a service must go through toMinor before the ledger or the fees take it. */
export const wholeAmount: z.ZodType<MajorAmount, number> = z.number().int().positive().max(100_000_000);
/** The checkout page navigates to these: only web addresses, never javascript: or data: URLs. */
const redirectUrl = z.url({ protocol: /^https?$/ });
export const action = z.strictObject({ successUrl: redirectUrl, failureUrl: redirectUrl });
export const customerName = z.string().trim().min(1).max(100);
/** A list's page: how many items (20 unless asked, at most 100) and the cursor the previous page gave. */
export const pageLimit = z.coerce.number().int().min(1).max(100).default(20);
export const pageCursor = z.string().max(500).optional();
/** Why a transaction or a refund failed, as its public record shows it (null while none did). */
export const failureRecord = z.object({
  code: z.string(),
  message: z.string(),
  provider: z.string().nullable(),
});
/**
 * The merchant's own pairs on a creation (payins, sessions, payouts, refunds): at most 10, keys of
 * 1 to 40 letters, digits, `_` or `-` (what a query string's `metadata[key]` and a database field
 * name both take as is), string values up to 200. A bad pair answers 400 at `metadata.<key>`.
 */
export const metadata: z.ZodType<Metadata, Metadata> = z
  .record(
    z
      .string()
      .min(1)
      .max(METADATA_KEY_MAX)
      .check(matches(METADATA_KEY_PATTERN, fieldMessages.metadataKey(METADATA_KEY_MAX))),
    z.string().max(METADATA_VALUE_MAX),
  )
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, {
    params: fieldMessages.tooManyKeys(METADATA_MAX_KEYS),
  });

/**
 * Who bears a payin's fee: true, the merchant (the customer pays `amount`, the merchant gets
 * amount - fee); false, the customer (charged amount + fee, the merchant gets `amount`). Absent: the
 * merchant's setting, true unless changed (docs/fees.md).
 */
export const payFee = z.boolean();
