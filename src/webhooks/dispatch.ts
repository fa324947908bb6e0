import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { webhookDeliveryWorkflow, WebhookDeliveryInput } from '../../workflows/webhook-delivery';

// One delivery workflow per (event, endpoint), and one per redelivery, making every attempt from
// the first: the activity that records an event only starts it (fire-and-forget), so a slow or
// dead merchant endpoint never holds a transaction's workflow, and the deterministic id makes a
// repeated dispatch a no-op.

export function deliveryWorkflowId(eventId: string, endpointId: string, redeliveryKey?: string): string {
  return `webhook:${eventId}:${endpointId}${redeliveryKey ? `:redeliver:${redeliveryKey}` : ''}`;
}

/** Starts the delivery unless a workflow with its id already ran; answers the delivery id. */
export async function startDelivery(
  client: Client,
  taskQueue: string,
  input: Omit<WebhookDeliveryInput, 'trigger'> & { redeliveryKey?: string },
): Promise<string> {
  const workflowId = deliveryWorkflowId(input.eventId, input.endpointId, input.redeliveryKey);
  try {
    await client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
      taskQueue,
      workflowId,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
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
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return workflowId;
}
