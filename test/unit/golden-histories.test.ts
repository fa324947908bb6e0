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
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { tracedTestBundle } from '../helpers/traced-bundle';

// Golden histories: one per scenario of the 1.0 baseline, recorded by
// scripts/record-golden-histories.ts and replayed on the workflow code of this tree. A change that
// would break a running workflow (a command added, removed or reordered without `patched()`) fails
// here, naming the file. Replay needs no server: only the workflow bundle
// (built by jest's global setup). Histories from before 1.0 are not kept: no deployment ran them.

const goldenDir = join(repoRoot, 'test/golden');
const files = readdirSync(goldenDir)
  .filter((f) => f.endsWith('.json'))
  .sort();

/** The proto JSON a file holds (test/helpers/history-json.ts), as Temporal's tools write it. */
type JsonHistory = { events: Record<string, any>[] };
const read = (file: string): JsonHistory => JSON.parse(readFileSync(join(goldenDir, file), 'utf8'));
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

/** The file name is the workflow id: a failure names the file to look at. */
const asReplayInput = (file: string, history: JsonHistory = read(file)): HistoryAndWorkflowId => ({
  workflowId: file,
  history: historyFromJson(history),
});

describe('golden workflow histories', () => {
  it('cover every workflow type the worker registers, and the main branches of the money ones', () => {
    const registered = [
      ...readFileSync(join(repoRoot, 'workflows/index.ts'), 'utf8').matchAll(/export \{ (\w+) \}/g),
    ].map((m) => m[1]!);
    expect(registered.length).toBeGreaterThanOrEqual(11);
    for (const type of registered) expect(files.filter((f) => f.startsWith(`${type}-`))).not.toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining(
        [
          'payinWorkflow-direct-completed',
          'payinWorkflow-direct-failed',
          'payinWorkflow-direct-expired',
          'payinWorkflow-direct-ambiguous-corrected',
          'payinWorkflow-direct-orange-otp',
          'payinWorkflow-session-success',
          'payinWorkflow-session-declined',
          'payinWorkflow-session-expired',
          'payinRefundDeskWorkflow-refund',
          'payinRefundDeskWorkflow-concurrent-refunds',
          'refundWorkflow-completed',
          'refundWorkflow-failed-reversed',
          'payoutWorkflow-completed',
          'payoutWorkflow-failed-reversed',
          'payoutWorkflow-expired-reversed',
          'payoutWorkflow-held-cancelled',
        ].map((name) => `${name}.json`),
      ),
    );
  });

  it('every one replays on the workflow code of this tree', async () => {
    expect(await replayFailures(files.map((f) => asReplayInput(f)))).toEqual([]);
  });

  // Tracing (OTEL_TRACES_EXPORTER) adds the workflow interceptors to the bundle: spans and headers,
  // no command, so every history replays with them as without (a worker can turn tracing on or off
  // under running workflows).
  it('every one replays with the tracing interceptors in the bundle', async () => {
    const codePath = await tracedTestBundle();
    const exporter = new InMemorySpanExporter();
    const traced: ReplayWorkerOptions = {
      ...replayOptions(),
      workflowBundle: { codePath },
      sinks: {
        exporter: makeWorkflowExporter(new SimpleSpanProcessor(exporter), new Resource({})),
      },
    };
    expect(
      await replayFailures(
        files.map((f) => asReplayInput(f)),
        traced,
      ),
    ).toEqual([]);
  }, 120_000);

  // The files hold payloads opened by the recorder; a
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
    it('an activity renamed', async () => {
      const file = 'payinWorkflow-direct-failed.json';
      const history = read(file);
      const scheduled = history.events.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordPayinOutcome',
      );
      expect(scheduled).toBeDefined();
      scheduled!.activityTaskScheduledEventAttributes.activityType.name = 'recordPayinTwice';
      const failures = await replayFailures([asReplayInput(file, history)]);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(new RegExp(`^${file}: DeterminismViolationError: .*recordPayinTwice`));
    });

    it("a partner check's timer removed (the code starts one the history lacks)", async () => {
      const file = 'payinWorkflow-direct-ambiguous-corrected.json';
      const history = read(file);
      const timers = history.events.filter((e) => e.timerStartedEventAttributes);
      const timerId = timers.at(-1)!.timerStartedEventAttributes.timerId as string;
      // The last check's timer and its firing out, later events renumbered: as if the code had
      // checked without waiting; today's code still waits, so replay must refuse the history.
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
  // before, and this test says which. The tree's own workflows, bundled with two payin steps swapped
  // (test/unit/golden-reorder-loader.ts): only the histories that ran those steps may fail.
  describe('a change without patched() fails replay', () => {
    it('the payin asking the partner before recording the ambiguous failure', async () => {
      const { code } = await bundleWorkflowCode({
        workflowsPath: join(repoRoot, 'workflows/index.ts'),
        failureConverterPath,
        webpackConfigHook: (config) => {
          config.module?.rules?.push({
            test: /workflows[\\/]payin[\\/]payin-steps\.ts$/,
            enforce: 'pre',
            use: [{ loader: require.resolve('./golden-reorder-loader') }],
          });
          return config;
        },
        logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
      });
      const payins = files.filter((f) => f.startsWith('payinWorkflow-'));
      const reordered = { ...replayOptions(), workflowBundle: { code } };
      const failures = await replayFailures(
        payins.map((f) => asReplayInput(f)),
        reordered,
      );
      expect(failures.map((f) => f.split(':')[0])).toEqual([
        'payinWorkflow-direct-ambiguous-corrected.json',
        'payinWorkflow-direct-ambiguous-uncorrected.json',
      ]);
      for (const failure of failures) expect(failure).toMatch(/DeterminismViolationError/);
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
