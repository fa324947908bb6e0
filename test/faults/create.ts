import type { Http } from './http';
import type { PayinPlan, Plan, PlanIndex, Provider } from './schedule';

// How the fault suite (test/faults/faults.test.ts) creates each planned transaction through the API,
// retrying as a client would until the run's budget ends.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CreationContext {
  http: Http;
  /** When to give up (ms since epoch). */
  budgetEnd: number;
  index: Pick<PlanIndex, 'learn'>;
  /** Refunds whose carrier payin ended without success, with its status: nothing to refund. */
  withoutCarrier: Map<Plan, string>;
  /**
   * Live mode (test/faults/pawapay-faults.test.ts): no sandbox scenario (live mode refuses one);
   * the party's number tells the provider what to do. Direct payins only.
   */
  live?: (p: Plan) => { msisdn: string; provider: Provider; country: 'CI' | 'CM' };
}

/** The sandbox scenario, or none in live mode. */
const scenarioOf = (live: CreationContext['live'], p: Plan) => (live ? {} : { sandboxScenario: p.scenario });

export async function createPayin(
  { http, budgetEnd, index, live }: CreationContext,
  p: PayinPlan,
): Promise<void> {
  const msisdn = {
    MTN: '+2250500001001',
    ORANGE: '+2250700001001',
    MOOV: '+2250100001001',
    WAVE: '+2250100001001',
  }[p.provider];
  if (p.flow === 'direct') {
    p.startedAt = Date.now();
    const res = await http.create(
      '/v1/direct/payin',
      {
        reference: p.reference,
        ...scenarioOf(live, p),
        customerName: 'Awa Koné',
        payin: live
          ? { amount: p.amount, ...live(p) }
          : {
              amount: p.amount,
              msisdn,
              provider: p.provider,
              country: 'CI',
              ...(p.provider === 'ORANGE' ? { otp: '1234' } : {}),
            },
        action: {
          successUrl: 'https://merchant.example/ok',
          failureUrl: 'https://merchant.example/ko',
        },
      },
      budgetEnd,
    );
    p.id = res.id as string;
    return;
  }
  const session = await http.create(
    '/v1/payin/sessions',
    {
      reference: p.reference,
      sandboxScenario: p.scenario,
      amount: p.amount,
      msisdn,
      customerName: 'Awa Koné',
      country: 'CI',
      action: {
        successUrl: 'https://merchant.example/ok',
        failureUrl: 'https://merchant.example/ko',
      },
    },
    budgetEnd,
  );
  p.id = session.id as string;
  index.learn(p, p.id);
  // The customer confirms on the hosted page, from an address of its own (the page's rate limit is per address).
  p.startedAt = Date.now();
  const ip = `10.${(p.index >> 16) & 255}.${(p.index >> 8) & 255}.${p.index & 255}`;
  for (;;) {
    const res = await http
      .request(
        'POST',
        `/checkout/${p.id}/confirm`,
        { provider: 'MTN', msisdn },
        { 'x-forwarded-for': ip },
        false,
      )
      .catch(() => null);
    if (res && (res.status === 200 || res.status === 409)) return;
    if (res && ![429, 503].includes(res.status))
      throw new Error(`confirm answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (Date.now() > budgetEnd)
      throw new Error(`confirm not accepted within the budget (last ${res?.status})`);
    await sleep(500);
  }
}

export async function createPayout(
  { http, budgetEnd, live }: CreationContext,
  p: Extract<Plan, { kind: 'payout' }>,
): Promise<void> {
  p.startedAt = Date.now();
  const res = await http.create(
    '/v1/direct/payout',
    {
      reference: p.reference,
      ...scenarioOf(live, p),
      customerName: 'Kouassi Yao',
      payout: {
        amount: p.amount,
        ...(live ? live(p) : { msisdn: '+2250500002001', provider: 'MTN', country: 'CI' }),
      },
    },
    budgetEnd,
  );
  p.id = res.id as string;
}

export async function createRefund(
  { http, budgetEnd, withoutCarrier, live }: CreationContext,
  p: Extract<Plan, { kind: 'refund' }>,
): Promise<void> {
  // Its carrier payin is created just before it in the same pool: wait for its success.
  for (;;) {
    const read = await http.request('GET', `/v1/payin/${p.payin.reference}`).catch(() => null);
    if (read?.status === 200 && read.body.status === 'success') break;
    if (read?.status === 200 && (read.body.status === 'failed' || read.body.status === 'expired')) {
      withoutCarrier.set(p, String(read.body.status));
      return;
    }
    if (Date.now() > budgetEnd)
      throw new Error(`its payin ${p.payin.reference} never succeeded (${String(read?.body?.status)})`);
    await sleep(1_000);
  }
  p.startedAt = Date.now();
  const res = await http.create(
    `/v1/payin/${p.payin.reference}/refund`,
    {
      amount: p.amount,
      reason: 'fault suite refund',
      externalReference: p.reference,
      ...scenarioOf(live, p),
    },
    budgetEnd,
  );
  p.id = res.reference as string;
}
