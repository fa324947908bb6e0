import { convertV2 } from 'openapi-to-postmanv2';
import { openApiDocument } from '../api/openapi/document';

// The Postman collection (v2.1) merchants import, converted from the OpenAPI document by
// openapi-to-postmanv2 (Postman's own converter), then made reproducible and ready to send:
// committed as docs/postman/momo-payments.postman_collection.json, a unit test compares them.

/** Where `npm run generate:collection` writes it, from the repository root. */
export const collectionPath = 'docs/postman/momo-payments.postman_collection.json';

type Json = Record<string, unknown>;
interface Item {
  name: string;
  item?: Item[];
  request?: { header?: { key: string; value: string }[]; auth?: unknown };
  response?: unknown[];
  id?: string;
}

/**
 * The converter draws random ids and fakes answers without an example; both would change the file
 * at every run. Answers are in the API reference (/docs), so the requests stand alone here.
 */
function stable(items: Item[]): Item[] {
  return items
    .filter((item) => !item.item || item.item.length > 0)
    .map(({ id: _id, response: _response, ...item }) => ({
      ...item,
      ...(item.item ? { item: stable(item.item) } : {}),
      ...(item.request ? { request: ready(item.request) } : {}),
    }));
}

/** Inherits the collection's credentials; a fresh idempotency key per send. */
function ready(request: NonNullable<Item['request']>): Item['request'] {
  const { auth, ...rest } = request;
  return {
    ...rest,
    ...(auth ? { auth } : {}),
    // {{$guid}}: Postman's fresh UUID at every send, so a resend is a new request, never a 409.
    header: request.header?.map((h) => (h.key === 'X-Idempotency-Key' ? { ...h, value: '{{$guid}}' } : h)),
  };
}

/** A parameter's value in the collection: its example, else the first value it may take, else its name. */
function exampleOf(param: { name: string; schema?: Json }): unknown {
  const schema = param.schema ?? {};
  const examples = schema.examples as unknown[] | undefined;
  const enums = schema.enum as unknown[] | undefined;
  if (examples?.length) return examples[0];
  for (const v of [schema.example, schema.const, enums?.[0], schema.default]) if (v !== undefined) return v;
  return schema.type === 'object' ? {} : `<${param.name}>`;
}

/**
 * What merchants call: the operations but the operators' callbacks, every parameter with an example.
 * The converter would otherwise draw values at random, and the file would change at every run.
 */
function forMerchants(doc: Json): Json {
  const copy = JSON.parse(JSON.stringify(doc)) as Json & { paths: Record<string, Record<string, Json>> };
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if ((op.tags as string[] | undefined)?.includes('Operators')) {
        delete item[method];
        continue;
      }
      for (const param of (op.parameters ?? []) as Json[])
        if (!('$ref' in param) && param.example === undefined)
          param.example = exampleOf(param as { name: string; schema?: Json });
    }
    if (Object.keys(item).length === 0) delete copy.paths[path];
  }
  // A form's fields are faked from their schema (its example unused): an enum's first value, fixed.
  const schemas = ((copy.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  for (const schema of Object.values(schemas))
    for (const property of Object.values((schema.properties ?? {}) as Record<string, Json>))
      if (Array.isArray(property.enum) && property.example === undefined) property.example = property.enum[0];
  return copy;
}

export async function postmanCollection(): Promise<Json> {
  const converted = await new Promise<Json>((resolve, reject) => {
    convertV2(
      { type: 'json', data: forMerchants(openApiDocument()) },
      {
        folderStrategy: 'Tags',
        parametersResolution: 'Example',
        enableOptionalParameters: false,
        alwaysInheritAuthentication: true,
        includeAuthInfoInExample: false,
      },
      (err, res) => {
        const data = res?.output?.[0]?.data as Json | undefined;
        if (err || !res?.result || !data)
          reject(err instanceof Error ? err : new Error(`conversion failed: ${res?.reason ?? 'no output'}`));
        else resolve(data);
      },
    );
  });
  const { _postman_id: _id, ...info } = converted.info as Json;
  return {
    info,
    item: stable(converted.item as Item[]),
    // Basic api_key:api_client on every request, as the API asks; the checkout's routes need none.
    auth: {
      type: 'basic',
      basic: [
        { key: 'username', value: '{{api_key}}', type: 'string' },
        { key: 'password', value: '{{api_client}}', type: 'string' },
      ],
    },
    variable: [
      { key: 'baseUrl', value: 'http://localhost:3000', type: 'string' },
      { key: 'api_key', value: 'mk_test_…', type: 'string' },
      { key: 'api_client', value: '', type: 'string' },
    ],
  };
}
