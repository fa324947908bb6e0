import { execFile } from 'node:child_process';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/api/openapi/document';
import { declaredOperations } from '../../src/api/openapi/registry';
import { problemCatalogue, type Catalogue } from '../../src/contract/problems';
import { eventTypes } from '../../src/events/catalogue';
import { assertConforms, ContractViolation } from '../helpers/contract';

// The OpenAPI document: valid OpenAPI 3.1, complete, its examples true, and the committed client current.
const doc = openApiDocument() as Record<string, any>;

/** The validator and openapi-typescript are ES modules only: checked in a child process (tsx). */
const contractCheck = new Promise<{ valid: boolean; errors: unknown[]; clientCurrent: boolean }>(
  (resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '../../scripts/check-contract.ts')],
      { timeout: 90_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  },
);

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const result = await contractCheck;
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('documents every endpoint of the interface, both payout shapes, security, idempotency and webhooks', () => {
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(ops).toEqual(
      expect.arrayContaining([
        'POST /v1/direct/payin',
        'GET /v1/payin/{reference}',
        'POST /v1/payin/sessions',
        'POST /v1/direct/payout',
        'GET /v1/direct/payout/{reference}',
        'POST /v1/payout',
        'GET /v1/payout/{reference}',
        'POST /v1/payin/{reference}/refund',
      ]),
    );
    const payout = doc.paths['/v1/payout'].post;
    expect(payout.requestBody.content['application/json'].schema.oneOf).toEqual([
      { $ref: '#/components/schemas/StandardPayoutRequest' },
      { $ref: '#/components/schemas/AccountPayoutRequest' },
    ]);
    expect(doc.components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(payout.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventTypes].sort());
    // The refund errors of the interface, each with its code.
    const refund = doc.paths['/v1/payin/{reference}/refund'].post.responses;
    for (const [status, code] of [
      ['400', 'INVALID_AMOUNT'],
      ['401', 'UNAUTHORIZED'],
      ['403', 'REFUND_NOT_ALLOWED'],
      ['404', 'PAYMENT_NOT_FOUND'],
      ['409', 'DUPLICATE_REFUND'],
      ['500', 'INTERNAL_ERROR'],
    ])
      expect(
        refund[status!].content['application/problem+json'].schema.allOf[1].properties.code.enum,
      ).toContain(code);
  });

  it('lists every problem code of the catalogue somewhere, and every operation has an example', () => {
    // The paths, and the 405 a path answers to a method it does not list (components.responses).
    const text = JSON.stringify([doc.paths, doc.components.responses]);
    for (const [code, entry] of Object.entries(problemCatalogue) as [string, Catalogue][])
      if (!entry.dashboardOnly) expect(text).toContain(`"${code}"`);
    for (const op of declaredOperations()) {
      const hasExample =
        op.body?.example !== undefined || Object.values(op.responses).some((r) => r.example !== undefined);
      const hasBody = !!op.body || Object.values(op.responses).some((r) => r.schema && !r.contentType);
      if (hasBody && op.tag !== 'Operations' && op.tag !== 'Operators' && op.path !== '/v1/ws')
        expect([op.operationId, hasExample]).toEqual([op.operationId, true]);
    }
  });

  it('has examples that conform to their own schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi');
    const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    let checked = 0;
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, any>>))
      for (const [m, op] of Object.entries(item)) {
        const media: [string, any][] = [
          ...Object.entries(op.requestBody?.content ?? {}).map(
            ([ct, c]) => [`requestBody/content/${esc(ct)}`, c] as [string, any],
          ),
          ...Object.entries(op.responses as Record<string, any>).flatMap(([s, r]) =>
            Object.entries(r.content ?? {}).map(
              ([ct, c]) => [`responses/${s}/content/${esc(ct)}`, c] as [string, any],
            ),
          ),
        ];
        for (const [at, c] of media) {
          if (c.example === undefined) continue;
          const validate = ajv.compile({ $ref: `openapi#/paths/${esc(p)}/${m}/${at}/schema` });
          expect([`${m} ${p} ${at}`, validate(c.example) ? [] : validate.errors]).toEqual([
            `${m} ${p} ${at}`,
            [],
          ]);
          checked += 1;
        }
      }
    expect(checked).toBeGreaterThan(40);
  });

  it('conformance check refuses an undocumented route, status or body', () => {
    const ok = { status: 200, contentType: 'application/json', body: { status: 'ok' } };
    expect(() => assertConforms('GET', '/health/live', ok)).not.toThrow();
    expect(() => assertConforms('GET', '/health/live', { ...ok, body: { status: 'ko' } })).toThrow(
      ContractViolation,
    );
    expect(() => assertConforms('GET', '/health/live', { ...ok, status: 202 })).toThrow(
      /status not documented/,
    );
    expect(() => assertConforms('GET', '/v1/nowhere', ok)).toThrow(/no such operation/);
    expect(() =>
      assertConforms('GET', '/v1/payin/x', {
        status: 404,
        contentType: 'application/problem+json',
        body: { type: '/docs/errors#REFUND_NOT_FOUND', title: 't', status: 404, code: 'REFUND_NOT_FOUND' },
      }),
    ).toThrow(/code/);
  });

  it("the typed client's types (sdk/openapi.json, sdk/node/src/generated) come from the current document", async () => {
    // Stale? Run `npm run generate:client` and commit the result.
    expect((await contractCheck).clientCurrent).toBe(true);
  });
});
