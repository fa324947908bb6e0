import type { Client } from '@temporalio/client';
import { startOnce } from '../temporal/start-once';
import { webhookDeliveryWorkflowId } from '../temporal/workflow-ids';
import {
  webhookDeliveryWorkflowType,
  type WebhookDeliveryInput,
  type WebhookDeliveryWorkflow,
} from './messages';

// One delivery workflow per (event, endpoint), and one per redelivery, making every attempt from
// the first: the activity that records an event only starts it (fire-and-forget), so a slow or
// dead merchant endpoint never holds a transaction's workflow, and the deterministic id makes a
// repeated dispatch a no-op.

export { webhookDeliveryWorkflowId as deliveryWorkflowId } from '../temporal/workflow-ids';

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
