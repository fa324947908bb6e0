import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { startOnce, type StartResult } from '../temporal/start-once';
import { webhookDeliveryWorkflowId, webhookDispatcherWorkflowId } from '../temporal/workflow-ids';
import {
  webhookDeliveryWorkflowType,
  webhookDispatcherWorkflowType,
  type OutboxCursor,
  type WebhookDeliveryInput,
  type WebhookDeliveryWorkflow,
  type WebhookDispatcherWorkflow,
} from './messages';

// An event reaches an endpoint through the endpoint's dispatcher (workflows/webhooks/webhook-dispatcher.ts),
// started when the endpoint is created or enabled: recording an event calls no Temporal API. A
// manual redelivery or a replay is a delivery workflow of its own (docs/decisions/webhooks/
// one-dispatcher-per-endpoint.md), so it is not held behind a failing queue, and the
// deterministic id makes a repeated request a no-op.

/** The signal that tells a dispatcher its endpoint was enabled (it does not park then). */
export const endpointEnabledSignal = 'endpointEnabled';

/**
 * Makes sure the endpoint's dispatcher runs: starts it (from `from`, or where its queue stopped),
 * or with `signal`, signals a running one that the endpoint was enabled. The id is reused on
 * purpose: a parked dispatcher closed, and enabling its endpoint starts it again.
 */
export async function ensureDispatcher(
  client: Client,
  taskQueue: string,
  endpoint: { id: string; merchantId: string },
  opts: { from?: OutboxCursor; signal?: boolean } = {},
): Promise<StartResult> {
  const options = {
    taskQueue,
    workflowId: webhookDispatcherWorkflowId(endpoint.id),
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    args: [
      {
        merchantId: endpoint.merchantId,
        endpointId: endpoint.id,
        ...(opts.from ? { from: opts.from } : {}),
      },
    ] as Parameters<WebhookDispatcherWorkflow>,
  };
  if (opts.signal) {
    // A signal-with-start that meets a run as it closes may be told the run is "already started" or
    // "completed" (not found); the Temporal server retries that race itself (temporalio/temporal#719),
    // its Java test server does not (temporalio/sdk-java#2321): a few tries, then the error.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.workflow.signalWithStart<WebhookDispatcherWorkflow, []>(webhookDispatcherWorkflowType, {
          ...options,
          signal: endpointEnabledSignal,
          signalArgs: [],
        });
        return 'started';
      } catch (err) {
        const race =
          err instanceof WorkflowExecutionAlreadyStartedError || err instanceof WorkflowNotFoundError;
        if (!race || attempt >= 3) throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }
  try {
    await client.workflow.start<WebhookDispatcherWorkflow>(webhookDispatcherWorkflowType, options);
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
    throw err;
  }
}

/**
 * Cancels the dispatcher of a deleted endpoint: it ends, its drain stops at its next heartbeat.
 * Best effort: a dispatcher not running, or not reached now, finds the endpoint gone and ends.
 */
export async function stopDispatcher(client: Client, endpointId: string): Promise<void> {
  await client.workflow
    .getHandle(webhookDispatcherWorkflowId(endpointId))
    .cancel()
    .catch(() => undefined);
}

/** Starts the delivery unless a workflow with its id already ran; answers the delivery id. */
export async function startDelivery(
  client: Client,
  taskQueue: string,
  input: Omit<WebhookDeliveryInput, 'trigger'> & { redeliveryKey?: string },
): Promise<string> {
  const workflowId = webhookDeliveryWorkflowId(input.eventId, input.endpointId, input.redeliveryKey);
  // By its registered name (./messages.ts): the event activities run this, and the delivery workflow
  // runs their activities, so importing the workflow here would make the two import each other.
  await startOnce<WebhookDeliveryWorkflow>(client, webhookDeliveryWorkflowType, {
    taskQueue,
    workflowId,
    args: [
      {
        eventId: input.eventId,
        endpointId: input.endpointId,
        merchantId: input.merchantId,
        trigger: input.redeliveryKey ? 'redelivery' : 'event',
        ...(input.after ? { after: input.after } : {}),
      },
    ],
  });
  return workflowId;
}
