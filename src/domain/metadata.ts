// A merchant's own data on a transaction, refund or payout: a few short string pairs it searches by
// (GET /v1/transactions?metadata[key]=value) and reads back in records, events and statements. It is
// the merchant's, may be personal, and so never enters a workflow's input or a log line.

/** At most this many pairs, keys and values of at most these lengths (Stripe's limits, made smaller). */
export const METADATA_MAX_KEYS = 10;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 200;
/** Keys a query string and a database field name both take as they are. */
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9_-]+$/;

export type Metadata = Record<string, string>;
