import { toProviderUuid } from '../../src/operators/provider-ids';
import { installPawapayFaults, livePartyOf, PawapayIndex } from '../faults/pawapay/rules';
import { drawPlans, type Plan } from '../faults/schedule';
import type { FaultProxy, FaultRule } from '../helpers/fault-proxy';

// The live fault suite's plans on pawaPay (test/faults/pawapay/rules.ts): the number tells the
// fake what to do, and a request, a read or a callback is traced to its plan by pawaPay's own ids.

const plans = drawPlans(30, 20_261_123);
const partyOf = livePartyOf(plans);

describe('pawaPay fault rules', () => {
  it('gives each planned outcome the fake number ending for it, carriers following their refund', () => {
    for (const p of plans) {
      if (p.kind === 'refund') continue;
      const { msisdn, country } = partyOf(p);
      expect(msisdn).toMatch(country === 'CI' ? /^\+2250[15]\d{8}$/ : /^\+2376\d{8}$/);
      const refund = plans.find((r) => r.kind === 'refund' && r.payin === p);
      const scenario = refund ? (refund.scenario === 'failed' ? 'pending' : 'completed') : p.scenario;
      const end = msisdn.slice(-3);
      if (scenario === 'pending') expect(end).toBe('129');
      else if (scenario === 'failed') expect(['039', '049']).toContain(end);
      else expect(['039', '049', '129']).not.toContain(end);
    }
  });

  it('traces a request by its amount, a read and a callback by the UUID of our id', () => {
    const index = new PawapayIndex(plans);
    const payout = plans.find((p) => p.kind === 'payout')!;
    const payin = plans.find((p) => p.kind === 'payin')!;
    const uuid = toProviderUuid('pr_0123456789abcdef01234567');
    const post = {
      method: 'POST',
      path: '/v2/payouts',
      body: JSON.stringify({ payoutId: uuid, amount: String(payout.amount) }),
    };
    expect(index.of(post)).toBe(payout);
    expect(payout.askedAt).not.toBeNull();
    expect(index.of({ method: 'GET', path: `/v2/payouts/${uuid}`, body: '' })).toBe(payout);
    expect(index.of({ method: 'POST', path: `/v2/payouts/fail-enqueued/${uuid}`, body: '{}' })).toBe(payout);
    // A payin learnt from the API's answer: its reads and callbacks by fromProviderUuid.
    index.learn(payin, 'pr_0000000000000000000000aa');
    const payinUuid = toProviderUuid('pr_0000000000000000000000aa');
    expect(index.of({ method: 'GET', path: `/v2/deposits/${payinUuid}`, body: '' })).toBe(payin);
    const callback = {
      method: 'POST',
      path: '/provider-callbacks/pawapay',
      body: JSON.stringify({ depositId: payinUuid }),
    };
    expect(index.of(callback)).toBe(payin);
    expect(
      index.of({
        method: 'GET',
        path: `/v2/deposits/${toProviderUuid('pr_ffffffffffffffffffffffff')}`,
        body: '',
      }),
    ).toBeNull();
  });

  it('puts the faults on pawaPay paths in pawaPay terms: 404 reads as NOT_FOUND, pending as PROCESSING', () => {
    const rules: FaultRule[] = [];
    const proxy = { add: (r: FaultRule) => rules.push(r) } as unknown as FaultProxy;
    installPawapayFaults(
      plans,
      new PawapayIndex(plans),
      { provider: proxy, callbacks: proxy },
      () => 20_000,
      partyOf,
    );
    const faults = rules.map((r) => r.fault);
    expect(faults).toContainEqual({ kind: 'rewrite', patch: { status: 'NOT_FOUND', data: undefined } });
    const pending = plans.find(
      (p): p is Plan => p.schedule.reads !== null && !('fault' in p.schedule.reads),
    )!;
    expect(faults).toContainEqual({
      kind: 'rewrite',
      patch: { data: expect.objectContaining({ status: 'PROCESSING', amount: String(pending.amount) }) },
    });
    for (const r of rules) expect(String(r.path)).toMatch(/v2|provider-callbacks/);
    for (const f of faults)
      if (f.kind === 'error' && f.status < 500) expect(JSON.stringify(f.body)).toContain('REJECTED');
  });
});
