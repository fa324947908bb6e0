import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../src/api/openapi/document';
import { collectionPath, postmanCollection } from '../../src/client/postman';

// The Postman collection merchants import (docs/postman/): generated from the OpenAPI document by
// `npm run generate:collection`; this test fails when the committed one no longer matches it.

interface Request {
  method: string;
  url: { host: string[]; path: string[] };
  header?: { key: string; value: string }[];
}
interface Item {
  name: string;
  item?: Item[];
  request?: Request;
}

const committed = JSON.parse(readFileSync(join(__dirname, '../..', collectionPath), 'utf8')) as {
  info: { schema: string };
  item: Item[];
  auth: unknown;
  variable: { key: string; value: string }[];
};
const requests = (items: Item[]): Request[] =>
  items.flatMap((i) => (i.item ? requests(i.item) : i.request ? [i.request] : []));

describe('the Postman collection (docs/postman/momo-payments.postman_collection.json)', () => {
  it('is what `npm run generate:collection` writes from the current OpenAPI document', async () => {
    expect(committed).toEqual(await postmanCollection());
  }, 60_000);

  it('is a v2.1 collection with Basic {{api_key}}:{{api_client}} and {{baseUrl}}, one request per merchant operation', () => {
    expect(committed.info.schema).toBe(
      'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    );
    expect(committed.auth).toEqual({
      type: 'basic',
      basic: [
        { key: 'username', value: '{{api_key}}', type: 'string' },
        { key: 'password', value: '{{api_client}}', type: 'string' },
      ],
    });
    expect(committed.variable.map((v) => v.key)).toEqual(['baseUrl', 'api_key', 'api_client']);

    const all = requests(committed.item);
    const sent = new Set(
      all.map((r) => `${r.method} /${r.url.path.map((s) => s.replace(/^:(.+)$/, '{$1}')).join('/')}`),
    );
    const paths = openApiDocument().paths as Record<string, Record<string, { tags: string[] }>>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => !op.tags.includes('Operators'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect([...sent].sort()).toEqual(operations.sort());
    expect(sent).toContain('POST /v1/sandbox/payins/{reference}/settle');
    for (const r of all) {
      expect(r.url.host).toEqual(['{{baseUrl}}']);
      // A fresh idempotency key at every send.
      if (r.method === 'POST' && r.url.path[0] === 'v1')
        expect(r.header).toContainEqual(
          expect.objectContaining({ key: 'X-Idempotency-Key', value: '{{$guid}}' }),
        );
    }
  });
});
