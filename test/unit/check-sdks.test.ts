import { compareManifest, isReleaseOf, sdkOperationIds } from '../../scripts/check-sdks';

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
