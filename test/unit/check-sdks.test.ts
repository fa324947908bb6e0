import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareManifest, compareResources, isReleaseOf, sdkOperationIds } from '../../scripts/check-sdks';
import {
  loadManifest,
  placementProblems,
  placements,
  resourcesOf,
  sdks,
  snake,
} from '../../sdk/codegen/manifest';

// The SDKs' contract check (npm run check:sdks) on a small document: a manifest that misses an
// operation and a field fails with both named; one that matches passes.

const doc = {
  info: { version: '1.2.0' },
  paths: {
    '/v1/payin/{reference}': { get: { operationId: 'getPayin' }, parameters: [] },
    '/v1/direct/payin': { post: { operationId: 'createDirectPayin' } },
    '/health/live': { get: { operationId: 'liveness' } },
  },
  components: {
    schemas: {
      Payin: { type: 'object', properties: { reference: {}, amount: {}, status: {} } },
      Status: { type: 'string', enum: ['pending', 'completed'] },
    },
  },
};

const matching = {
  sdk: 'python',
  version: '1.2.0',
  operations: { getPayin: 'get_payin', createDirectPayin: 'create_direct_payin' },
  models: { Payin: ['reference', 'amount', 'status'] },
};

test('the operations an SDK covers are those under /v1/', () => {
  expect(sdkOperationIds(doc)).toEqual(['createDirectPayin', 'getPayin']);
});

test('a manifest that matches the document passes', () => {
  expect(compareManifest(doc, matching, 'python')).toEqual([]);
});

test('a manifest missing an operation and a field fails, naming both', () => {
  const manifest = {
    ...matching,
    operations: { getPayin: 'get_payin' },
    models: { Payin: ['reference', 'amount'] },
  };
  expect(compareManifest(doc, manifest, 'python')).toEqual([
    'operation createDirectPayin: missing',
    'model Payin: missing field(s) status',
  ]);
});

test('what the document lacks fails too: an operation, a field, a model, another version', () => {
  const manifest = {
    ...matching,
    version: '1.1.0',
    operations: { ...matching.operations, liveness: 'liveness', listThings: 'list_things' },
    models: { Payin: ['reference', 'amount', 'status', 'colour'], Thing: ['id'] },
  };
  expect(compareManifest(doc, manifest, 'python')).toEqual([
    'version "1.1.0" is not a release of the API\'s version 1.2.0 (same major.minor, a patch at least its)',
    'operation listThings: not an operation under /v1/ in the document',
    'operation liveness: not an operation under /v1/ in the document',
    'model Payin: field(s) the document lacks: colour',
    'model Thing: not a schema of the document',
  ]);
  expect(compareManifest(doc, { sdk: 'python' }, 'python')).toEqual([
    'the manifest is not an object with "operations" and "models"',
  ]);
});

test("an SDK's version is the API's major.minor with a patch of its own", () => {
  expect(compareManifest(doc, { ...matching, version: '1.2.3' }, 'python')).toEqual([]);
  expect(isReleaseOf('1.2.0', '1.2.0')).toBe(true);
  expect(isReleaseOf('1.2.1', '1.2.0')).toBe(true);
  expect(isReleaseOf('1.2.10', '1.2.9')).toBe(true);
  expect(isReleaseOf('1.2.0', '1.2.1')).toBe(false);
  expect(isReleaseOf('1.3.0', '1.2.0')).toBe(false);
  expect(isReleaseOf('2.2.0', '1.2.0')).toBe(false);
  expect(isReleaseOf('1.2', '1.2.0')).toBe(false);
  expect(isReleaseOf('1.2.1-beta', '1.2.0')).toBe(false);
  expect(isReleaseOf(undefined, '1.2.0')).toBe(false);
});

// The cross-SDK check on sdk/codegen/resources.json: one name per resource in the three SDKs.
const resources = loadManifest();
const small = {
  resources: [
    {
      name: 'payoutBatches',
      deprecatedAliases: { node: ['bulkPayouts'], python: ['bulk_payouts'] },
      operations: {
        createPayoutBatch: { method: 'create' },
        getPayoutBatch: { method: 'get', php: 'retrieve' },
      },
    },
  ],
};

test('each SDK writes the same word for each resource: camelCase in Node and PHP, snake_case in Python', () => {
  const node = Object.keys(resourcesOf('node', resources));
  expect(Object.keys(resourcesOf('php', resources))).toEqual(node);
  expect(Object.keys(resourcesOf('python', resources))).toEqual(node.map(snake));
  expect(node).toEqual(expect.arrayContaining(['webhookEndpoints', 'payoutBatches', 'events']));
  for (const sdk of sdks) {
    const place = placements(sdk, resources);
    expect(place.createWebhookEndpoint?.[0]).toBe(
      sdk === 'python' ? 'webhook_endpoints' : 'webhookEndpoints',
    );
    expect(place.createPayoutBatch?.[0]).toBe(sdk === 'python' ? 'payout_batches' : 'payoutBatches');
    expect(place.createWsToken?.[0]).toBe('events');
  }
});

test('every /v1/ operation of sdk/openapi.json has one place in sdk/codegen/resources.json', () => {
  const document = JSON.parse(readFileSync(join(__dirname, '../../sdk/openapi.json'), 'utf8')) as Parameters<
    typeof sdkOperationIds
  >[0];
  expect(placementProblems(sdkOperationIds(document), resources)).toEqual([]);
});

test("an SDK whose resources or aliases differ from the manifest's fails, naming each", () => {
  const good = {
    operations: { createPayoutBatch: 'payoutBatches.create', getPayoutBatch: 'payoutBatches.get' },
    resources: ['payoutBatches'],
    deprecatedAliases: { bulkPayouts: 'payoutBatches' },
  };
  expect(compareResources(good, 'node', small)).toEqual([]);
  expect(
    compareResources(
      {
        operations: { createPayoutBatch: 'bulkPayouts.create', getPayoutBatch: 'payoutBatches.get' },
        resources: ['bulkPayouts'],
        deprecatedAliases: { batches: 'payoutBatches' },
      },
      'node',
      small,
    ),
  ).toEqual([
    'resource payoutBatches: missing (sdk/codegen/resources.json names it)',
    'resource bulkPayouts: not a resource of sdk/codegen/resources.json',
    'operation createPayoutBatch: bulkPayouts.create, resources.json places it at payoutBatches.create',
    'deprecated alias bulkPayouts: should answer payoutBatches, answers nothing',
    'deprecated alias batches: not listed in sdk/codegen/resources.json',
  ]);
  expect(
    compareResources(
      {
        operations: { createPayoutBatch: 'payout_batches.create', getPayoutBatch: 'payout_batches.get' },
        resources: ['payout_batches'],
        deprecatedAliases: { bulk_payouts: 'payout_batches' },
      },
      'python',
      small,
    ),
  ).toEqual([]);
  expect(compareResources({ operations: {} }, 'php', small)).toEqual([
    'the manifest has no "resources" list',
  ]);
});
