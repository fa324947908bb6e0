import { z } from 'zod';
import { defineOperations } from '../registry';
import {
  accountEntriesQuery,
  accountList,
  accountRecord,
  entryPage,
} from '../../../contract/schemas/accounts';
import { providerList, providerPrediction } from '../../../contract/schemas/providers';
import { predictQuery, providersQuery } from '../../routes/providers';
import {
  createWebhookRequest,
  deliveryPage,
  eventPage,
  listDeliveriesQuery,
  listEventsQuery,
  redeliverRequest,
  redeliveryRecord,
  rotateSecretRequest,
  rotatedSecretRecord,
  webhookEndpointList,
  webhookEndpointRecord,
  webhookEndpointWithSecret,
  webhookEndpointWithHealth,
  replayRequest,
  replayRecord,
  testWebhookRequest,
  testWebhookResult,
  updateWebhookRequest,
} from '../../../contract/schemas/webhooks';
import { publicEvent } from '../../../events/catalogue';
import { wsTokenRecord } from '../../../contract/schemas/realtime';
import * as ex from './examples';
import { providersOf } from '../../../domain/providers';

// Accounts, providers, webhooks, events and the WebSocket stream's tokens.

const webhookId = { id: { description: 'The webhook endpoint id (we_…)' } };
const eventId = { eventId: { description: 'The event id (evt_…)' } };

defineOperations(
  {
    method: 'get',
    path: '/v1/accounts',
    operationId: 'listAccounts',
    summary: 'List your accounts',
    description: 'Main accounts first, then sub-accounts; an account exists once money first moved into it.',
    tag: 'Accounts',
    auth: true,
    responses: {
      200: {
        description: 'Your accounts',
        name: 'AccountList',
        schema: accountList,
        example: { data: [ex.accountExample] },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/accounts/{id}',
    operationId: 'getAccount',
    summary: 'Read an account',
    tag: 'Accounts',
    auth: true,
    pathParams: { id: { description: 'The account id (acc_…)' } },
    responses: {
      200: { description: 'The account', name: 'Account', schema: accountRecord, example: ex.accountExample },
    },
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/accounts/{id}/entries',
    operationId: 'listAccountEntries',
    summary: 'Account statement',
    description: 'Journal entries, newest first; `from`/`to` inclusive (a date alone covers its UTC day).',
    tag: 'Accounts',
    auth: true,
    pathParams: { id: { description: 'The account id (acc_…)' } },
    query: accountEntriesQuery,
    responses: {
      200: {
        description: 'A page of entries',
        name: 'EntryPage',
        schema: entryPage,
        example: { data: [ex.entryExample], nextCursor: null, livemode: false },
      },
    },
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/providers',
    operationId: 'listProviders',
    summary: 'List providers',
    description: 'The operators offered per country, their limits, OTP and USSD codes.',
    tag: 'Providers',
    auth: true,
    query: providersQuery,
    responses: {
      200: {
        description: 'The providers',
        name: 'ProviderList',
        schema: providerList,
        example: { providers: providersOf('CI').slice(0, 2) },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/providers/predict',
    operationId: 'predictProvider',
    summary: 'Predict the operator of a number',
    tag: 'Providers',
    auth: true,
    query: predictQuery,
    responses: {
      200: {
        description: 'The country, operator and providers that accept the number',
        name: 'ProviderPrediction',
        schema: providerPrediction,
        example: {
          msisdn: '+2250500000001',
          country: 'CI',
          operator: 'MTN',
          provider: 'MTN_CI',
          carrier: 'MTN',
          acceptedBy: ['MTN_CI', 'WAVE_CI'],
        },
      },
    },
  },
  {
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description: 'The answer carries the signing `secret` (whsec_…): it is shown only here.',
    tag: 'Webhooks',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'CreateWebhookRequest', schema: createWebhookRequest }],
      example: {
        url: 'https://shop.example/hooks/payments',
        eventTypes: ['payin.completed', 'payin.failed'],
      },
    },
    responses: {
      201: {
        description: 'The endpoint and its secret',
        name: 'WebhookEndpointWithSecret',
        schema: webhookEndpointWithSecret,
        example: { ...ex.webhookEndpointExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      },
    },
    errors: ['WEBHOOK_URL_NOT_ALLOWED', 'WEBHOOK_ENDPOINT_LIMIT'],
  },
  {
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    tag: 'Webhooks',
    auth: true,
    responses: {
      200: {
        description: 'Your endpoints (never their secrets)',
        name: 'WebhookEndpointList',
        schema: webhookEndpointList,
        example: { data: [ex.webhookEndpointExample] },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/webhooks/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'Read a webhook endpoint and its health',
    description:
      'The endpoint and its `health` over the last 24 hours: attempts, success rate, latency p50/p99, ' +
      'the last error and the failures since the last success (from the newest 5,000 attempts).',
    tag: 'Webhooks',
    auth: true,
    pathParams: webhookId,
    responses: {
      200: {
        description: 'The endpoint with its health',
        name: 'WebhookEndpointWithHealth',
        schema: webhookEndpointWithHealth,
        example: ex.webhookEndpointWithHealthExample,
      },
    },
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/replay',
    operationId: 'replayWebhookEvents',
    summary: 'Send the events of a period again to this endpoint',
    description:
      'Selects the events of `[from, to)` (at most 31 days, at most 10,000 events) this endpoint ' +
      'subscribes to: with `onlyFailed` (the default) only those it never received. A dry run answers ' +
      'the count (200) and sends nothing; otherwise 202 with the replay id and the count, and a ' +
      'workflow sends them oldest first, paced (about 10 a second), each as a redelivery with its own ' +
      'attempts. The same idempotency key answers the same replay and sends nothing twice.',
    tag: 'Webhooks',
    auth: true,
    idempotent: true,
    pathParams: webhookId,
    body: {
      schemas: [{ name: 'ReplayRequest', schema: replayRequest }],
      required: true,
      example: ex.replayRequestExample,
    },
    responses: {
      202: {
        description: 'The replay, started',
        name: 'Replay',
        schema: replayRecord,
        example: ex.replayExample,
      },
      200: { description: 'A dry run: the count only', name: 'Replay', schema: replayRecord },
    },
    errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DISABLED', 'REPLAY_TOO_LARGE'],
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/test',
    operationId: 'sendTestWebhookEvent',
    summary: 'Send a signed example event to this endpoint',
    description:
      'Sends one example event of `type` (default: the first type the endpoint subscribes to, else ' +
      "`payin.completed`) now, signed with the endpoint's secrets like any delivery, and answers what " +
      'the endpoint replied: its status, the duration, the error. The event is marked `"test": true`, ' +
      'its `data` has the shape of the real record with fake ids (`evt_test_…`, a reference starting ' +
      'with `test-`); it is not stored (`GET /v1/events` never lists it), not retried and not counted ' +
      "in the delivery log or the endpoint's health. A 2xx answer from the receiver is `succeeded`; " +
      'anything else is reported, not retried.',
    tag: 'Webhooks',
    auth: true,
    idempotent: true,
    pathParams: webhookId,
    body: {
      schemas: [{ name: 'TestWebhookRequest', schema: testWebhookRequest }],
      required: false,
      example: { type: 'payin.completed' },
    },
    responses: {
      200: {
        description: 'The example event and what the endpoint answered',
        name: 'TestWebhookResult',
        schema: testWebhookResult,
        example: ex.testWebhookResultExample,
      },
    },
    errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DISABLED'],
  },
  {
    method: 'patch',
    path: '/v1/webhooks/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description:
      'Changes its `url`, its `eventTypes` (empty: every type) or its `description` (`null` clears ' +
      'it); the fields not sent stay. Its secret, status and queue stay: deliveries from now on go to ' +
      'the new URL, which is checked as at creation.',
    tag: 'Webhooks',
    auth: true,
    pathParams: webhookId,
    body: {
      schemas: [{ name: 'UpdateWebhookRequest', schema: updateWebhookRequest }],
      required: true,
      example: { url: 'https://shop.example/hooks/payments-v2', eventTypes: ['payin.completed'] },
    },
    responses: {
      200: {
        description: 'The endpoint, changed',
        name: 'WebhookEndpoint',
        schema: webhookEndpointRecord,
        example: {
          ...ex.webhookEndpointExample,
          url: 'https://shop.example/hooks/payments-v2',
          eventTypes: ['payin.completed'],
        },
      },
    },
    errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED'],
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/disable',
    operationId: 'disableWebhookEndpoint',
    summary: 'Disable a webhook endpoint',
    description:
      'Nothing is sent to it until it is enabled again (`POST /v1/webhooks/{id}/enable`): its queue ' +
      'parks where it is, as after a 410, and enabling resumes it there. `disabledReason` is ' +
      '`disabled by the merchant`.',
    tag: 'Webhooks',
    auth: true,
    idempotent: true,
    pathParams: webhookId,
    responses: {
      200: {
        description: 'The endpoint, disabled',
        name: 'WebhookEndpoint',
        schema: webhookEndpointRecord,
        example: {
          ...ex.webhookEndpointExample,
          status: 'disabled',
          disabledReason: 'disabled by the merchant',
        },
      },
    },
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  {
    method: 'delete',
    path: '/v1/webhooks/{id}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Pending retries to it stop.',
    tag: 'Webhooks',
    auth: true,
    pathParams: webhookId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret',
    description: 'The previous secret keeps signing for `overlapSeconds` (default 24 h).',
    tag: 'Webhooks',
    auth: true,
    idempotent: true,
    pathParams: webhookId,
    body: {
      schemas: [{ name: 'RotateSecretRequest', schema: rotateSecretRequest }],
      required: false,
      example: { overlapSeconds: 3600 },
    },
    responses: {
      200: {
        description: 'The endpoint with its new secret',
        name: 'RotatedSecret',
        schema: rotatedSecretRecord,
        example: {
          ...ex.webhookEndpointExample,
          secret: 'whsec_Xk2Lq8GKYqrTwjUPD8ILPZIo2LaLaSwM',
          previousSecretsExpireAt: '2026-11-22T11:15:00.120Z',
        },
      },
    },
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/enable',
    operationId: 'enableWebhookEndpoint',
    summary: 'Re-enable an endpoint disabled (by a 410, spent retries or the merchant)',
    tag: 'Webhooks',
    auth: true,
    idempotent: true,
    pathParams: webhookId,
    responses: {
      200: {
        description: 'The endpoint, enabled',
        name: 'WebhookEndpoint',
        schema: webhookEndpointRecord,
        example: ex.webhookEndpointExample,
      },
    },
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Delivery log of an endpoint',
    description: 'Every attempt, newest first.',
    tag: 'Webhooks',
    auth: true,
    pathParams: webhookId,
    query: listDeliveriesQuery,
    responses: {
      200: {
        description: 'A page of attempts',
        name: 'DeliveryPage',
        schema: deliveryPage,
        example: {
          data: [
            {
              deliveryId: 'dlv_8c9d0e1f2a3b4c5d6e7f8091',
              attempt: 1,
              eventId: ex.eventExample.id,
              eventType: 'payin.completed',
              trigger: 'event',
              url: ex.webhookEndpointExample.url,
              attemptedAt: '2026-11-22T10:15:02.500Z',
              succeeded: true,
              statusCode: 200,
              latencyMs: 84,
              error: null,
            },
          ],
          nextCursor: null,
        },
      },
    },
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'List events',
    description:
      'Newest first; `from` inclusive, `to` exclusive. `delivered=false` lists only the events that did ' +
      'not reach every enabled endpoint subscribed to them when they were recorded (one of them has no ' +
      'successful attempt); such a page may hold fewer than `limit` events with a `nextCursor` to go on.',
    tag: 'Events',
    auth: true,
    query: listEventsQuery,
    responses: {
      200: {
        description: 'A page of events',
        name: 'EventPage',
        schema: eventPage,
        example: { data: [ex.eventExample], nextCursor: null },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/events/{eventId}',
    operationId: 'getEvent',
    summary: 'Read an event',
    tag: 'Events',
    auth: true,
    pathParams: eventId,
    responses: {
      200: { description: 'The event', name: 'Event', schema: publicEvent, example: ex.eventExample },
    },
    errors: ['EVENT_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/events/{eventId}/redeliver',
    operationId: 'redeliverEvent',
    summary: 'Send an event again',
    description:
      'A new delivery, with its own retries, to one endpoint or to every enabled endpoint subscribed to the type.',
    tag: 'Events',
    auth: true,
    idempotent: true,
    pathParams: eventId,
    body: { schemas: [{ name: 'RedeliverRequest', schema: redeliverRequest }], required: false, example: {} },
    responses: {
      202: {
        description: 'The deliveries started',
        name: 'Redelivery',
        schema: redeliveryRecord,
        example: {
          eventId: ex.eventExample.id,
          deliveries: [
            { endpointId: ex.webhookEndpointExample.id, deliveryId: 'dlv_8c9d0e1f2a3b4c5d6e7f8091' },
          ],
        },
      },
    },
    errors: ['EVENT_NOT_FOUND', 'WEBHOOK_NOT_FOUND', 'WEBHOOK_DISABLED'],
  },
  {
    method: 'post',
    path: '/v1/ws/tokens',
    operationId: 'createWsToken',
    summary: 'Issue a browser token for the WebSocket stream',
    description: 'Valid 60 s, once. Open `url` (GET /v1/ws with Upgrade: websocket).',
    tag: 'Realtime',
    auth: true,
    idempotent: true,
    responses: {
      201: {
        description: 'The token',
        name: 'WsToken',
        schema: wsTokenRecord,
        example: {
          token: 'wst_9d0e1f2a3b4c5d6e7f809102',
          expiresAt: '2026-11-22T10:16:00.120Z',
          url: '/v1/ws?token=wst_9d0e1f2a3b4c5d6e7f809102',
        },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/ws',
    operationId: 'openEventStream',
    summary: 'WebSocket stream of events',
    description:
      'Upgrade to a WebSocket (Basic credentials, or `?token=` from POST /v1/ws/tokens). Messages: see docs/events.md. ' +
      'A plain GET answers 426.',
    tag: 'Realtime',
    auth: true,
    query: z.object({ token: z.string().optional() }),
    responses: { 101: { description: 'Switching protocols to a WebSocket' } },
    errors: ['UPGRADE_REQUIRED'],
  },
);
