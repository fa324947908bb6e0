import { z } from 'zod';
import { defineOperations } from '../registry';
import { liveness, readiness } from '../../../contract/schemas/health';
import {
  checkoutAnswerForm,
  checkoutConfirmRequest,
  checkoutDeclineRequest,
  checkoutState,
} from '../../../contract/schemas/checkout';
import { operatorCallbackBody } from '../../../operators/wire';

// Routes outside the merchant API: health, the hosted checkout page's calls, operator callbacks,
// and the service's own documentation and metrics.

const sessionId = { id: { description: 'The payin session id (pr_…), from its paymentUrl' } };
const stateExample = {
  id: 'pr_0a1b2c3d4e5f60718293a4b5',
  status: 'processing',
  confirmationStatus: 'accepted',
  failure: null,
  awaitingCustomer: false,
  paymentUrl: null,
  ussdCode: '*133#',
  final: false,
  redirectUrl: null,
};

defineOperations(
  {
    method: 'get',
    path: '/health/live',
    operationId: 'liveness',
    summary: 'Liveness',
    tag: 'Operations',
    auth: false,
    responses: {
      200: {
        description: 'The process serves',
        name: 'Liveness',
        schema: liveness,
        example: { status: 'ok' },
      },
    },
  },
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'readiness',
    summary: 'Readiness',
    description:
      'MongoDB and Temporal answer. Which one fails (`checks`) only to a caller on the same host or with `Authorization: Bearer <METRICS_TOKEN>`.',
    tag: 'Operations',
    auth: false,
    responses: {
      200: { description: 'Ready', name: 'Readiness', schema: readiness },
      503: { description: 'A dependency does not answer', name: 'Readiness', schema: readiness },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'Text exposition format: HTTP, transactions, webhooks, ledger, and the Temporal worker (docs/operations.md). ' +
      'Only to a caller on the same host or with `Authorization: Bearer <METRICS_TOKEN>`; 404 to anyone else.',
    tag: 'Operations',
    auth: false,
    responses: { 200: { description: 'Metrics', contentType: 'text/plain', schema: z.string() } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapiDocument',
    summary: 'This OpenAPI document',
    tag: 'Operations',
    auth: false,
    responses: {
      200: { description: 'The OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) },
    },
  },
  {
    method: 'get',
    path: '/checkout/{id}',
    operationId: 'checkoutPage',
    summary: 'Hosted checkout page of a payin session',
    description:
      'The HTML page `paymentUrl` opens (`?lang=en|fr`). No merchant credentials: the link is the capability. ' +
      'Every /checkout call counts against CHECKOUT_REQUESTS_PER_MINUTE (300) per client address.',
    tag: 'Checkout',
    auth: false,
    pathParams: sessionId,
    query: z.object({
      lang: z.enum(['en', 'fr']).optional(),
      answered: z
        .enum(['1'])
        .optional()
        .describe(
          'Set by the redirect after a form answered without JavaScript: the form stays closed while the stored record catches up.',
        ),
    }),
    responses: {
      200: { description: 'The page', contentType: 'text/html', schema: z.string() },
      404: {
        description: 'A page saying the link is not valid (to a browser)',
        contentType: 'text/html',
        schema: z.string(),
      },
    },
    errors: ['SESSION_NOT_FOUND', 'RATE_LIMITED'],
  },
  {
    method: 'post',
    path: '/checkout/{id}',
    operationId: 'checkoutAnswerForm',
    summary: "The checkout page's form, posted without JavaScript",
    description:
      'What a browser without JavaScript sends when the customer presses Confirm or Decline (`answer`). Taken: ' +
      '303 to the page (`?answered=1`), which reloads itself until the payment is final and then leaves for the ' +
      "merchant's URL, or to the operator's own page (WAVE). Refused (a field, a closed session): the page again, " +
      'its errors in place. A form another site posts (`Sec-Fetch-Site` other than `same-origin`) is refused with ' +
      'the page (403). Counts against the same 20 answers a minute per session and client address as confirm and decline.',
    tag: 'Checkout',
    auth: false,
    pathParams: sessionId,
    query: z.object({ lang: z.enum(['en', 'fr']).optional() }),
    body: {
      schemas: [{ name: 'CheckoutAnswerForm', schema: checkoutAnswerForm }],
      contentType: 'application/x-www-form-urlencoded',
      example: { answer: 'confirm', provider: 'MTN', msisdn: '+225 05 00 00 00 01' },
    },
    responses: {
      303: {
        description: "The answer was taken: the page (or the operator's) is at `Location`",
        headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } },
      },
      400: {
        description:
          'The page again, the fields at fault marked, or the operator refusing the payment as chosen',
        contentType: 'text/html',
        schema: z.string(),
      },
      403: {
        description: 'The page, refusing a form posted from another site',
        contentType: 'text/html',
        schema: z.string(),
      },
      409: {
        description: 'The page: the session no longer takes an answer',
        contentType: 'text/html',
        schema: z.string(),
      },
      503: {
        description: 'The page: the provider is unavailable',
        contentType: 'text/html',
        schema: z.string(),
      },
    },
    errors: ['SESSION_NOT_FOUND', 'RATE_LIMITED'],
  },
  {
    method: 'get',
    path: '/checkout/{id}/status',
    operationId: 'checkoutStatus',
    summary: 'State of a payin session, as the checkout page polls it',
    description: 'From the stored record (cached a few seconds), never a workflow Query.',
    tag: 'Checkout',
    auth: false,
    pathParams: sessionId,
    responses: {
      200: { description: 'The state', name: 'CheckoutState', schema: checkoutState, example: stateExample },
    },
    errors: ['SESSION_NOT_FOUND', 'RATE_LIMITED'],
  },
  {
    method: 'post',
    path: '/checkout/{id}/confirm',
    operationId: 'checkoutConfirm',
    summary: 'The customer confirms a payin session',
    description:
      'Requires `Content-Type: application/json`; 20 answers a minute per session and client address.',
    tag: 'Checkout',
    auth: false,
    pathParams: sessionId,
    body: {
      schemas: [{ name: 'CheckoutConfirmRequest', schema: checkoutConfirmRequest }],
      example: { provider: 'MTN', msisdn: '+225 05 00 00 00 01' },
    },
    responses: {
      200: {
        description: 'The state after the answer',
        name: 'CheckoutState',
        schema: checkoutState,
        example: stateExample,
      },
    },
    errors: [
      'SESSION_NOT_FOUND',
      'SESSION_CLOSED',
      'OTP_REQUIRED',
      'MSISDN_PROVIDER_MISMATCH',
      'AMOUNT_OUT_OF_RANGE',
      'RATE_LIMITED',
      'ANSWER_PENDING',
      'PROVIDER_UNAVAILABLE',
    ],
  },
  {
    method: 'post',
    path: '/checkout/{id}/decline',
    operationId: 'checkoutDecline',
    summary: 'The customer declines a payin session',
    description:
      'Requires `Content-Type: application/json` and the body `{}`; 20 answers a minute per session and client address.',
    tag: 'Checkout',
    auth: false,
    pathParams: sessionId,
    body: { schemas: [{ name: 'CheckoutDeclineRequest', schema: checkoutDeclineRequest }], example: {} },
    responses: {
      200: {
        description: 'The state after the answer',
        name: 'CheckoutState',
        schema: checkoutState,
        example: { ...stateExample, confirmationStatus: 'declined', final: true },
      },
    },
    errors: ['SESSION_NOT_FOUND', 'SESSION_CLOSED', 'RATE_LIMITED', 'ANSWER_PENDING'],
  },
  {
    method: 'post',
    path: '/operator-callbacks/{code}',
    operationId: 'operatorCallback',
    summary: 'Signed callback from an operator',
    description:
      'Authenticated by `X-Operator-Signature` (`t=…,v1=…`, HMAC-SHA256 over the raw body, 5-minute tolerance). ' +
      'Every well-signed callback answers 202, known transaction or not; the same signed callback again ' +
      '(same timestamp and body) answers 200 and is not delivered again. At most ' +
      'OPERATOR_CALLBACKS_PER_MINUTE (20) a minute per transaction, 429 beyond.',
    tag: 'Operators',
    auth: false,
    pathParams: { code: { description: 'Operator code', schema: z.enum(['ORANGE', 'MTN', 'MOOV', 'WAVE']) } },
    body: { schemas: [{ name: 'OperatorCallback', schema: operatorCallbackBody }] },
    responses: {
      200: {
        description: 'Already received (a replay of the same signed callback): not delivered again',
        name: 'CallbackReceipt',
        schema: z.object({ received: z.literal(true) }),
      },
      202: {
        description: 'Received',
        name: 'CallbackReceipt',
        schema: z.object({ received: z.literal(true) }),
      },
    },
    errors: ['OPERATOR_SIGNATURE_INVALID', 'NOT_FOUND', 'RATE_LIMITED'],
  },
);
