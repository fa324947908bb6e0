import { openApiDocument } from '../../src/api/openapi/document';
import { allowedMethods, pathMethods } from '../../src/api/method-not-allowed';
import { accountEntriesQuery } from '../../src/contract/schemas/accounts';
import { validNumberPattern } from '../../src/domain/msisdn';

// Where the fuzz (schemathesis) found the document looser than the service: the document now says
// exactly what is accepted, so a request it calls valid is one the service takes.
const doc = openApiDocument() as Record<string, any>;

describe('OpenAPI document precision', () => {
  it('states the statement `limit` rule exactly: its pattern accepts what the route accepts', () => {
    const param = doc.paths['/v1/accounts/{id}/entries'].get.parameters.find(
      (p: { name: string }) => p.name === 'limit',
    );
    const pattern = new RegExp(param.schema.pattern);
    const samples = [
      ...Array.from({ length: 1001 }, (_, i) => String(i)),
      '',
      '01',
      '007',
      '2.5',
      '-1',
      '1e2',
    ];
    for (const limit of samples) {
      const accepted = accountEntriesQuery.safeParse({ limit }).success;
      expect([limit, pattern.test(limit)]).toEqual([limit, accepted]);
    }
  });

  it('gives phone numbers the pattern of every valid CI and CM number', () => {
    const schemas = doc.components.schemas;
    for (const name of ['DirectPayoutRequest', 'PayinSessionRequest', 'StandardPayoutRequest']) {
      const body = schemas[name].properties;
      const msisdn = body.msisdn ?? body.payout.properties.msisdn;
      expect([name, msisdn.pattern]).toEqual([name, validNumberPattern()]);
    }
    expect(schemas.DirectPayinRequest.properties.payin.properties.msisdn.pattern).toBe(validNumberPattern());
    const predict = doc.paths['/v1/providers/predict'].get.parameters[0];
    expect(predict.schema.pattern).toBe(validNumberPattern('optional'));
  });

  it('documents the checkout decline body, and the 405 of a method a path does not list', () => {
    expect(doc.paths['/checkout/{id}/decline'].post.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/CheckoutDeclineRequest' } } },
    });
    const notAllowed = doc.components.responses.MethodNotAllowed;
    expect(notAllowed.headers.Allow).toBeDefined();
    expect(notAllowed.content['application/problem+json'].schema.allOf[1].properties.code.enum).toEqual([
      'METHOD_NOT_ALLOWED',
    ]);
  });

  it('resolves a path to its most literal template, as OpenAPI does', () => {
    const table = pathMethods(doc.paths);
    expect(allowedMethods(table, '/v1/payin/sessions')).toEqual(['POST', 'OPTIONS']);
    expect(allowedMethods(table, '/v1/payin/order-1')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(allowedMethods(table, '/v1/payin/order-1/refund')).toEqual(['POST', 'OPTIONS']);
    expect(allowedMethods(table, '/v1/webhooks/we_1')).toEqual(['GET', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
    expect(allowedMethods(table, '/v1/nowhere')).toBeNull();
    expect(allowedMethods(table, '/v1/payin/a/b/c')).toBeNull();
  });
});
