import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

// A typed client of the API, from the same OpenAPI document the service serves: paths, bodies
// and answers are checked by the compiler. Sets the credentials and an idempotency key per POST.

export type { components, paths };
export type TransactionRecord = components['schemas']['TransactionRecord'];
export type RefundRecord = components['schemas']['RefundRecord'];
export type Problem = components['schemas']['Problem'];

export interface PaymentsClientOptions {
  baseUrl: string;
  apiKey: string;
  apiClient: string;
  /** `en` (default) or `fr`: the language of error messages. */
  language?: 'en' | 'fr';
  fetch?: typeof fetch;
}

export function createPaymentsClient(opts: PaymentsClientOptions): Client<paths> {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl,
    headers: {
      Authorization: `Basic ${Buffer.from(`${opts.apiKey}:${opts.apiClient}`).toString('base64')}`,
      ...(opts.language ? { 'Accept-Language': opts.language } : {}),
    },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  client.use({
    onRequest({ request }) {
      // A retry must reuse the key: pass your own X-Idempotency-Key to retry a POST safely.
      if (request.method === 'POST' && !request.headers.has('x-idempotency-key'))
        request.headers.set('X-Idempotency-Key', crypto.randomUUID());
      return request;
    },
  });
  return client;
}
