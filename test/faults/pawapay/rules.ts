import { fromProviderUuid } from '../../../src/operators/provider-ids';
import type { Fault, FaultProxy, FaultRequest } from '../../helpers/fault-proxy';
import { anchorOf, operatorPathOf, type OperatorPath, type Plan, type Provider } from '../schedule';

// The live fault suite's plans on pawaPay (test/faults/pawapay-faults.test.ts): the same drawn
// schedules as the simulator's suite (draw.ts), told to pawaPay by the party's number (the fake's
// table: ...039 / ...049 fail, ...129 stays in flight, else completes) and applied on pawaPay's own
// paths and bodies: POST /v2/{deposits|payouts|refunds}, their reads GET /v2/{kind}s/{uuid},
// POST /v2/payouts/fail-enqueued/{uuid} (our payout cancel), and the signed callbacks.

export type PawapayKind = 'deposit' | 'payout' | 'refund';
const kindOfPath: Record<OperatorPath, PawapayKind> = {
  collections: 'deposit',
  disbursements: 'payout',
  refunds: 'refund',
};
export const pawapayKindOf = (p: Plan): PawapayKind => kindOfPath[operatorPathOf(p)];

/** The number's last digits per outcome at the fake. */
const ending = (scenario: Plan['scenario'], index: number) =>
  scenario === 'pending' ? '129' : scenario === 'failed' ? (index % 2 ? '049' : '039') : '001';

/** Our payin providers through pawaPay without OTP: Orange (OTP) becomes MTN CM, Wave (redirect) Moov CI. */
const liveProvider: Record<Provider, { provider: Provider; country: 'CI' | 'CM'; prefix: string }> = {
  MTN: { provider: 'MTN', country: 'CI', prefix: '+22505' },
  ORANGE: { provider: 'MTN', country: 'CM', prefix: '+23767' },
  MOOV: { provider: 'MOOV', country: 'CI', prefix: '+22501' },
  WAVE: { provider: 'MOOV', country: 'CI', prefix: '+22501' },
};

/**
 * The party of each plan in live mode (create.ts `live`). A carrier payin's number follows its
 * refund: a refund planned to fail needs one pawaPay keeps in flight (…129), which the suite
 * completes at once (the deposit) and fails later (the refund).
 */
export function livePartyOf(plans: Plan[]) {
  return (p: Plan): { msisdn: string; provider: Provider; country: 'CI' | 'CM' } => {
    if (p.kind === 'refund') return { msisdn: '', provider: 'MTN', country: 'CI' };
    const refund =
      p.kind === 'payin' && p.carrier ? plans.find((r) => r.kind === 'refund' && r.payin === p) : null;
    const scenario = refund ? (refund.scenario === 'failed' ? 'pending' : 'completed') : p.scenario;
    const { provider, country, prefix } = liveProvider[p.kind === 'payin' ? p.provider : 'MTN'];
    const middle = String(p.index % (country === 'CM' ? 10_000 : 100_000)).padStart(
      country === 'CM' ? 4 : 5,
      '0',
    );
    return { msisdn: `${prefix}${middle}${ending(scenario, p.index)}`, provider, country };
  };
}

const paths: Record<PawapayKind, string> = { deposit: 'deposits', payout: 'payouts', refund: 'refunds' };
const kindOfSegment: Record<string, PawapayKind> = {
  deposits: 'deposit',
  payouts: 'payout',
  refunds: 'refund',
};

/** Which plan a request to pawaPay, or one of its callbacks, is about. */
export class PawapayIndex {
  private readonly byAmount = new Map<string, Plan>();
  private readonly byUuid = new Map<string, Plan>();
  private readonly byId = new Map<string, Plan>();
  private readonly seen = new WeakMap<FaultRequest, Plan | null>();
  private readonly firstAsked = new Map<Plan, number>();

  constructor(plans: Plan[]) {
    for (const p of plans) this.byAmount.set(`${pawapayKindOf(p)}:${p.amount}`, p);
  }

  learn(p: Plan, id: string): void {
    p.id = id;
    this.byId.set(id, p);
  }

  private ofUuid(uuid: string): Plan | null {
    const known = this.byUuid.get(uuid);
    if (known) return known;
    const id = fromProviderUuid(uuid);
    return (id && this.byId.get(id)) || null;
  }

  private json(req: FaultRequest): Record<string, unknown> | null {
    try {
      const v: unknown = JSON.parse(req.body);
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  /**
   * A request asking pawaPay to act, by its amount (its UUID noted, and when it was asked: moved
   * along by retries for 45 s, as the simulator's suite does); a read or a payout cancel by the UUID
   * in its path; a callback by the most specific UUID in its body. Null: none of the plans.
   */
  of(req: FaultRequest): Plan | null {
    if (this.seen.has(req)) return this.seen.get(req)!;
    let plan: Plan | null = null;
    const create = /^\/v2\/(deposits|payouts|refunds)(\?|$)/.exec(req.path);
    const byPath =
      /^\/v2\/(?:(deposits|payouts|refunds)|payouts\/fail-enqueued)\/([0-9a-f-]{36})(\?|$)/i.exec(req.path);
    const body = req.method === 'POST' ? this.json(req) : null;
    if (req.method === 'POST' && create && body) {
      const kind = kindOfSegment[create[1]!]!;
      plan = this.byAmount.get(`${kind}:${Number(body.amount)}`) ?? null;
      const uuid = body[`${kind}Id`];
      if (plan && typeof uuid === 'string') this.byUuid.set(uuid, plan);
      const now = Date.now();
      if (plan && (plan.askedAt === null || now - (this.firstAsked.get(plan) ?? now) < 45_000)) {
        if (!this.firstAsked.has(plan)) this.firstAsked.set(plan, now);
        plan.askedAt = now;
      }
    } else if (byPath) plan = this.ofUuid(byPath[2]!.toLowerCase());
    else if (req.path.startsWith('/provider-callbacks/') && body) {
      const uuid = body.refundId ?? body.payoutId ?? body.depositId;
      plan = typeof uuid === 'string' ? this.ofUuid(uuid) : null;
    }
    this.seen.set(req, plan);
    return plan;
  }
}

/** A drawn fault in pawaPay's words: its refusals and 429 have pawaPay's body; a 404 read is NOT_FOUND. */
function inPawapayTerms(f: Fault, read: boolean): Fault {
  if (f.kind !== 'error') return f;
  const rejected = (failureCode: string) => ({
    status: 'REJECTED',
    failureReason: { failureCode, failureMessage: 'Injected by the fault suite' },
  });
  if (read && f.status === 404) return { kind: 'rewrite', patch: { status: 'NOT_FOUND', data: undefined } };
  if (f.status === 429) return { ...f, body: rejected('TOO_MANY_REQUESTS') };
  if (f.status >= 400 && f.status < 500)
    return { kind: 'error', status: 400, body: rejected('INVALID_PARAMETER') };
  return { kind: 'error', status: f.status };
}

/**
 * Installs every plan's faults: on `provider` (connector -> fake) the request, reads and cancel
 * faults; on `callbacks` (fake -> API) the callback faults. A pending window rewrites pawaPay's
 * FOUND answers to PROCESSING (its terms kept, so a DUPLICATE_IGNORED check still matches) until
 * our deadline plus the window; a NOT_FOUND answer stays NOT_FOUND.
 */
export function installPawapayFaults(
  plans: Plan[],
  index: PawapayIndex,
  proxies: { provider: FaultProxy; callbacks: FaultProxy },
  deadlineMs: (p: Plan) => number,
  partyOf: ReturnType<typeof livePartyOf>,
): void {
  const create = (p: Plan) => new RegExp(`^/v2/${paths[pawapayKindOf(p)]}(\\?|$)`);
  const read = (p: Plan) => new RegExp(`^/v2/${paths[pawapayKindOf(p)]}/[0-9a-f-]{36}(\\?|$)`, 'i');
  const mine = (p: Plan) => (req: FaultRequest) => index.of(req) === p;
  // First a rule that never applies: it notes when each transaction was first read (anchorOf).
  proxies.provider.add({
    method: 'GET',
    path: /^\/v2\/(deposits|payouts|refunds)\//,
    when: (req) => {
      const p = index.of(req);
      if (p && p.readAt === null) p.readAt = Date.now();
      return false;
    },
    fault: { kind: 'drop' },
    times: Infinity,
  });
  proxies.provider.add({
    method: 'POST',
    path: /^\/v2\/(deposits|payouts|refunds)(\?|$)/,
    when: (req) => (index.of(req), false),
    fault: { kind: 'drop' },
    times: Infinity,
  });
  for (const p of plans) {
    const { request, reads, callback, cancel } = p.schedule;
    if (request)
      proxies.provider.add({
        method: 'POST',
        path: create(p),
        when: mine(p),
        fault: inPawapayTerms(request.fault, false),
        times: request.times,
      });
    if (reads && !('fault' in reads)) {
      const party = p.kind === 'refund' ? null : partyOf(p);
      const phone = party ? { type: 'MMO', accountDetails: { phoneNumber: party.msisdn.slice(1) } } : null;
      const currency = party?.country === 'CM' ? 'XAF' : 'XOF';
      const data = {
        status: 'PROCESSING',
        amount: String(p.amount),
        currency,
        ...(p.kind === 'payin' ? { payer: phone } : p.kind === 'payout' ? { recipient: phone } : {}),
      };
      proxies.provider.add({
        method: 'GET',
        path: read(p),
        when: (req) => {
          const anchor = anchorOf(p);
          return (
            mine(p)(req) && (anchor === null || Date.now() < anchor + deadlineMs(p) + reads.afterDeadlineMs)
          );
        },
        // Only `data` is patched: a NOT_FOUND answer keeps its status (and the union ignores data).
        fault: { kind: 'rewrite', patch: { data } },
        times: Infinity,
      });
    }
    if (reads && 'fault' in reads)
      proxies.provider.add({
        method: 'GET',
        path: read(p),
        when: mine(p),
        fault: inPawapayTerms(reads.fault, true),
        times: reads.times,
      });
    // pawaPay cancels payouts only (fail-enqueued); a payin's or refund's cancel is a status read.
    if (cancel && p.kind === 'payout')
      proxies.provider.add({
        method: 'POST',
        path: /^\/v2\/payouts\/fail-enqueued\//,
        when: mine(p),
        fault: inPawapayTerms(cancel.fault, false),
        times: cancel.times,
      });
    if (callback)
      proxies.callbacks.add({
        method: 'POST',
        path: '/provider-callbacks/pawapay',
        when: mine(p),
        fault: callback.fault,
        times: callback.times,
      });
  }
}
