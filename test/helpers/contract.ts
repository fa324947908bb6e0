import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/api/openapi/document';

// Response conformance: every answer an API test receives is checked against the OpenAPI document
// (status, content type, body), so the document cannot drift from what the service does.

type Json = Record<string, any>;

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
}

let state: { doc: Json; ajv: Ajv2020; routes: Route[]; validators: Map<string, ValidateFunction> } | null =
  null;

function load() {
  if (state) return state;
  const doc: Json = openApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(doc.paths as Json)) {
    for (const method of Object.keys(item)) {
      const segments = template.split('/');
      routes.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(
          `^${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}$`,
        ),
        literalSegments: segments.filter((s) => !s.startsWith('{')).length,
      });
    }
  }
  // A literal path wins over a template (/v1/providers/predict before /v1/providers/{x}).
  routes.sort((a, b) => b.literalSegments - a.literalSegments);
  state = { doc, ajv, routes, validators: new Map() };
  return state;
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validator(ref: string): ValidateFunction {
  const s = load();
  let v = s.validators.get(ref);
  if (!v) {
    v = s.ajv.compile({ $ref: `openapi#/${ref}` });
    s.validators.set(ref, v);
  }
  return v;
}

export class ContractViolation extends Error {}

/**
 * Throws when a response is not what the document says this operation answers. An unknown route
 * must be the documented 404 NOT_FOUND problem (or 401/429, which /v1 answers before routing).
 */
export function assertConforms(
  method: string,
  url: string,
  res: { status: number; contentType: string | null; body: unknown },
): void {
  const { routes, doc } = load();
  const path = new URL(url, 'http://x').pathname;
  // As OpenAPI resolves a path: the most literal matching template owns it, whatever the method.
  const matching = routes.filter((r) => r.pattern.test(path));
  const route = matching.find(
    (r) => r.method === method.toUpperCase() && r.literalSegments === matching[0]!.literalSegments,
  );
  const where = `${method.toUpperCase()} ${path} → ${res.status}`;
  const mediaType = (res.contentType ?? '').split(';')[0]!.trim();
  if (!route) {
    const problem = res.body as { code?: string } | undefined;
    // A documented path asked with another method: 405 METHOD_NOT_ALLOWED, or 204 to OPTIONS.
    const knownPath = routes.some((r) => r.pattern.test(path));
    if (knownPath && method.toUpperCase() === 'OPTIONS' && res.status === 204) return;
    const allowed =
      mediaType === 'application/problem+json' &&
      ((res.status === 404 && problem?.code === 'NOT_FOUND') ||
        (knownPath && res.status === 405 && problem?.code === 'METHOD_NOT_ALLOWED') ||
        (path.startsWith('/v1') && [401, 429, 503].includes(res.status)));
    if (!allowed) throw new ContractViolation(`${where}: no such operation in the OpenAPI document`);
    check(pointer('components', 'schemas', 'Problem'), res.body, where);
    return;
  }
  const responses = doc.paths[route.template][route.method.toLowerCase()].responses as Json;
  const status = String(res.status);
  const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k]);
  const documented = key ? responses[key] : undefined;
  if (!key || !documented)
    throw new ContractViolation(
      `${where}: status not documented for ${route.method} ${route.template} (documented: ${Object.keys(responses).join(', ')})`,
    );
  const content = documented.content as Json | undefined;
  if (!content) {
    if (res.body !== undefined && res.body !== '')
      throw new ContractViolation(`${where}: documented without a body, got ${JSON.stringify(res.body)}`);
    return;
  }
  if (!content[mediaType])
    throw new ContractViolation(
      `${where}: content type ${mediaType || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`,
    );
  if (!mediaType.endsWith('json')) return;
  check(
    pointer(
      'paths',
      route.template,
      route.method.toLowerCase(),
      'responses',
      key,
      'content',
      mediaType,
      'schema',
    ),
    res.body,
    where,
  );
}

function check(ref: string, body: unknown, where: string): void {
  const validate = validator(ref);
  if (validate(body)) return;
  const errors = (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n  ');
  throw new ContractViolation(
    `${where}: body does not conform to the OpenAPI document\n  ${errors}\n  body: ${JSON.stringify(body).slice(0, 1500)}`,
  );
}

/** Only answers of this service are checked: it sets X-Request-Id on every one (test-only apps do not). */
export function isServiceResponse(headers: Headers): boolean {
  return headers.has('x-request-id');
}
