import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DefaultLogger,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type ReplayWorkerOptions,
} from '@temporalio/worker';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { repoRoot } from '../../src/infra/tools';
import { historyFromJson } from '../helpers/history-json';
import type { DataConverter, Payload } from '@temporalio/common';
import { configSchema } from '../../src/config';
import { dataConverter, EncryptionCodec, failureConverterPath } from '../../src/temporal/codec';

// Golden histories: workflows recorded on earlier code (scripts/record-golden-histories.ts), replayed
// on the workflow code of this tree. A change that would break a running workflow of an earlier
// version (a command added, removed or reordered without `patched()`) fails here, naming the file.
// Replay needs no server: only the workflow bundle (built by jest's global setup).

const goldenDir = join(repoRoot, 'test/golden');
const files = readdirSync(goldenDir)
  .filter((f) => f.endsWith('.json'))
  .sort();

/** The proto JSON a file holds (test/helpers/history-json.ts), as Temporal's tools write it. */
type JsonHistory = { events: Record<string, any>[] };
const read = (file: string): JsonHistory => JSON.parse(readFileSync(join(goldenDir, file), 'utf8'));
/** The ids of the `patched()` markers in a history. */
const patchesOf = (events: JsonHistory['events']): string[] =>
  events
    .flatMap((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
    .map(
      (p: { data: string }) => (JSON.parse(Buffer.from(p.data, 'base64').toString()) as { id: string }).id,
    );

beforeAll(() => {
  try {
    // The replay workers' start and stop lines (and the altered histories' warnings) are noise
    // here: each failure is in its replay result.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // another test file in this process installed it
  }
});

/** The replayer of the service: the workers' data converter (payload codec and failure converter). */
const ring = configSchema.parse({}).PAYLOAD_CODEC_KEYS;

function replayOptions(converter: DataConverter | null = dataConverter(ring)): ReplayWorkerOptions {
  const bundle = process.env.TEST_WORKFLOW_BUNDLE;
  return {
    replayName: 'golden',
    ...(converter ? { dataConverter: converter } : {}),
    ...(bundle
      ? { workflowBundle: { codePath: bundle } }
      : { workflowsPath: join(repoRoot, 'workflows/index.ts') }),
  };
}

/** Replays each history; answers `<workflowId>: <error>` for each one that does not replay. */
async function replayFailures(
  histories: HistoryAndWorkflowId[],
  options: ReplayWorkerOptions = replayOptions(),
): Promise<string[]> {
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories(options, histories)) {
    replayed++;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
  }
  // A history that never yields a result must not count as replayed.
  if (replayed !== histories.length) failures.push(`replayed ${replayed} of ${histories.length} histories`);
  return failures;
}

/** The first argument a history's workflow was started with (the files hold payloads in clear). */
function startInput(file: string): unknown {
  const payload = read(file).events[0]!.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? JSON.parse(Buffer.from(String(payload.data), 'base64').toString('utf8')) : undefined;
}

/** The file name is the workflow id: a failure names the file to look at. */
const asReplayInput = (file: string, history: JsonHistory = read(file)): HistoryAndWorkflowId => ({
  workflowId: file,
  history: historyFromJson(history),
});

describe('golden workflow histories', () => {
  it('cover every workflow and its main branches', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'payinWorkflow-direct-completed.json',
        'payinWorkflow-direct-failed.json',
        'payinWorkflow-direct-expired.json',
        'payinWorkflow-session-success.json',
        'payinWorkflow-session-expired.json',
        'payinWorkflow-direct-ambiguous-corrected.json',
        'payoutWorkflow-completed.json',
        'payoutWorkflow-failed-reversed.json',
        'payoutWorkflow-expired-reversed.json',
        'refundWorkflow-completed.json',
        'refundWorkflow-failed-reversed.json',
        'webhookDeliveryWorkflow-retried-delivered.json',
      ]),
    );
  });

  // Started by revision 3 (`codeRevision: 3` in the input, its changes without markers): they still
  // replay now that new workflows go without it (workflows/code-revision.ts).
  it('cover the workflows started with a code revision', () => {
    expect(files.filter((f) => f.endsWith('-rev3.json')).length).toBeGreaterThanOrEqual(12);
    for (const f of files.filter((name) => /^payinWorkflow-.*-rev3\.json$/.test(name)))
      expect(startInput(f)).toMatchObject({ codeRevision: 3 });
  });

  // The path of today's code (`patched()` markers, no codeRevision): every workflow type and its
  // main branches, recorded by scripts/record-golden-histories.ts --suffix -patched.
  it('cover the patched path of every workflow type and its main branches', () => {
    const patchedPath = [
      'payinWorkflow-direct-completed',
      'payinWorkflow-direct-failed',
      'payinWorkflow-direct-expired',
      'payinWorkflow-direct-ambiguous-corrected',
      'payinWorkflow-direct-orange-otp',
      'payinWorkflow-direct-concurrent-refunds',
      'payinWorkflow-session-success',
      'payinWorkflow-session-expired',
      'payoutWorkflow-completed',
      'payoutWorkflow-failed-reversed',
      'payoutWorkflow-unanswered-asked-final',
      'refundWorkflow-completed',
      'refundWorkflow-failed-reversed',
      'webhookDeliveryWorkflow-retried-delivered',
      'reconciliationWorkflow-day',
      'recoverySweepWorkflow-pass',
      'publishEventWorkflow-recorded',
    ].map((name) => `${name}-patched.json`);
    expect(files).toEqual(expect.arrayContaining(patchedPath));
    // Every workflow type the worker registers has at least one history of today's path.
    const registered = [
      ...readFileSync(join(repoRoot, 'workflows/index.ts'), 'utf8').matchAll(/export \{ (\w+) \}/g),
    ].map((m) => m[1]!);
    expect(registered.length).toBeGreaterThanOrEqual(7);
    // The refund desk exists only since the change it belongs to: its history is a `-closes` one.
    for (const type of registered)
      expect(files.filter((f) => f.startsWith(`${type}-`) && /-(patched|closes)\.json$/.test(f))).not.toEqual(
        [],
      );
    for (const f of patchedPath.filter((name) => /^(payin|payout|refund)Workflow-/.test(name)))
      expect(startInput(f)).not.toHaveProperty('codeRevision');
  });

  // Change `payin-closes-at-final-status` (issue 20): the payin ends at its final status, its
  // refunds go to its refund desk. Recorded by scripts/record-golden-histories.ts --suffix -closes.
  it('cover the payin that closes at its final status, and its refund desk', () => {
    const closes = [
      'payinWorkflow-direct-completed',
      'payinWorkflow-direct-completed-refund-reversed',
      'payinWorkflow-direct-failed',
      'payinWorkflow-direct-expired',
      'payinWorkflow-direct-orange-otp',
      'payinWorkflow-session-success',
      'payinWorkflow-session-declined',
      'payinRefundDeskWorkflow-refund',
    ].map((name) => `${name}-closes.json`);
    expect(files).toEqual(expect.arrayContaining(closes));
    // Each carries the change's marker, and never the refund window's 7-day timer.
    for (const f of closes.filter((name) => name.startsWith('payinWorkflow-'))) {
      const events = read(f).events;
      expect(patchesOf(events)).toContain('payin-closes-at-final-status');
      expect(events.filter((e) => e.timerStartedEventAttributes?.startToFireTimeout === '604800s')).toEqual(
        [],
      );
    }
  });

  // Changes `payout-records-in-fewer-steps`, `refund-records-in-fewer-steps` and
  // `payin-session-request-records-customer` (issue 20): the same writes in fewer activities.
  // Recorded by scripts/record-golden-histories.ts --suffix -fewer; the counts are docs/scaling.md's.
  it('cover payouts, refunds and the session payin in fewer steps', () => {
    const fewer: Record<string, { patch: string; maxEvents: number }> = {
      'payoutWorkflow-completed': { patch: 'payout-records-in-fewer-steps', maxEvents: 46 },
      'payoutWorkflow-failed-reversed': { patch: 'payout-records-in-fewer-steps', maxEvents: 52 },
      'payoutWorkflow-held-cancelled': { patch: 'payout-records-in-fewer-steps', maxEvents: 29 },
      'refundWorkflow-completed': { patch: 'refund-records-in-fewer-steps', maxEvents: 34 },
      'refundWorkflow-failed-reversed': { patch: 'refund-records-in-fewer-steps', maxEvents: 40 },
      'payinWorkflow-session-success': { patch: 'payin-session-request-records-customer', maxEvents: 36 },
    };
    for (const [name, { patch, maxEvents }] of Object.entries(fewer)) {
      const events = read(`${name}-fewer.json`).events;
      expect({ name, patches: patchesOf(events) }).toEqual({
        name,
        patches: expect.arrayContaining([patch]),
      });
      expect({ name, withinCount: events.length <= maxEvents }).toEqual({ name, withinCount: true });
    }
  });

  // Change `refund-announced-by-request`: `refund.processing` emitted by the request's activity.
  // Recorded by scripts/record-golden-histories.ts --suffix -announced (refund histories only).
  it('cover the refund announced by its request', () => {
    const announced: Record<string, number> = {
      'refundWorkflow-completed': 30,
      'refundWorkflow-failed-reversed': 36,
      'refundWorkflow-concurrent-completed': 30,
    };
    for (const [name, maxEvents] of Object.entries(announced)) {
      const events = read(`${name}-announced.json`).events;
      expect({ name, patches: patchesOf(events), withinCount: events.length <= maxEvents }).toEqual({
        name,
        patches: expect.arrayContaining(['refund-records-in-fewer-steps', 'refund-announced-by-request']),
        withinCount: true,
      });
      const first = events.find((e) => e.activityTaskScheduledEventAttributes);
      expect(first?.activityTaskScheduledEventAttributes?.activityType?.name).toBe(
        'announceAndRequestRefund',
      );
    }
  });

  // Change `refund-updates-queued` (issue 28): the desk's Update handlers only queue; one loop
  // answers them in acceptance order. Recorded by scripts/record-golden-histories.ts --suffix -queued
  // (desk histories only): one refund, and four asked together on one payin.
  it('cover the refund desk answering its queued Updates in order', () => {
    for (const [name, refunds] of Object.entries({
      'payinRefundDeskWorkflow-refund': 1,
      'payinRefundDeskWorkflow-concurrent-refunds': 4,
    })) {
      const events = read(`${name}-queued.json`).events;
      const accepted = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
      const started = events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
      expect({ name, patches: patchesOf(events), accepted: accepted.length }).toEqual({
        name,
        patches: ['refund-updates-queued'],
        accepted: refunds,
      });
      // The children start in the order their Updates were accepted.
      const ask = (e: Record<string, any>) =>
        JSON.parse(
          Buffer.from(
            String(
              e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input.args.payloads[0].data,
            ),
            'base64',
          ).toString(),
        ) as { refundId: string };
      expect(
        started.map((e) => String(e.startChildWorkflowExecutionInitiatedEventAttributes.workflowId)),
      ).toEqual(accepted.map((e) => expect.stringMatching(new RegExp(`:${ask(e).refundId}$`))));
    }
    // The histories before it carry no marker: they replay on the handlers' path.
    expect(patchesOf(read('payinRefundDeskWorkflow-refund-closes.json').events)).not.toContain(
      'refund-updates-queued',
    );
  });

  // The payout held for its provider (change `payout-holds-for-provider`): sent at once when the
  // provider is operational, held then cancelled when it is closed.
  it('cover the payout hold path', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'payoutWorkflow-completed-hold.json',
        'payoutWorkflow-held-cancelled-hold.json',
      ]),
    );
  });

  it('every one replays on the workflow code of this tree', async () => {
    expect(await replayFailures(files.map((f) => asReplayInput(f)))).toEqual([]);
  });

  // The files were recorded in clear (before the payload codec, or opened by the recorder); a
  // running workflow's history holds sealed payloads: both replay with the service's converter.
  describe('sealed payloads (src/temporal/codec.ts)', () => {
    const file = 'payinWorkflow-direct-completed.json';

    it('a history whose payloads are sealed replays with the codec', async () => {
      const history = await sealed(asReplayInput(file).history);
      expect(await replayFailures([{ workflowId: file, history }])).toEqual([]);
    });

    it('and does not without it (the replayer really decodes them)', async () => {
      const history = await sealed(asReplayInput(file).history);
      const failures = await replayFailures([{ workflowId: file, history }], replayOptions(null));
      expect(failures).toHaveLength(1);
    });
  });

  // The check above has teeth: a history that the code could not have produced fails it.
  describe('an altered history fails replay', () => {
    const file = 'payinWorkflow-direct-completed.json';

    it('an activity renamed', async () => {
      const history = read(file);
      const scheduled = history.events.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'creditMerchantForPayin',
      );
      expect(scheduled).toBeDefined();
      scheduled!.activityTaskScheduledEventAttributes.activityType.name = 'creditMerchantTwice';
      const failures = await replayFailures([asReplayInput(file, history)]);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(new RegExp(`^${file}: DeterminismViolationError: .*creditMerchantTwice`));
    });

    it('the refund window timer removed (the code starts one the history lacks)', async () => {
      const history = read(file);
      const timers = history.events.filter((e) => e.timerStartedEventAttributes);
      const timerId = timers.at(-1)!.timerStartedEventAttributes.timerId as string;
      // The window's timer and its firing out, later events renumbered: as if the code had ended
      // without it; today's code still starts it, so replay must refuse the history.
      history.events = history.events.filter(
        (e) =>
          e.timerStartedEventAttributes?.timerId !== timerId &&
          e.timerFiredEventAttributes?.timerId !== timerId,
      );
      const failures = await replayFailures([asReplayInput(file, renumbered(history))]);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(new RegExp(`^${file}: DeterminismViolationError: .*Timer`));
    });
  });

  // The rule the files guard: a command reordered without `patched()` breaks the histories recorded
  // before, and this test says which. The tree's own workflows, bundled with two payin commands swapped.
  describe('a change without patched() fails replay', () => {
    it('the payin crediting the merchant before recording the acceptance', async () => {
      const { code } = await bundleWorkflowCode({
        workflowsPath: join(repoRoot, 'workflows/index.ts'),
        failureConverterPath,
        webpackConfigHook: (config) => {
          config.module?.rules?.push({
            test: /workflows[\\/]payin-steps\.ts$/,
            enforce: 'pre',
            use: [{ loader: require.resolve('./golden-reorder-loader') }],
          });
          return config;
        },
        logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
      });
      const completed = files.filter((f) =>
        /^payinWorkflow-direct-completed(-rev3|-patched)?\.json$/.test(f),
      );
      expect(completed).toEqual(
        expect.arrayContaining([
          'payinWorkflow-direct-completed-rev3.json',
          'payinWorkflow-direct-completed-patched.json',
        ]),
      );
      const reordered = { ...replayOptions(), workflowBundle: { code } };
      // The legacy history runs the code of workflows/legacy/: the swap does not touch it.
      const failures = await replayFailures(
        completed.filter((f) => f !== 'payinWorkflow-direct-completed.json').map((f) => asReplayInput(f)),
        reordered,
      );
      expect(failures).toHaveLength(2);
      for (const failure of failures) expect(failure).toMatch(/DeterminismViolationError/);
      // And the same bundle without the swap replays them: the failure is the swap's.
      expect(await replayFailures(completed.map((f) => asReplayInput(f)))).toEqual([]);
    }, 120_000);
  });
});

/** Event ids 1..n again, and every reference to an old id moved with it. */
function renumbered(history: JsonHistory): JsonHistory {
  const ids = new Map<string, string>();
  history.events.forEach((e, i) => ids.set(String(e.eventId), String(i + 1)));
  const fix = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(fix);
    if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      for (const [k, v] of Object.entries(o)) {
        if (/EventId$/.test(k) && (typeof v === 'string' || typeof v === 'number') && ids.has(String(v)))
          o[k] = ids.get(String(v));
        else o[k] = fix(v);
      }
    }
    return value;
  };
  history.events.forEach((e, i) => {
    fix(e);
    e.eventId = String(i + 1);
  });
  return history;
}

/** Every `payloads` list of the history (inputs, results, signals, updates) sealed with the ring. */
async function sealed<T>(history: T): Promise<T> {
  const codec = new EncryptionCodec(ring);
  let count = 0;
  const walk = async (value: unknown): Promise<void> => {
    if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    if (Array.isArray(value)) {
      for (const item of value) await walk(item);
      return;
    }
    const o = value as Record<string, unknown>;
    for (const [key, child] of Object.entries(o)) {
      if (key === 'payloads' && Array.isArray(child) && child.length > 0) {
        o[key] = await codec.encode(child as Payload[]);
        count += child.length;
      } else await walk(child);
    }
  };
  await walk(history);
  if (count === 0) throw new Error('nothing sealed');
  return history;
}
