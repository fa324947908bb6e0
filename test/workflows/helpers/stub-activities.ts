import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Activities } from '../../../activities';
import {
  mergePayoutSteps,
  type PayoutStepActivities,
} from '../../../activities/payout/payout-outcome-activities';
import {
  mergeRefundSteps,
  type RefundStepActivities,
} from '../../../activities/refund/refund-outcome-activities';
import type { OperatorStatus } from '../../../src/operators/gateway';
import type { payinWorkflow } from '../../../workflows';
import { configSchema } from '../../../src/config';
import { testServerWrapper } from '../../../src/infra/tools';
import { dataConverter } from '../../../src/temporal/codec';
import { ensureSearchAttributes } from '../../../src/temporal/ensure-search-attributes';

// Workflow tests on Temporal's time-skipping test server with STUB activities (the style of
// temporalio/money-transfer-project-template-ts): a Worker on the pre-built bundle runs the stubs as
// its activities, each test starts a workflow by function reference and asserts its result, the
// activity calls it made, and when it made them (server time: the server skips the timers).

type Fn = (...args: never[]) => Promise<unknown>;
type Impl<K extends keyof Activities> = (...args: Parameters<Activities[K]>) => unknown;
/** What a test scripts: any activity, by its registered name. */
export type Script = { [K in keyof Activities]?: Impl<K> };

/** One activity call: its name, arguments and server time (ms) it was scheduled at. */
export interface Call {
  name: keyof Activities;
  args: unknown[];
  at: number;
}

// ---- Operator answers, shaped as src/operators/gateway.ts returns them ----

export const pending = (operatorReference = 'op-ref-1'): OperatorStatus => ({
  outcome: 'pending',
  operatorReference,
});
export const completed = (operatorReference = 'op-ref-1'): OperatorStatus => ({
  outcome: 'completed',
  operatorReference,
});
export const unknown = (): OperatorStatus => ({ outcome: 'unknown', operatorReference: '' });
export const failed = (code: string, message = `operator says ${code}`): OperatorStatus => ({
  outcome: 'failed',
  operatorReference: 'op-ref-1',
  failure: { code, message },
});
/** The operator confirms our cancellation (gateway: only `failed`/`CANCELLED` does). */
export const cancelled = (): OperatorStatus => failed('CANCELLED', 'cancelled at our request');

/** The operator did not answer: the failure the operator proxy ends with after its last attempt. */
export const unavailable = () =>
  ApplicationFailure.create({
    type: 'OperatorUnavailableError',
    message: 'operator timed out',
    nonRetryable: true,
  });
/** A 4xx refusal of the request itself (non-retryable in every workflow). */
export const rejected = () =>
  ApplicationFailure.create({
    type: 'OperatorRejectedError',
    message: 'operator said 400',
    nonRetryable: true,
  });
/** The ledger's own refusal (activities/payout/payout-activities.ts, activities/refund/refund-activities.ts). */
export const insufficientFunds = () =>
  ApplicationFailure.create({
    type: 'InsufficientFundsError',
    message: 'balance too low',
    nonRetryable: true,
  });

/**
 * Inside a stub: the test server's time (ms) at which this call was scheduled (skipped time
 * included). A local activity's own timestamps are the worker's clock: it reads the server's.
 */
export const serverNow = () =>
  Context.current().info.isLocal
    ? localCallTime.getStore()!
    : Context.current().info.currentAttemptScheduledTimestampMs;
const localCallTime = new AsyncLocalStorage<number>();
/** The test server's clock, for local activities (set by workflowTestEnv). */
let serverClock: (() => Promise<number>) | null = null;

/**
 * Answers in turn, the last one repeated. An Error in the list is thrown (the call failed); a
 * function is called with the call's arguments.
 */
export function replies(...answers: unknown[]): (...args: unknown[]) => Promise<unknown> {
  let i = 0;
  return async (...args: unknown[]) => {
    const a = answers[Math.min(i++, answers.length - 1)];
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? (a as (...x: unknown[]) => unknown)(...args) : a;
  };
}

/** Each activity with its real signature: the defaults are checked against the activities' own types. */
type Typed = { [K in keyof Activities]: (...args: Parameters<Activities[K]>) => ReturnType<Activities[K]> };

/** Defaults: every ledger and record write applies, every event is recorded, the operator says pending. */
function defaults(): Typed {
  return {
    recordPayinState: async () => undefined,
    // Replaced in stubActivities by the three steps it stands for (each scripted and recorded).
    recordPayinOutcome: async () => undefined,
    readCollectionAndSettle: async () => ({ ...pending(), settled: false }),
    // Replaced in stubActivities by the payout's and refund's merged steps over the stubbed ones.
    recordPayoutStep: async () => undefined,
    beginPayout: async () => ({ state: 'operational', retryAfterSeconds: null }),
    recordPayoutEnd: async () => undefined,
    emitRefundEvent: async () => ({ eventId: 'evt_1' }),
    recordRefundEnd: async () => undefined,
    readDisbursementAndSettle: async () => ({ ...pending(), settled: false }),
    readRefundAndSettle: async () => ({ ...pending(), settled: false }),
    announceAndRequestRefund: async () => pending(),
    openRefundDesk: async (payinId) => ({
      payin: {
        merchantId: 'm_1',
        transactionId: payinId,
        reference: 'ref-1',
        amount: 1000,
        currency: 'XOF',
        operator: 'MTN',
        country: 'CI',
        success: true,
        refundableForMs: 3_600_000,
      },
      refunds: [],
      seq: 5,
    }),
    creditMerchantForPayin: async () => ({ credited: 985, fee: 15 }),
    emitTransactionEvent: async () => ({ eventId: 'evt_1' }),
    recordEvent: async () => ({ eventId: 'evt_1' }),
    generateStatement: async () => ({ entryCount: 0 }),
    failStatement: async () => undefined,
    publishStatementReady: async () => ({ eventId: 'evt_1' }),
    batchProgress: async () => ({ state: 'done' as const, allFinal: true, ageMs: 0 }),
    finishBatch: async () => undefined,
    completeBatch: async () => ({ eventId: 'evt_1' }),
    replaySize: async () => 0,
    replaySlice: async () => ({ started: 0, stopped: false }),
    requestCollection: async () => pending(),
    readCollectionStatus: async () => pending(),
    cancelAtOperator: async () => pending(),
    partnerCheck: async () => ({ collected: false }),
    forgetOtp: async () => undefined,
    flagForOps: async () => undefined,
    listPayinRefunds: async () => undefined,
    openRefund: async () => ({ fee: 0 }),
    requestRefund: async () => pending(),
    readRefundStatus: async () => pending(),
    completeRefund: async () => undefined,
    failRefund: async () => undefined,
    reverseRefund: async () => undefined,
    refundEventInput: async (refundId, type) => ({
      merchantId: 'm_1',
      type,
      subjectId: refundId,
      reference: refundId,
      data: {},
    }),
    ensurePayoutDebited: async () => ({ applied: false }),
    payoutProviderState: async () => ({ state: 'operational', retryAfterSeconds: null }),
    requestDisbursement: async () => pending(),
    readDisbursementStatus: async () => pending(),
    recordPayoutState: async () => undefined,
    settlePayoutFee: async () => undefined,
    reversePayout: async () => ({ applied: true }),
    attemptWebhookDelivery: async () => ({ outcome: 'delivered', retryAfterMs: null }),
    drainWebhookOutbox: async (input) => ({ state: 'rested', cursor: input.from?.cursor ?? 0, attempts: 0 }),
    parkWebhookEndpoint: async () => undefined,
    enableWebhookEndpoint: async () => undefined,
    recoverUnstartedWorkflows: async () => ({ examined: 0, outcomes: {} }),
    reconcileOperatorDay: async (input) => ({
      id: `rec_${input.operator}_${input.date}`,
      operator: input.operator,
      date: input.date,
      totals: {} as never,
      needsPerson: false,
    }),
    recordOperatorAsk: async () => undefined,
  };
}

export interface Stubs {
  activities: Record<string, Fn>;
  calls: Call[];
  /** The calls of one activity, in order. */
  of(name: keyof Activities): Call[];
  count(name: keyof Activities): number;
  /** The activity names called, in order (for "what was done, in what order"). */
  names(): (keyof Activities)[];
}

/** Every activity the workflows call, stubbed: `script` replaces the defaults; each call is recorded. */
export function stubActivities(script: Script = {}): Stubs {
  const calls: Call[] = [];
  const impl = { ...defaults(), ...script } as Record<string, (...args: unknown[]) => unknown>;
  const activities: Record<string, Fn> = {};
  for (const [name, fn] of Object.entries(impl)) {
    activities[name] = async (...args: unknown[]) => {
      const { isLocal, attempt } = Context.current().info;
      const call = () => {
        // Recorded once per workflow call, not per attempt.
        if (attempt === 1) calls.push({ name: name as keyof Activities, args, at: serverNow() });
        return fn(...args);
      };
      // Steps called from within a local activity (the merged steps below) keep its time.
      if (!isLocal || localCallTime.getStore() !== undefined) return call();
      return localCallTime.run(serverClock ? await serverClock() : Date.now(), call);
    };
  }
  // The merged steps of payouts and refunds, the production code over the stubbed single steps:
  // tests see (and script) the steps.
  const merged = {
    ...mergePayoutSteps(activities as unknown as PayoutStepActivities),
    ...mergeRefundSteps(activities as unknown as RefundStepActivities),
  };
  for (const [name, fn] of Object.entries(merged)) if (!(name in script)) activities[name] = fn;
  // A payin's final answer is one activity made of three steps: tests see (and script) the steps.
  if (!script.recordPayinOutcome)
    activities.recordPayinOutcome = async (...args: unknown[]) => {
      const [id, o] = args as Parameters<Activities['recordPayinOutcome']>;
      const step = (name: keyof Activities, ...rest: unknown[]) =>
        (activities[name] as Fn)(...(rest as never[]));
      if (o.credit) await step('creditMerchantForPayin', id);
      await step('recordPayinState', id, o.changes, o.seq);
      await step('emitTransactionEvent', id, o.event);
    };
  // A status read that records the success it finds: the read, then the outcome's steps.
  if (!script.readCollectionAndSettle)
    activities.readCollectionAndSettle = async (...args: unknown[]) => {
      const [id, operator, country, onCompleted] = args as Parameters<Activities['readCollectionAndSettle']>;
      const status = (await (activities.readCollectionStatus as Fn)(
        ...([id, operator, country] as never[]),
      )) as {
        outcome: string;
      };
      if (status.outcome !== 'completed') return { ...status, settled: false };
      await (activities.recordPayinOutcome as Fn)(...([id, onCompleted] as never[]));
      return { ...status, settled: true };
    };
  const of = (name: keyof Activities) => calls.filter((c) => c.name === name);
  return { activities, calls, of, count: (n) => of(n).length, names: () => calls.map((c) => c.name) };
}

export interface WorkflowTestEnv {
  env: TestWorkflowEnvironment;
  /** The file's worker task queue. */
  taskQueue: string;
  /**
   * Runs `fn` with `stubs` as the worker's activities. Tests of a file run one at a time and await
   * every workflow they start, so no call of one test reaches another's stubs.
   */
  withStubs<T>(stubs: Stubs, fn: (taskQueue: string) => Promise<T>): Promise<T>;
  /** The test server's clock (ms): skipped time included. */
  now(): Promise<number>;
  teardown(): Promise<void>;
}

let runtimeInstalled = false;

/**
 * One time-skipping server per test file (scripts/test-server/temporal-test-server, as the stack
 * helper spawns it), its client with the project's data converter, the search attributes the
 * workflows upsert, and one Worker on the bundle jest's global setup pre-built (TEST_WORKFLOW_BUNDLE):
 * loading the bundle costs seconds, so the worker is shared and its activities route to the
 * current test's stubs.
 */
export async function workflowTestEnv(): Promise<WorkflowTestEnv> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    try {
      Runtime.install({
        logger: new DefaultLogger('ERROR'),
        telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
      });
    } catch {
      // already installed in this process (another test file)
    }
  }
  const bundlePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (!bundlePath) throw new Error('TEST_WORKFLOW_BUNDLE is unset: run through jest (global setup)');
  const keys = configSchema.parse({}).PAYLOAD_CODEC_KEYS;
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServerWrapper } },
    client: { dataConverter: dataConverter(keys) },
  });
  await ensureSearchAttributes(env.connection, env.namespace ?? 'default');
  serverClock = () => env.currentTimeMs();

  let current: Stubs | null = null;
  const routed = Object.fromEntries(
    Object.keys(defaults()).map((name) => [
      name,
      (...args: never[]) => {
        if (!current) throw new Error(`activity ${name} called outside a test`);
        return current.activities[name]!(...args);
      },
    ]),
  );
  const taskQueue = `wf-${randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: bundlePath },
    dataConverter: dataConverter(keys),
    activities: routed,
  });
  const running = worker.run();
  return {
    env,
    taskQueue,
    async withStubs(stubs, fn) {
      current = stubs;
      try {
        return await fn(taskQueue);
      } finally {
        current = null;
      }
    },
    now: () => env.currentTimeMs(),
    async teardown() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

/** A fresh id with a readable prefix. */
export const newId = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

/** Workflows are imported from workflows/index.ts only (its modules may move); types follow from them. */
export type PayinWorkflowInput = Parameters<typeof payinWorkflow>[0];

const minute = 60_000;
const hour = 60 * minute;

/** A direct MTN CI payin of 1,000 XOF (an Orange CI one with `otpId`), as the API starts it. */
export function directPayin(
  over: { otpId?: string; timing?: Partial<PayinWorkflowInput['timing']> } = {},
): PayinWorkflowInput {
  const id = newId('pi');
  return {
    transactionId: id,
    merchantId: 'm_1',
    reference: `ref-${id}`,
    flow: 'direct',
    country: 'CI',
    currency: 'XOF',
    amount: 1000,
    sandboxScenario: null,
    collection: {
      transactionId: id,
      operator: over.otpId ? 'ORANGE' : 'MTN',
      country: 'CI',
      msisdn: '+2250500000001',
      amount: 1000,
      currency: 'XOF',
      sandboxScenario: null,
      ...(over.otpId ? { otpId: over.otpId } : {}),
    },
    timing: { ...payinTiming, ...over.timing },
  };
}

/** A session payin: no collection until the customer confirms on the page. */
export function sessionPayin(timing: Partial<PayinWorkflowInput['timing']> = {}): PayinWorkflowInput {
  return { ...directPayin({ timing }), flow: 'session', collection: null };
}

/** The timings of these tests: PAYIN_EXPIRY 15 min, a 30 min session, 48 h of partner checks, a 1 h refund window. */
export const payinTiming: PayinWorkflowInput['timing'] = {
  expiryMs: 15 * minute,
  sessionExpiryMs: 30 * minute,
  correctionWindowMs: 48 * hour,
  partnerCheckIntervalMs: 5 * minute,
  refundWindowMs: hour,
  otpLifetimeMs: 5 * minute,
};

/**
 * The file's test environment, set up before its tests and torn down after them: a stand-in that
 * reads through to the environment once `beforeAll` has made it.
 */
export function useWorkflowTestEnv(): WorkflowTestEnv {
  let current: WorkflowTestEnv | undefined;
  beforeAll(async () => {
    current = await workflowTestEnv();
  });
  afterAll(async () => {
    await current?.teardown();
  });
  return new Proxy({} as WorkflowTestEnv, {
    get(_, key: keyof WorkflowTestEnv): unknown {
      if (!current) throw new Error('the workflow test environment is used before beforeAll');
      const value: unknown = Reflect.get(current, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
}
