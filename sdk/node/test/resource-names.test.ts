import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MomoPayments } from '../src/index';
import { deprecatedResourceAliases } from '../src/operations';

// The client's resources carry the one name each has in the three SDKs (sdk/codegen/resources.json);
// an old name still answers, for one minor release, with a DeprecationWarning.

const client = () =>
  new MomoPayments({ apiKey: 'mk_test_names', apiClient: 'sk_test_names', baseUrl: 'http://127.0.0.1:9' });

test('the resources have the names of the manifest', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '../../codegen/resources.json'), 'utf8')) as {
    resources: { name: string }[];
  };
  const momo = client();
  const names = Object.keys(momo).filter((k) => k !== 'core');
  expect(names.sort()).toEqual(manifest.resources.map((r) => r.name).sort());
  expect(deprecatedResourceAliases).toEqual({ bulkPayouts: 'payoutBatches', webhooks: 'webhookEndpoints' });
});

test('the old names bulkPayouts and webhooks still answer the resources, and warn once', () => {
  const emit = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  try {
    const momo = client();
    expect(momo.bulkPayouts).toBe(momo.payoutBatches);
    expect(momo.webhooks).toBe(momo.webhookEndpoints);
    expect(typeof momo.webhooks.verify).toBe('function');
    expect(client().bulkPayouts).toBeDefined();
    const warnings = emit.mock.calls.map(([message, options]) => [
      String(message),
      (options as { type?: string }).type,
    ]);
    expect(warnings).toEqual([
      [
        'MomoPayments.bulkPayouts is deprecated and goes in the next minor release: use MomoPayments.payoutBatches',
        'DeprecationWarning',
      ],
      [
        'MomoPayments.webhooks is deprecated and goes in the next minor release: use MomoPayments.webhookEndpoints',
        'DeprecationWarning',
      ],
    ]);
  } finally {
    emit.mockRestore();
  }
});
