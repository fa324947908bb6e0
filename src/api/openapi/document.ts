import { z } from 'zod';
import { problemCatalogue, problemSchema, type ProblemCode } from '../../contract/problems';
import { eventTypes, publicEvent, subjectKindOf, type EventType } from '../../events/catalogue';
import { transactionRecord } from '../../contract/schemas/transaction-record';
import { accountPayoutRecord } from '../../contract/schemas/payout';
import { refundRecord } from '../../contract/schemas/refund';
import { declaredOperations, type OperationSpec } from './registry';
import { problemExample } from './operations/examples';
import { payoutBatchRecord } from '../../contract/schemas/payout-batch';
import './operations/payments';
import './operations/platform';
import './operations/public';
import './operations/recipient';
import './operations/provider-callbacks';
import './operations/transactions';
import './operations/statements';
import './operations/payout-batches';
import './operations/sandbox';
import './operations/payment-links';
import { statementRecord } from '../../contract/schemas/statements';

// Assembles the OpenAPI 3.1 document from the declared operations and their zod schemas. JSON
// Schema 2020-12 is OpenAPI 3.1's own dialect, so zod's output goes in as it is, minus the few
// keywords that only make sense in a standalone schema.

type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Formats a validator knows; zod also emits private ones (starts_with…) that mean nothing elsewhere. */
const standardFormats = new Set([
  'date-time',
  'date',
  'time',
  'duration',
  'email',
  'uri',
  'uuid',
  'ipv4',
  'ipv6',
]);

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema' || k === '$id') continue;
    if (k === 'format' && typeof v === 'string' && !standardFormats.has(v)) continue;
    out[k] = clean(v);
  }
  return out;
}

const toJson = (schema: z.ZodType, io: 'input' | 'output'): Json =>
  clean(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' })) as Json;

/** Drops `undefined` members, as the JSON on the wire does. */
const plain = (value: unknown): unknown =>
  value === undefined ? undefined : JSON.parse(JSON.stringify(value));

const eventData: Record<ReturnType<typeof subjectKindOf>, z.ZodType> = {
  payin: transactionRecord,
  payout: z.union([transactionRecord, accountPayoutRecord]),
  refund: refundRecord,
  'payout.batch': payoutBatchRecord,
  statement: statementRecord,
  // The payin that paid the link (its record names the link).
  payment_link: transactionRecord,
};
const eventSchemaName = (t: EventType) =>
  `${t
    .split(/[._]/)
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('')}Event`;

/** Errors every operation of its kind may answer, whatever the route does. */
function commonErrors(op: OperationSpec): ProblemCode[] {
  const codes: ProblemCode[] = ['INTERNAL_ERROR'];
  // The database guard answers 503 on every route mounted after health and docs.
  if (!['Operations'].includes(op.tag)) codes.push('SERVICE_UNAVAILABLE');
  if (op.auth) codes.push('UNAUTHORIZED', 'RATE_LIMITED', 'VALIDATION_ERROR');
  // A live key sending sandboxScenario is refused by authentication itself (src/api/auth.ts).
  if (op.auth && op.method === 'post') codes.push('SANDBOX_ONLY_IN_TEST_MODE');
  if (op.query) codes.push('VALIDATION_ERROR');
  if (op.method === 'post' || op.method === 'patch')
    codes.push('MALFORMED_JSON', 'VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (op.idempotent) codes.push('IDEMPOTENCY_KEY_MISSING', 'IDEMPOTENCY_KEY_INVALID', 'REQUEST_IN_PROGRESS');
  // The refund endpoint names a reused key DUPLICATE_REFUND, as the interface does
  // (docs/decisions/refunds/conflicts-answer-duplicate-refund.md); its operation lists that code itself.
  if (op.idempotent && op.path !== '/v1/payin/{reference}/refund') codes.push('IDEMPOTENCY_KEY_REUSED');
  return codes;
}

function problemResponses(codes: ProblemCode[]): Record<string, Json> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of new Set(codes)) {
    const status = problemCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: list.map((c) => `\`${c}\`: ${problemCatalogue[c].title.en}`).join('; '),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [ref('Problem'), { properties: { status: { const: status }, code: { enum: list } } }],
          },
          example: {
            ...problemExample,
            type: `/docs/errors#${list[0]}`,
            title: problemCatalogue[list[0]!].title.en,
            status,
            code: list[0],
            detail: (problemCatalogue[list[0]!] as { detail?: { en: string } }).detail?.en,
            errors: list[0] === 'VALIDATION_ERROR' ? problemExample.errors : undefined,
          },
        },
      },
    };
  }
  return out;
}

const description = `Mobile-money payments for merchants in Côte d'Ivoire (CI) and Cameroon (CM): payins (direct and
session flows), payouts (direct, and standard in two shapes), refunds, status reads, signed webhooks.

- **Authentication**: \`Authorization: Basic base64(api_key:api_client)\` on every \`/v1\` request.
- **Idempotency**: every \`POST\` under \`/v1\` carries \`X-Idempotency-Key\` (a UUID); a replay answers the stored
  status and body with \`Idempotent-Replayed: true\`.
- **Errors**: \`application/problem+json\` (RFC 9457) with a stable \`code\`; \`title\`, \`detail\` and
  \`errors[].message\` follow \`Accept-Language\` (en, fr); \`type\` (\`/docs/errors#CODE\`) is the code's entry in the
  error reference served at \`/docs/errors\`, which says what to do.
- **Amounts** are in the currency's major unit (XOF and XAF have no decimals).
- **Methods**: a path asked with a method it does not list answers \`405\` \`METHOD_NOT_ALLOWED\` with \`Allow\`
  (\`components.responses.MethodNotAllowed\`); \`OPTIONS\` answers \`204\` with \`Allow\`.
- **Malformed HTTP** (a header split by a line break, a bad \`Content-Length\`) answers \`400\` \`MALFORMED_REQUEST\`,
  oversized headers \`431\` \`REQUEST_HEADERS_TOO_LARGE\`, a request not received in time \`408\` \`REQUEST_TIMEOUT\`
  (\`components.responses\`).
- **Webhooks** follow Standard Webhooks (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`); see \`webhooks\` below.`;

export function buildOpenApiDocument(): Json {
  const ops = declaredOperations();
  const requests = z.registry<{ id: string }>();
  const responses = z.registry<{ id: string }>();
  const names = new Set<string>();
  // A name is registered once; the same schema under two names keeps the first.
  const add = (reg: typeof requests, name: string, schema: z.ZodType) => {
    if (names.has(name) || reg.has(schema)) return;
    names.add(name);
    reg.add(schema, { id: name });
  };

  add(responses, 'Problem', problemSchema);
  for (const op of ops) {
    for (const b of op.body?.schemas ?? []) add(requests, b.name, b.schema);
    for (const r of Object.values(op.responses)) if (r.name && r.schema) add(responses, r.name, r.schema);
  }
  for (const t of eventTypes) {
    add(
      responses,
      eventSchemaName(t),
      publicEvent.extend({ type: z.literal(t), data: eventData[subjectKindOf(t)] }),
    );
  }
  const uri = (id: string) => `#/components/schemas/${id}`;
  const convert = (reg: typeof requests, io: 'input' | 'output') =>
    (
      clean(z.toJSONSchema(reg, { target: 'draft-2020-12', io, unrepresentable: 'any', uri })) as {
        schemas: Json;
      }
    ).schemas;
  const schemas = { ...convert(responses, 'output'), ...convert(requests, 'input') };

  const paths: Record<string, Json> = {};
  for (const op of ops) {
    const parameters: Json[] = [];
    for (const [name, p] of Object.entries(op.pathParams ?? {}))
      parameters.push({
        name,
        in: 'path',
        required: true,
        description: p.description,
        schema: p.schema ? toJson(p.schema, 'input') : { type: 'string' },
      });
    if (op.query) {
      const q = toJson(op.query, 'input') as { properties?: Record<string, Json>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {}))
        parameters.push({
          name,
          in: 'query',
          required: q.required?.includes(name) ?? false,
          schema,
          // An object (metadata) travels as `name[key]=value` pairs.
          ...((schema as { type?: string }).type === 'object' ? { style: 'deepObject', explode: true } : {}),
        });
    }
    if (op.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    parameters.push({ $ref: '#/components/parameters/AcceptLanguage' });

    const operationResponses: Record<string, Json> = problemResponses([
      ...commonErrors(op),
      ...(op.errors ?? []),
    ]);
    for (const [status, r] of Object.entries(op.responses)) {
      const schema = r.name ? ref(r.name) : r.schema ? toJson(r.schema, 'output') : undefined;
      const problem = operationResponses[status] as { description: string; content?: Json } | undefined;
      operationResponses[status] = {
        description: problem ? `${r.description}; or ${problem.description}` : r.description,
        ...(op.idempotent && status.startsWith('2')
          ? { headers: { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } }
          : {}),
        ...(schema
          ? {
              content: {
                ...problem?.content,
                [r.contentType ?? 'application/json']: {
                  schema,
                  ...(r.example !== undefined ? { example: plain(r.example) } : {}),
                },
                ...Object.fromEntries((r.alsoContentTypes ?? []).map((type) => [type, { schema }])),
              },
            }
          : {}),
      };
    }

    const body = op.body
      ? {
          requestBody: {
            required: op.body.required ?? true,
            content: {
              [op.body.contentType ?? 'application/json']: {
                schema:
                  op.body.schemas.length === 1
                    ? ref(op.body.schemas[0]!.name)
                    : { oneOf: op.body.schemas.map((s) => ref(s.name)) },
                ...(op.body.example !== undefined ? { example: plain(op.body.example) } : {}),
              },
            },
          },
        }
      : {};
    paths[op.path] = {
      ...paths[op.path],
      [op.method]: {
        operationId: op.operationId,
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        tags: [op.tag],
        ...(op.auth ? {} : { security: [] }),
        parameters,
        ...body,
        responses: Object.fromEntries(
          Object.entries(operationResponses).sort(([a], [b]) => a.localeCompare(b)),
        ),
      },
    };
  }

  const webhooks = Object.fromEntries(
    eventTypes.map((t) => [
      t,
      {
        post: {
          operationId: `webhook_${t.replace('.', '_')}`,
          summary: `${t} delivered to your endpoint`,
          tags: ['Webhooks'],
          security: [],
          parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
            $ref: `#/components/parameters/${name}`,
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(eventSchemaName(t)) } },
          },
          responses: {
            '2XX': {
              description: 'Delivered. Anything else (or no answer within 10 s) is retried for about 3 days.',
            },
            '410': { description: 'Gone: the endpoint is disabled, deliveries stop.' },
          },
        },
      },
    ]),
  );

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Mobile Money Payments API',
      version: '1.0.0',
      description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ basicAuth: [] }],
    tags: [
      'Payins',
      'Payouts',
      'Refunds',
      'Transactions',
      'Statements',
      'Accounts',
      'Providers',
      'Payment links',
      'Webhooks',
      'Events',
      'Realtime',
      'Checkout',
      'Sandbox',
      'Operators',
      'Operations',
    ].map((name) => ({ name })),
    paths,
    webhooks,
    components: {
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description: 'Basic base64(api_key:api_client), issued with `npx payments merchants create`.',
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'X-Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'A UUID naming this request: a retry with the same key and body never acts twice (24 h).',
          schema: { type: 'string', format: 'uuid' },
          example: '3f2b8c1e-9d4a-4e7b-8a61-0c5d2e9f7a14',
        },
        AcceptLanguage: {
          name: 'Accept-Language',
          in: 'header',
          required: false,
          description: 'Language of error titles and messages: en (default) or fr.',
          schema: { type: 'string' },
          example: 'fr',
        },
        'webhook-id': {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description: 'The event id, the same on every attempt: deduplicate on it.',
          schema: { type: 'string' },
        },
        'webhook-timestamp': {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description: 'Unix seconds of this attempt; refuse one older than 5 minutes.',
          schema: { type: 'string' },
        },
        'webhook-signature': {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description:
            'Space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the endpoint secret.',
          schema: { type: 'string' },
        },
      },
      responses: {
        // What the HTTP server answers to a request it cannot parse, before any route (src/api/malformed-requests.ts).
        MalformedRequest: problemResponses(['MALFORMED_REQUEST'])['400'],
        RequestTimeout: problemResponses(['REQUEST_TIMEOUT'])['408'],
        RequestHeadersTooLarge: problemResponses(['REQUEST_HEADERS_TOO_LARGE'])['431'],
        // Not an answer of any listed operation: what a listed path answers to another method.
        MethodNotAllowed: {
          ...problemResponses(['METHOD_NOT_ALLOWED'])['405'],
          headers: {
            Allow: { description: 'The methods the path accepts.', schema: { type: 'string' } },
          },
        },
      },
      headers: {
        IdempotentReplayed: {
          description: '`true` when this is the stored answer of an earlier request with the same key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schemas,
    },
  };
}

let cached: Json | null = null;
/** Built once per process: the schemas do not change while it runs. */
export function openApiDocument(): Json {
  cached ??= buildOpenApiDocument();
  return cached;
}
