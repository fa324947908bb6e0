import fc from 'fast-check';
import type { Fault } from '../helpers/fault-proxy';
import {
  type StepFault,
  type PendingWindow,
  type Schedule,
  type Provider,
  type PayinPlan,
  type PayoutPlan,
  type RefundPlan,
  type Plan,
} from './plan';

// The fault suite's schedule, drawn by fast-check from a fixed seed: each transaction's plan (its
// kind, the operator's answer, the faults on each step), the cases issue 15 names first, and the gaps
// between worker kills. Also the labels that describe a plan's faults in the suite's report.

const none = fc.constant(null);
const step = (label: string, fault: Fault, times: fc.Arbitrary<number>): fc.Arbitrary<StepFault> =>
  times.map((t) => ({ label, fault, times: t }));
const upTo = (max: number) => fc.integer({ min: 1, max });
const noFault: Schedule = { request: null, reads: null, callback: null, cancel: null };
const notFound: Fault = {
  kind: 'error',
  status: 404,
  body: { error: 'NOT_FOUND', message: 'Unknown transaction' },
};

// Each step's menu, "no fault" weighted so that most transactions carry one or two faults.
const requestFault: fc.Arbitrary<StepFault | null> = fc.oneof(
  { weight: 8, arbitrary: none },
  { weight: 2, arbitrary: step('request:drop', { kind: 'drop' }, upTo(2)) },
  { weight: 3, arbitrary: step('request:lose-answer', { kind: 'lose-answer' }, upTo(2)) },
  {
    weight: 2,
    arbitrary: fc
      .integer({ min: 1_500, max: 4_000 })
      .chain((ms) => step('request:late-answer', { kind: 'delay', ms }, upTo(2))),
  },
  { weight: 2, arbitrary: step('request:503', { kind: 'error', status: 503 }, upTo(3)) },
  { weight: 1, arbitrary: step('request:429', { kind: 'error', status: 429 }, upTo(2)) },
  {
    weight: 2,
    arbitrary: step('request:forward-then-503', { kind: 'forward-then-error', status: 503 }, upTo(2)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(400, 403)
      .chain((status) =>
        step(
          'request:4xx-refusal',
          { kind: 'error', status, body: { error: 'INVALID_REQUEST', message: 'Refused by the operator' } },
          fc.constant(1),
        ),
      ),
  },
);

const readsFault: fc.Arbitrary<StepFault | PendingWindow | null> = fc.oneof(
  { weight: 7, arbitrary: none },
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: 3_000, max: 20_000 })
      .map((ms): PendingWindow => ({ label: 'reads:pending-past-deadline', afterDeadlineMs: ms })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: -12_000, max: -2_000 })
      .map((ms): PendingWindow => ({ label: 'reads:pending-before-deadline', afterDeadlineMs: ms })),
  },
  {
    weight: 3,
    arbitrary: step(
      'reads:404',
      { kind: 'error', status: 404, body: { error: 'NOT_FOUND', message: 'Unknown transaction' } },
      upTo(3),
    ),
  },
  { weight: 2, arbitrary: step('reads:503', { kind: 'error', status: 503 }, upTo(4)) },
  { weight: 1, arbitrary: step('reads:drop', { kind: 'drop' }, upTo(2)) },
  { weight: 1, arbitrary: step('reads:lose-answer', { kind: 'lose-answer' }, upTo(2)) },
  { weight: 1, arbitrary: step('reads:late-answer', { kind: 'delay', ms: 1_500 }, upTo(2)) },
);

const callbackFault: fc.Arbitrary<StepFault | null> = fc.oneof(
  { weight: 6, arbitrary: none },
  {
    weight: 3,
    arbitrary: fc
      .record({ copies: fc.integer({ min: 1, max: 3 }), gapMs: fc.integer({ min: 0, max: 3_000 }) })
      .chain((d) => step('callback:duplicate', { kind: 'duplicate', ...d }, fc.constant(1))),
  },
  {
    // Past the simulator's 5 s callback timeout: its retry arrives first, this one late (out of order).
    weight: 3,
    arbitrary: fc
      .integer({ min: 1_000, max: 9_000 })
      .chain((ms) => step('callback:late', { kind: 'hold', ms }, upTo(2))),
  },
  { weight: 2, arbitrary: step('callback:drop', { kind: 'drop' }, upTo(3)) },
  { weight: 1, arbitrary: step('callback:503', { kind: 'error', status: 503 }, upTo(3)) },
  { weight: 1, arbitrary: step('callback:lose-answer', { kind: 'lose-answer' }, fc.constant(1)) },
);

const cancelFault: fc.Arbitrary<StepFault | null> = fc.oneof(
  { weight: 6, arbitrary: none },
  { weight: 2, arbitrary: step('cancel:lose-answer', { kind: 'lose-answer' }, upTo(2)) },
  { weight: 2, arbitrary: step('cancel:503', { kind: 'error', status: 503 }, upTo(3)) },
  { weight: 1, arbitrary: step('cancel:drop', { kind: 'drop' }, fc.constant(1)) },
);

const schedule: fc.Arbitrary<Schedule> = fc.record({
  request: requestFault,
  reads: readsFault,
  callback: callbackFault,
  cancel: cancelFault,
});

type Drawn =
  | {
      kind: 'payin';
      flow: 'direct' | 'session';
      provider: Provider;
      scenario: PayinPlan['scenario'];
      late: number | null;
      schedule: Schedule;
    }
  | { kind: 'payout'; scenario: PayoutPlan['scenario']; late: PayoutPlan['lateSettle']; schedule: Schedule }
  | { kind: 'refund'; scenario: RefundPlan['scenario']; schedule: Schedule };

const payinScenario = fc.oneof(
  { weight: 11, arbitrary: fc.constant('completed' as const) },
  { weight: 4, arbitrary: fc.constant('failed' as const) },
  { weight: 5, arbitrary: fc.constant('pending' as const) },
);
const drawn: fc.Arbitrary<Drawn> = fc.oneof(
  {
    weight: 45,
    arbitrary: fc.record({
      kind: fc.constant('payin' as const),
      flow: fc.constant('direct' as const),
      provider: fc.oneof(
        { weight: 6, arbitrary: fc.constant('MTN' as const) },
        { weight: 2, arbitrary: fc.constant('ORANGE' as const) },
        { weight: 1, arbitrary: fc.constant('MOOV' as const) },
        { weight: 2, arbitrary: fc.constant('WAVE' as const) },
      ),
      scenario: payinScenario,
      // Half the pending ones are approved by the customer around or after our deadline.
      late: fc.option(fc.integer({ min: -4_000, max: 10_000 }), { freq: 2 }),
      schedule,
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('payin' as const),
      flow: fc.constant('session' as const),
      provider: fc.constant('MTN' as const),
      scenario: payinScenario,
      late: fc.option(fc.integer({ min: -4_000, max: 10_000 }), { freq: 2 }),
      schedule,
    }),
  },
  {
    weight: 25,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      scenario: fc.oneof(
        { weight: 6, arbitrary: fc.constant('completed' as const) },
        { weight: 3, arbitrary: fc.constant('failed' as const) },
        { weight: 2, arbitrary: fc.constant('pending' as const) },
      ),
      late: fc.option(
        fc.record({
          afterDeadlineMs: fc.integer({ min: -5_000, max: 12_000 }),
          outcome: fc.oneof(
            { weight: 3, arbitrary: fc.constant('completed' as const) },
            { weight: 1, arbitrary: fc.constant('failed' as const) },
          ),
        }),
        { freq: 4 },
      ),
      schedule,
    }),
  },
  {
    weight: 20,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      scenario: fc.oneof(
        { weight: 3, arbitrary: fc.constant('completed' as const) },
        { weight: 1, arbitrary: fc.constant('failed' as const) },
      ),
      schedule,
    }),
  },
);

/** The cases issue 15 names, first in every run of 5 items or more, so that even the short run has each. */
const sentinels: Drawn[] = [
  // A refund the operator made, every answer to its request lost (503 after forwarding).
  {
    kind: 'refund',
    scenario: 'completed',
    schedule: {
      ...noFault,
      request: {
        label: 'request:forward-then-503',
        fault: { kind: 'forward-then-error', status: 503 },
        times: 8,
      },
    },
  },
  // A payout the operator paid but reported pending until after our deadline.
  {
    kind: 'payout',
    scenario: 'completed',
    late: null,
    schedule: { ...noFault, reads: { label: 'reads:pending-past-deadline', afterDeadlineMs: 15_000 } },
  },
  // A payout the operator accepted and paid, then answered 404 on status reads for a while.
  {
    kind: 'payout',
    scenario: 'completed',
    late: null,
    schedule: { ...noFault, reads: { label: 'reads:404', fault: notFound, times: 6 } },
  },
  // A payin still pending at our deadline, approved by the customer after it.
  { kind: 'payin', flow: 'direct', provider: 'MTN', scenario: 'pending', late: 5_000, schedule: noFault },
  // A payin completed at once, reported pending across our deadline.
  {
    kind: 'payin',
    flow: 'direct',
    provider: 'MTN',
    scenario: 'completed',
    late: null,
    schedule: { ...noFault, reads: { label: 'reads:pending-past-deadline', afterDeadlineMs: 15_000 } },
  },
];

/**
 * `count` planned items (a refund item brings its clean carrier payin along), reproducible from
 * `seed`: the sentinels above, then fast-check's draws. Amounts are unique per operator path: payins and payouts 10,000 + 10 i, carriers
 * 500,000 + 10 i, refunds 10,005 + 10 i (a refund never exceeds its carrier).
 */
export function drawPlans(count: number, seed: number): Plan[] {
  const first = count >= sentinels.length ? sentinels : [];
  const items = [...first, ...fc.sample(drawn, { seed, numRuns: count - first.length })];
  const plans: Plan[] = [];
  items.forEach((d, i) => {
    const base = { index: i, id: null, startedAt: null, askedAt: null, readAt: null };
    if (d.kind === 'payin')
      plans.push({
        ...base,
        kind: 'payin',
        reference: `fault-${i}-${d.flow}`,
        amount: 10_000 + 10 * i,
        flow: d.flow,
        provider: d.provider,
        scenario: d.scenario,
        lateApprovalMs: d.scenario === 'pending' ? d.late : null,
        carrier: false,
        schedule: d.schedule,
      });
    else if (d.kind === 'payout')
      plans.push({
        ...base,
        kind: 'payout',
        reference: `fault-${i}-payout`,
        amount: 10_000 + 10 * i,
        scenario: d.scenario,
        lateSettle: d.scenario === 'pending' ? d.late : null,
        schedule: d.schedule,
      });
    else {
      const payin: PayinPlan = {
        ...base,
        kind: 'payin',
        reference: `fault-${i}-carrier`,
        amount: 500_000 + 10 * i,
        flow: 'direct',
        provider: 'MTN',
        scenario: 'completed',
        lateApprovalMs: null,
        carrier: true,
        schedule: noFault,
      };
      plans.push(payin, {
        ...base,
        kind: 'refund',
        reference: `fault-${i}-refund`,
        amount: 10_005 + 10 * i,
        scenario: d.scenario,
        payin,
        schedule: d.schedule,
      });
    }
  });
  return plans;
}

/** Gaps between worker kills (ms), reproducible from the seed. */
export function drawKillGaps(kills: number, seed: number): number[] {
  return fc.sample(fc.integer({ min: 5_000, max: 20_000 }), { seed: seed + 1, numRuns: kills });
}

/** The labels of a plan's faults (its "fault schedule"), late operator moves included. */
export function faultLabels(p: Plan): string[] {
  const s = p.schedule;
  const labels = [s.request, s.reads, s.callback, s.cancel].filter((f) => f !== null).map((f) => f.label);
  if (p.kind === 'payin' && p.lateApprovalMs !== null) labels.push('operator:late-approval');
  if (p.kind === 'payout' && p.lateSettle) labels.push(`operator:late-${p.lateSettle.outcome}`);
  return labels;
}

export function describeSchedule(p: Plan): string {
  const parts: string[] = [];
  const s = p.schedule;
  for (const f of [s.request, s.reads, s.callback, s.cancel]) {
    if (!f) continue;
    if ('fault' in f) {
      const { kind, ...rest } = f.fault;
      const args = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      parts.push(`${f.label} (${kind}${args} x${f.times})`);
    } else parts.push(`${f.label} (${f.afterDeadlineMs} ms after the deadline)`);
  }
  if (p.kind === 'payin' && p.lateApprovalMs !== null)
    parts.push(`operator:late-approval (${p.lateApprovalMs} ms after the deadline)`);
  if (p.kind === 'payout' && p.lateSettle)
    parts.push(
      `operator:late-${p.lateSettle.outcome} (${p.lateSettle.afterDeadlineMs} ms after the deadline)`,
    );
  return parts.length ? parts.join('; ') : 'no fault';
}
