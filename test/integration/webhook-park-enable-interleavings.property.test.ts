import { randomUUID } from 'node:crypto';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import fc from 'fast-check';
import { ApiClient, eventually } from '../helpers/http';
import { interleaving, type Interleaving } from '../helpers/interleave';
import { createTestMerchant } from '../helpers/merchants';
import { registerEndpoint, useWebhookStack } from '../helpers/webhooks';
import { EventStore } from '../../src/events/event-store';
import { EndpointStore } from '../../src/webhooks/endpoint-store';
import { stopDispatcher } from '../../src/webhooks/dispatch';
import { RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule';
import { webhookDispatcherWorkflowId } from '../../src/temporal/workflow-ids';
import { webhookDispatcherWorkflow } from '../../workflows/webhooks/webhook-dispatcher';

// Issue 41: a dispatcher whose retry schedule is spent parks its endpoint (stores `disabled`) and
// ends, while the merchant enables the endpoint (the API stores `enabled`, then signals the
// dispatcher with start). FerretDB's updates are read-then-replace, and the signal may land while
// the dispatcher runs, as it returns, or after it closed. fast-check's scheduler orders every store
// read and write of both status changes (the park's, the API's, and the dispatcher's own re-enable)
// and the signal, over the real FerretDB, Temporal test server and worker. Whatever the order, the
// merchant's last word wins: enabled, with a running dispatcher; without an enable the endpoint
// stays disabled with none (docs/decisions/webhooks/park-and-enable-meet-in-the-dispatcher.md).

/** Schedules per CI run (each a merchant, an endpoint, a park and 0 to 2 enables; about 2 s). */
const RUNS = Number(process.env.RACE_RUNS ?? 12);

type SetStatus = EndpointStore['setStatus'];

describe('a park and an enable of one webhook endpoint (fast-check scheduler)', () => {
  const { stack, receiver } = useWebhookStack();
  let events: EventStore;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` below
  const realSetStatus: SetStatus = EndpointStore.prototype.setStatus;
  // The interleaving of the run under way; null: calls go straight through.
  let current: Interleaving | null = null;
  const signalErrors: string[] = [];

  beforeAll(() => {
    events = EventStore.on(stack.mongo);
    // Every EndpointStore of the stack (the API's, the worker's) takes its status read and its
    // write as two steps the scheduler places.
    EndpointStore.prototype.setStatus = async function (this: EndpointStore, merchantId, id, status, reason) {
      const il = current;
      if (!il) return realSetStatus.call(this, merchantId, id, status, reason);
      const found = await il.gate(`${status}: read`, () => this.get(merchantId, id))();
      if (!found) return null;
      const model = (
        this as unknown as { model: { updateOne: (...a: unknown[]) => { exec(): Promise<unknown> } } }
      ).model;
      await il.gate(`${status}: write`, () =>
        model
          .updateOne({ _id: id }, { $set: { status, disabledReason: reason, updatedAt: new Date() } })
          .exec(),
      )();
      return this.get(merchantId, id);
    };
    const workflow = stack.env.client.workflow;
    const signalWithStart = workflow.signalWithStart.bind(workflow);
    // What a signal with start threw, named in the failure of an enable that met it.
    const recorded = (...a: Parameters<typeof signalWithStart>) =>
      signalWithStart(...a).catch((err: unknown) => {
        signalErrors.push(String(err));
        throw err;
      });
    workflow.signalWithStart = ((...a: Parameters<typeof signalWithStart>) =>
      current ? current.gate('enable: signal with start', recorded)(...a) : recorded(...a)) as never;
  });
  afterAll(() => {
    EndpointStore.prototype.setStatus = realSetStatus;
  });

  it("every order of park and enable ends with the merchant's last word, and a dispatcher exactly when enabled", async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 0, max: 2 }), async (s, enables) => {
        const merchant = await createTestMerchant(stack);
        const api = new ApiClient(stack.baseUrl, merchant.credentials);
        const hook = await registerEndpoint(api, receiver, `/park/${randomUUID()}`);
        const workflowId = webhookDispatcherWorkflowId(hook.id);
        // Its dispatcher is replaced by one whose schedule is spent on the event at the head: it
        // parks at once.
        await stopDispatcher(stack.env.client, hook.id);
        await stack.env.client.workflow.getHandle(workflowId).result();
        const head = await events.outboxHead(merchant.merchantId);

        const il = interleaving(s);
        current = il;
        let parked!: () => void;
        const parkWritten = new Promise<void>((r) => (parked = r));
        const pending = () => Promise.resolve(s.count());
        try {
          // The park's write is the one store write of status `disabled` in the run.
          // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` below
          const watch = EndpointStore.prototype.setStatus;
          EndpointStore.prototype.setStatus = async function (
            this: EndpointStore,
            ...a: Parameters<SetStatus>
          ) {
            const out = await watch.apply(this, a);
            if (a[2] === 'disabled' && a[1] === hook.id) parked();
            return out;
          };
          try {
            await stack.env.client.workflow.start(webhookDispatcherWorkflow, {
              taskQueue: stack.taskQueue,
              workflowId,
              workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
              args: [
                {
                  merchantId: merchant.merchantId,
                  endpointId: hook.id,
                  from: { cursor: head, attempts: RETRY_DELAYS_MS.length + 1 },
                  failing: { eventId: 'evt_spent', failures: RETRY_DELAYS_MS.length + 1, retryAfterMs: null },
                },
              ],
            });
            const enabled = Array.from({ length: enables }, () =>
              api.post(`/v1/webhooks/${hook.id}/enable`, undefined),
            );
            // Both sides at their first step before any is let go, so the scheduler picks the order.
            await eventually(pending, (n) => n >= 1 + enables);
            const answers = await il.run(Promise.all([parkWritten, ...enabled]).then(([, ...r]) => r));
            // With the body: a failure names the problem the enable met.
            for (const a of answers)
              if (a.status !== 200)
                throw new Error(
                  `enable answered ${a.status}: ${JSON.stringify(a.body)}; signal with start threw: ${signalErrors.join('; ') || 'nothing'}`,
                );
          } finally {
            EndpointStore.prototype.setStatus = watch;
          }
        } finally {
          // What is still scheduled (the dispatcher's re-enable) goes through, and later calls too.
          current = null;
          await s.waitAll();
        }

        const state = async () => ({
          status: (await api.get(`/v1/webhooks/${hook.id}`)).body.status as string,
          dispatcher: (await stack.env.client.workflow.getHandle(workflowId).describe()).status.name,
        });
        const expected =
          enables > 0
            ? { status: 'enabled', dispatcher: 'RUNNING' }
            : { status: 'disabled', dispatcher: 'COMPLETED' };
        await eventually(
          state,
          (st) => st.status === expected.status && st.dispatcher === expected.dispatcher,
        );
        // And it stays so (a dispatcher about to park, an enable about to be overwritten, would not).
        await new Promise((r) => setTimeout(r, 300));
        expect(await state()).toEqual(expected);

        expect((await api.request('DELETE', `/v1/webhooks/${hook.id}`)).status).toBe(204);
      }),
      { numRuns: RUNS, timeout: 60_000 },
    );
  }, 600_000);
});
