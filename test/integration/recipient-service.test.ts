import { maskPhonesInText } from '../../src/infra/log-masking';
import type { Mode } from '../../src/domain/modes';
import type { Country } from '../../src/domain/operators';
import { OperatorRejectedError, OperatorUnavailableError } from '../../src/operators/gateway';
import type { RecipientInfo } from '../../src/operators/connectors/connector';
import {
  RecipientService,
  recipientSourceOf,
  type RecipientSource,
} from '../../src/services/recipient-service';

// The recipient check's cache, its coalescing, its fallbacks and what it reports, with a stubbed
// provider (no stack: the route's own tests are in recipient.test.ts).

const mtn: RecipientInfo = { operator: 'MTN', country: 'CI', active: true, holderName: 'Awa Koné' };

function counting(answer: (msisdn: string) => Promise<RecipientInfo | null>) {
  const calls: string[] = [];
  const source: RecipientSource = (_mode, msisdn) => {
    calls.push(msisdn);
    return answer(msisdn);
  };
  return { calls, source };
}

describe('RecipientService', () => {
  it('reuses an answer within the TTL, with its time, and asks again after it', async () => {
    let now = 1_000_000;
    const { calls, source } = counting(() => Promise.resolve(mtn));
    const svc = new RecipientService({ source, cacheTtlMs: 60_000, now: () => now });
    const first = await svc.check('test', '+2250500000001', 'CI');
    expect(first).toMatchObject({
      operator: 'MTN',
      provider: 'MTN_CI',
      predictedBy: 'provider',
      checked: true,
    });
    expect(first).toMatchObject({ active: true, holderName: 'Awa Koné' });
    now += 59_000;
    expect(await svc.check('test', '+2250500000001', 'CI')).toEqual(first);
    expect(calls).toHaveLength(1);
    now += 1_000;
    const third = await svc.check('test', '+2250500000001', 'CI');
    expect(calls).toHaveLength(2);
    expect(third.checkedAt).not.toBe(first.checkedAt);
  });

  it('keeps each mode apart: a test answer is never a live one', async () => {
    const modes: Mode[] = [];
    const svc = new RecipientService({
      source: (mode) => {
        modes.push(mode);
        return Promise.resolve(mode === 'live' ? null : mtn);
      },
    });
    expect((await svc.check('test', '+2250500000001', 'CI')).holderName).toBe('Awa Koné');
    const live = await svc.check('live', '+2250500000001', 'CI');
    expect(live).toMatchObject({ checked: false, holderName: null, operator: 'MTN', predictedBy: 'prefix' });
    expect(modes).toEqual(['test', 'live']);
  });

  it('is bounded: past its size, the oldest answer goes first', async () => {
    const { calls, source } = counting(() => Promise.resolve(mtn));
    const svc = new RecipientService({ source, cacheSize: 2 });
    for (const n of ['+2250500000001', '+2250500000002', '+2250500000003']) await svc.check('test', n, 'CI');
    expect(svc.cachedCount).toBe(2);
    await svc.check('test', '+2250500000003', 'CI'); // still cached
    await svc.check('test', '+2250500000001', 'CI'); // evicted: asked again
    expect(calls).toEqual(['+2250500000001', '+2250500000002', '+2250500000003', '+2250500000001']);
  });

  it('caches nothing with a TTL of 0', async () => {
    const { calls, source } = counting(() => Promise.resolve(mtn));
    const svc = new RecipientService({ source, cacheTtlMs: 0 });
    await svc.check('test', '+2250500000001', 'CI');
    await svc.check('test', '+2250500000001', 'CI');
    expect(calls).toHaveLength(2);
    expect(svc.cachedCount).toBe(0);
  });

  it('asks the provider once for concurrent checks of one number', async () => {
    let release!: (i: RecipientInfo) => void;
    const { calls, source } = counting(() => new Promise<RecipientInfo>((r) => (release = r)));
    const svc = new RecipientService({ source });
    const checks = Array.from({ length: 5 }, () => svc.check('test', '+2250500000001', 'CI'));
    await new Promise((r) => setImmediate(r));
    release(mtn);
    const answers = await Promise.all(checks);
    expect(calls).toHaveLength(1);
    expect(new Set(answers.map((a) => a.holderName))).toEqual(new Set(['Awa Koné']));
    // One answer, one time: every caller and the cache say the same checkedAt.
    const cached = await svc.check('test', '+2250500000001', 'CI');
    expect(new Set([...answers, cached].map((a) => a.checkedAt)).size).toBe(1);
  });

  it('answers the prefix when the provider is down, reports it without the number, and asks again next time', async () => {
    const reports: unknown[] = [];
    let down = true;
    const { calls, source } = counting(() =>
      down
        ? Promise.reject(new OperatorUnavailableError('GET /recipients/{msisdn}: HTTP 503'))
        : Promise.resolve(mtn),
    );
    const svc = new RecipientService({ source, onSourceError: (r) => reports.push(r) });
    const answer = await svc.check('live', '+2250700000001', 'CI');
    expect(answer).toMatchObject({
      operator: 'ORANGE',
      provider: 'ORANGE_CI',
      predictedBy: 'prefix',
      checked: false,
      active: null,
      holderName: null,
      checkedAt: null,
    });
    expect(reports).toEqual([{ mode: 'live', country: 'CI', error: 'OperatorUnavailableError' }]);
    expect(JSON.stringify(reports)).not.toMatch(/0700000001/);
    down = false;
    expect((await svc.check('live', '+2250700000001', 'CI')).checked).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it('a provider refusing the check (no route) is not reported as an outage', async () => {
    const reports: unknown[] = [];
    const svc = new RecipientService({
      source: () => Promise.reject(new OperatorRejectedError('no live route')),
      onSourceError: (r) => reports.push(r),
    });
    expect((await svc.check('live', '+2250500000001', 'CI')).checked).toBe(false);
    expect(reports).toEqual([]);
  });

  it("takes the provider's operator over the prefix, and none it does not offer in the country", async () => {
    const answers: Record<string, RecipientInfo> = {
      '+2250500000001': { operator: 'WAVE', country: 'CI', active: true, holderName: null },
      '+237670000001': { operator: 'MOOV', country: 'CM', active: null, holderName: null },
    };
    const svc = new RecipientService({ source: (_m, msisdn) => Promise.resolve(answers[msisdn]!) });
    expect(await svc.check('live', '+2250500000001', 'CI')).toMatchObject({
      operator: 'WAVE',
      predictedBy: 'provider',
    });
    // MOOV is not offered in CM: the prefix (MTN) answers.
    expect(await svc.check('live', '+237670000001', 'CM')).toMatchObject({
      operator: 'MTN',
      predictedBy: 'prefix',
    });
  });
});

describe('recipientSourceOf', () => {
  const stub = (name: string) => ({
    recipient: (_m: string, country: Country): Promise<RecipientInfo> =>
      Promise.resolve({ operator: null, country, active: null, holderName: name }),
  });

  it("test mode asks the sandbox; live mode the connector routed for the number's network, payouts first", async () => {
    const asked: string[] = [];
    const source = recipientSourceOf({
      sandbox: stub('sandbox'),
      connectorFor: (operator, _country, operation) => {
        asked.push(`${operator}:${operation}`);
        if (operator === 'MTN' && operation === 'payin') return stub('mtn-payin');
        if (operator === 'ORANGE' && operation === 'payout') return stub('pawapay');
        return null;
      },
    });
    expect((await source('test', '+2250500000001', 'CI'))?.holderName).toBe('sandbox');
    expect((await source('live', '+2250500000001', 'CI'))?.holderName).toBe('mtn-payin');
    expect((await source('live', '+2250700000001', 'CI'))?.holderName).toBe('pawapay');
    expect(asked).toEqual(['MTN:payout', 'MTN:payin', 'ORANGE:payout']);
    // Moov's number: no route offers a check, and no other operator is asked for it.
    asked.length = 0;
    expect(await source('live', '+2250100000001', 'CI')).toBeNull();
    expect(asked).toEqual(['MOOV:payout', 'MOOV:payin']);
  });

  it('a connector without recipient checks (Wave) is skipped', async () => {
    const source = recipientSourceOf({ sandbox: {}, connectorFor: () => ({}) });
    expect(await source('live', '+2250500000001', 'CI')).toBeNull();
    expect(await source('test', '+2250500000001', 'CI')).toBeNull();
  });
});

describe('access logs of recipient checks', () => {
  it.each([
    '/v1/providers/recipient?msisdn=%2B2250500000001&country=CI',
    '/v1/providers/recipient?msisdn=%2b2250500000001&country=CI',
    '/v1/providers/recipient?msisdn=+2250500000001&country=CI',
    '/v1/providers/recipient?msisdn=2250500000001&country=CI',
  ])('mask the number in %s', (url) => {
    expect(maskPhonesInText(url)).not.toMatch(/0500000/);
    expect(maskPhonesInText(url)).toMatch(/0001&country=CI$/);
  });
});
