import { buildOpenApiDocument } from '../../src/api/openapi/document';
import { blocksOf, docFiles } from '../helpers/doc-examples';

// "No request example for any endpoint" was a newcomer's first obstacle: every operation of the
// OpenAPI document a merchant calls has a runnable curl example in README.md or docs/ (executed by
// test/integration/doc-examples.test.ts). The few without one say why here.
const withoutExample: Record<string, string> = {
  'POST /v1/direct/payout/{reference}/cancel':
    'answers 2xx only for a payout held while its provider is closed',
  'POST /v1/payout/{reference}/cancel': 'answers 2xx only for a payout held while its provider is closed',
  'GET /v1/statements/{id}/download':
    'reached through the signed link a statement carries (docs/statements.md)',
  'GET /v1/ws': 'a WebSocket upgrade, not a curl call (docs/events.md, "WebSocket stream")',
  'GET /metrics': 'for ops (docs/operations.md), not for merchants',
  'GET /checkout/{id}': "the customer's hosted page, opened from paymentUrl",
  'GET /checkout/{id}/status': "the hosted page's own polling",
  'POST /checkout/{id}/confirm': "the hosted page's own call",
  'POST /checkout/{id}/decline': "the hosted page's own call",
  'POST /checkout/{id}': "the hosted page's own form, posted by a browser without JavaScript",
  'GET /l/{slug}': "the customer's page of a payment link, opened from its url",
  'POST /l/{slug}': "the payment link page's own form, posted by a browser",
  'GET /l/{slug}/thanks': "where a paid link's customer lands (the session's successUrl)",
  'GET /l/{slug}/logo': "the image the link's page shows, fetched by the customer's browser",
  'POST /operator-callbacks/{code}': 'called by operators, signed with their secret',
  'POST /provider-callbacks/{name}': 'called by providers, signed with their keys',
  'PUT /provider-callbacks/{name}': 'called by providers, signed with their keys',
};

const methods = ['get', 'post', 'put', 'patch', 'delete'];

function operations(): string[] {
  const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => methods.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/** Each curl call of the runnable blocks, as `METHOD /path` with its query string dropped. */
function exampleCalls(): string[] {
  const calls: string[] = [];
  for (const file of docFiles()) {
    for (const block of blocksOf(file).filter((b) => b.lang === 'sh' && !b.skip)) {
      // A call spans its continuation lines.
      for (const call of block.code.replace(/\\\n\s*/g, ' ').split('\n')) {
        if (!/\bcurl\b/.test(call)) continue;
        const url = /localhost:3000(\/[^\s'"?]*)/.exec(call)?.[1];
        if (!url) continue;
        const method = /-X\s+([A-Z]+)/.exec(call)?.[1] ?? (/\s(-d|--data\S*)\s/.test(call) ? 'POST' : 'GET');
        calls.push(`${method} ${url}`);
      }
    }
  }
  return calls;
}

function matches(operation: string, call: string): boolean {
  const [method, path] = operation.split(' ') as [string, string];
  const pattern = path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${method} ${pattern}$`).test(call);
}

describe('the documentation has a runnable example of each endpoint', () => {
  const calls = exampleCalls();

  it.each(operations().filter((op) => !(op in withoutExample)))('%s', (operation) => {
    expect(calls.filter((c) => matches(operation, c))).not.toHaveLength(0);
  });

  it('lists as exceptions only operations that exist', () => {
    const all = operations();
    expect(Object.keys(withoutExample).filter((op) => !all.includes(op))).toEqual([]);
  });
});
