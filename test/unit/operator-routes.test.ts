import { WaveConnector } from '../../src/operators/connectors/wave/connector';
import { configSchema } from '../../src/config';
import { operatorRoutesJson, routeOf, routeRefusals, routesOf } from '../../src/operators/connectors/routes';
import {
  ModeGateway,
  modeOfIdFromRecords,
  RoutedGateway,
  scopeOfIdFromRecords,
} from '../../src/operators/connectors/routing';
import type { Connector, ConnectorName } from '../../src/operators/connectors/connector';
import {
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type OperatorGateway,
  type OperatorStatus,
} from '../../src/operators/gateway';
import { publishedByPair } from '../../src/main/operators';
import { fromProviderUuid, toProviderUuid } from '../../src/operators/provider-ids';
import { modeOfScope, scopeOf } from '../../src/domain/modes';

const answered = (by: string): OperatorStatus => ({ outcome: 'completed', operatorReference: by });

/** A connector that answers with its own name, so a test sees which one a call reached. */
function stubConnector(name: ConnectorName): Connector {
  const answer = () => Promise.resolve(answered(name));
  return {
    name,
    serves: [
      { operator: 'MTN', country: 'CI' },
      { operator: 'WAVE', country: 'CI' },
    ],
    requestCollection: answer,
    collectionStatus: answer,
    partnerCheck: () => Promise.resolve({ collected: true }),
    disburse: answer,
    disbursementStatus: answer,
    refund: answer,
    refundStatus: answer,
    cancel: answer,
    statement: () => Promise.reject(new Error('none')),
    verifyCallback: () => Promise.resolve(null),
  };
}

const collection = {
  transactionId: 'pr_000000000000000000000001',
  operator: 'MTN' as const,
  country: 'CI' as const,
  msisdn: '+2250500000001',
  amount: 5000,
  currency: 'XOF',
  sandboxScenario: null,
};

describe('operator routes (OPERATOR_ROUTES)', () => {
  it('reads "*", a provider and a per-operation route', () => {
    const table = operatorRoutesJson.parse(
      JSON.stringify({ '*': 'pawapay', WAVE_CI: 'wave', MTN_CM: { payin: 'mtn', refund: 'mtn' } }),
    );
    expect(routeOf(table, 'ORANGE', 'CI', 'payout')).toBe('pawapay');
    expect(routeOf(table, 'WAVE', 'CI', 'refund')).toBe('wave');
    expect(routeOf(table, 'MTN', 'CM', 'payin')).toBe('mtn');
    expect(routeOf(table, 'MTN', 'CM', 'payout')).toBeNull();
    expect(routeOf(table, 'MTN', 'CM', 'refund')).toBe('mtn');
  });

  it('refuses an unknown provider or connector at start, naming the variable', () => {
    expect(() => configSchema.parse({ OPERATOR_ROUTES: '{"MTN_GH":"pawapay"}' })).toThrow(/OPERATOR_ROUTES/);
    expect(() => configSchema.parse({ OPERATOR_ROUTES: '{"*":"paypal"}' })).toThrow(/OPERATOR_ROUTES/);
    expect(() => configSchema.parse({ OPERATOR_ROUTES: 'pawapay' })).toThrow(/OPERATOR_ROUTES/);
    // Not offered: WAVE in Cameroon.
    expect(() => configSchema.parse({ OPERATOR_ROUTES: '{"WAVE_CM":"wave"}' })).toThrow(/OPERATOR_ROUTES/);
  });

  it('refuses routes to a connector without credentials, to a pair it does not serve, and the simulator in production', () => {
    const table = operatorRoutesJson.parse('{"MTN_CI":"pawapay","ORANGE_CI":"wave","WAVE_CI":"simulator"}');
    const configured = new Map([
      ['wave', stubConnector('wave')],
      ['simulator', stubConnector('simulator')],
    ] as const);
    const refusals = routeRefusals(table, configured, true);
    expect(refusals).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/MTN_CI payin is routed to pawapay, whose credentials are not configured/),
        expect.stringMatching(/wave does not serve ORANGE_CI/),
        expect.stringMatching(/WAVE_CI payin is routed to the sandbox simulator, refused in production/),
      ]),
    );
    expect(routeRefusals(table, configured, false).some((r) => r.includes('simulator'))).toBe(false);
  });

  it("refuses payins routed to a connector whose sessions' customers could not come back (Wave without https)", () => {
    const table = operatorRoutesJson.parse('{"WAVE_CI":"wave"}');
    const refusal = "a payin session's customer must come back from Wave's page to an https address";
    const wave = { ...stubConnector('wave'), sessionRefusal: refusal };
    expect(routeRefusals(table, new Map([['wave', wave]] as const), false)).toEqual([
      `OPERATOR_ROUTES: WAVE_CI payin is routed to wave, but ${refusal}`,
    ]);
    const returning = { ...stubConnector('wave'), sessionRefusal: null };
    expect(routeRefusals(table, new Map([['wave', returning]] as const), false)).toEqual([]);

    // Wave's own connector: back to our https checkout page, or to both configured defaults.
    const refusalOf = (o: Partial<ConstructorParameters<typeof WaveConnector>[0]>) =>
      new WaveConnector({
        baseUrl: 'https://api.wave.com',
        checkoutApiKey: 'k',
        payoutApiKey: 'k',
        webhookSecret: null,
        successUrl: null,
        errorUrl: null,
        timeoutMs: 1_000,
        refundOrigin: null,
        checkoutPage: null,
        webhookToleranceSeconds: 300,
        ...o,
      }).sessionRefusal;
    expect(refusalOf({})).toMatch(/https PUBLIC_BASE_URL, or WAVE_SUCCESS_URL and WAVE_ERROR_URL/);
    expect(refusalOf({ successUrl: 'https://shop.example/ok' })).not.toBeNull();
    expect(
      refusalOf({ successUrl: 'https://shop.example/ok', errorUrl: 'https://shop.example/ko' }),
    ).toBeNull();
    expect(refusalOf({ checkoutPage: (id) => `https://pay.example/checkout/${id}` })).toBeNull();
  });

  it('refuses refunds routed away from the connector that collected the payins', () => {
    const table = operatorRoutesJson.parse('{"MTN_CI":{"payin":"mtn","payout":"mtn","refund":"pawapay"}}');
    const configured = new Map([
      ['mtn', stubConnector('mtn')],
      ['pawapay', stubConnector('pawapay')],
    ] as const);
    expect(routeRefusals(table, configured, false)).toEqual([
      expect.stringMatching(/MTN_CI payins go to mtn but its refunds do not/),
    ]);
    // Every connector that may collect a payin must refund it: a second payin route needs its refunds.
    const two = operatorRoutesJson.parse('{"MTN_CI":{"payin":["mtn","pawapay"],"refund":"mtn"}}');
    expect(routeRefusals(two, configured, false)).toEqual([
      expect.stringMatching(/MTN_CI payins go to pawapay but its refunds do not/),
    ]);
    const both = operatorRoutesJson.parse('{"MTN_CI":["mtn","pawapay"]}');
    expect(routeRefusals(both, configured, false)).toEqual([]);
  });

  it('reads a list of connectors as routes asked in order, each at most once', () => {
    const table = operatorRoutesJson.parse('{"MTN_CI":["pawapay","mtn"],"WAVE_CI":{"payin":["wave"]}}');
    expect(routesOf(table, 'MTN', 'CI', 'payin')).toEqual(['pawapay', 'mtn']);
    expect(routeOf(table, 'MTN', 'CI', 'refund')).toBe('pawapay');
    expect(routesOf(table, 'WAVE', 'CI', 'payin')).toEqual(['wave']);
    expect(routesOf(table, 'WAVE', 'CI', 'payout')).toEqual([]);
    expect(operatorRoutesJson.safeParse('{"MTN_CI":["mtn","mtn"]}').success).toBe(false);
    expect(operatorRoutesJson.safeParse('{"MTN_CI":[]}').success).toBe(false);
  });
});

describe('the routed live gateway', () => {
  const table = operatorRoutesJson.parse('{"MTN_CI":{"payin":"pawapay","payout":"mtn"}}');
  const gateway = new RoutedGateway(
    table,
    new Map([
      ['pawapay', stubConnector('pawapay')],
      ['mtn', stubConnector('mtn')],
    ] as const),
  );

  it('sends each operation to its route', async () => {
    await expect(gateway.requestCollection(collection)).resolves.toMatchObject({
      operatorReference: 'pawapay',
    });
    await expect(gateway.disburse(collection)).resolves.toMatchObject({ operatorReference: 'mtn' });
    await expect(gateway.cancel('disbursement', 'pr_x', 'MTN', 'CI')).resolves.toMatchObject({
      operatorReference: 'mtn',
    });
  });

  it('refuses a new request with no route, and never answers a status read without one', async () => {
    await expect(
      gateway.refund({ ...collection, refundId: 'rf_000000000000000000000001' }),
    ).rejects.toBeInstanceOf(OperatorRejectedError);
    // A route removed while a refund is open must not end it: unavailable, retried.
    await expect(gateway.refundStatus('rf_1', 'MTN', 'CI')).rejects.toBeInstanceOf(OperatorUnavailableError);
  });
});

describe('a live pair’s published state for provider health', () => {
  it('holds a pair only when every route is delayed: the best of its routes’, for the pairs served here', async () => {
    const pawapay = {
      ...stubConnector('pawapay'),
      availability: () =>
        Promise.resolve([
          {
            operator: 'MTN' as const,
            country: 'CI' as const,
            operation: 'payout' as const,
            status: 'delayed' as const,
          },
          {
            operator: 'WAVE' as const,
            country: 'CI' as const,
            operation: 'payout' as const,
            status: 'delayed' as const,
          },
          {
            operator: 'ORANGE' as const,
            country: 'CI' as const,
            operation: 'payout' as const,
            status: 'closed' as const,
          },
        ]),
    };
    const connectors = new Map<ConnectorName, Connector>([
      ['pawapay', pawapay],
      ['mtn', stubConnector('mtn')],
    ]);
    const table = operatorRoutesJson.parse('{"MTN_CI":["pawapay","mtn"],"WAVE_CI":"pawapay"}');
    const published = publishedByPair({
      sandbox: null as never,
      sandboxRoutes: null as never,
      sandboxControls: null as never,
      live: new RoutedGateway(table, connectors),
      routes: table,
      connectors,
    });
    // MTN CI's second route says nothing (operational): not held. Wave CI has pawaPay alone: held.
    // Orange CI is not served here: pawaPay's word on it counts for nothing.
    expect(await published()).toEqual([
      { operator: 'MTN', country: 'CI', operation: 'payout', status: 'operational' },
      { operator: 'WAVE', country: 'CI', operation: 'payout', status: 'delayed' },
    ]);
  });
});

describe('the mode gateway', () => {
  const sandbox = stubConnector('simulator') as OperatorGateway;
  const live = stubConnector('pawapay') as OperatorGateway;
  const scopes: Record<string, string> = {
    pr_test: scopeOf('mer_000000000000000000000001', 'test'),
    pr_live: scopeOf('mer_000000000000000000000001', 'live'),
  };
  let reads = 0;
  const gateway = new ModeGateway(
    sandbox,
    live,
    modeOfIdFromRecords({
      transactionScope: (id) => {
        reads++;
        return Promise.resolve(scopes[id] ?? null);
      },
      refundScope: () => Promise.resolve(null),
      modeOfScope,
    }),
  );

  it('sends a test transaction to the sandbox and a live one to its route, reading its mode once', async () => {
    await expect(gateway.collectionStatus('pr_test', 'MTN', 'CI')).resolves.toMatchObject({
      operatorReference: 'simulator',
    });
    await expect(gateway.collectionStatus('pr_live', 'MTN', 'CI')).resolves.toMatchObject({
      operatorReference: 'pawapay',
    });
    await gateway.collectionStatus('pr_live', 'MTN', 'CI');
    expect(reads).toBe(2);
  });

  it('a transaction whose record is not found yet is unavailable (retried), not sent anywhere', async () => {
    await expect(gateway.refundStatus('rf_unknown', 'MTN', 'CI')).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
  });
});

describe('the mode gateway, given the tenant with the request', () => {
  it('routes by it and reads no record, for the request nor for its status reads', async () => {
    const sent: CollectionRequest[] = [];
    const sandbox = {
      ...stubConnector('simulator'),
      requestCollection: (req: CollectionRequest) => {
        sent.push(req);
        return Promise.resolve(answered('simulator'));
      },
    } as OperatorGateway;
    let reads = 0;
    const read = {
      transactionScope: () => {
        reads++;
        return Promise.resolve(null);
      },
      refundScope: () => Promise.resolve(null),
    };
    const scopes = scopeOfIdFromRecords(read);
    const gateway = new ModeGateway(
      sandbox,
      stubConnector('pawapay'),
      modeOfIdFromRecords({ ...read, modeOfScope }, scopes),
      scopes,
    );
    const test = scopeOf('mer_000000000000000000000001', 'test');
    const live = scopeOf('mer_000000000000000000000001', 'live');
    await expect(
      gateway.requestCollection({ ...collection, transactionId: 'pr_t', scope: test }),
    ).resolves.toMatchObject({ operatorReference: 'simulator' });
    expect(sent[0]?.sandboxScope).toBe(test);
    await expect(gateway.collectionStatus('pr_t', 'MTN', 'CI')).resolves.toMatchObject({
      operatorReference: 'simulator',
    });
    await expect(
      gateway.disburse({ ...collection, transactionId: 'po_l', scope: live }),
    ).resolves.toMatchObject({ operatorReference: 'pawapay' });
    await expect(gateway.disbursementStatus('po_l', 'MTN', 'CI')).resolves.toMatchObject({
      operatorReference: 'pawapay',
    });
    expect(reads).toBe(0);
    // Without it (a history from before), the record decides: none yet is unavailable, retried.
    await expect(gateway.requestCollection({ ...collection, transactionId: 'pr_x' })).rejects.toBeInstanceOf(
      OperatorUnavailableError,
    );
    expect(reads).toBe(1);
  });
});

describe('provider UUIDs from our ids', () => {
  it('are fixed, UUID-shaped, reversible, and refuse what we did not make', () => {
    const id = 'rf_0123456789abcdef01234567';
    const uuid = toProviderUuid(id);
    expect(uuid).toBe(toProviderUuid(id));
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(fromProviderUuid(uuid)).toBe(id);
    expect(fromProviderUuid(uuid.toUpperCase())).toBe(id);
    expect(fromProviderUuid(`${uuid.slice(0, -1)}${uuid.endsWith('0') ? '1' : '0'}`)).toBeNull();
    expect(fromProviderUuid('3f2b6a1e-0c4d-4e5f-9a6b-7c8d9e0f1a2b')).toBeNull();
    expect(() => toProviderUuid('evt_0123456789abcdef01234567')).toThrow();
  });
});
