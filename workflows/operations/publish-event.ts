import { proxyActivities } from '@temporalio/workflow';
import type { createEventActivities } from '../../activities/shared/event-activities';
import type { RecordEventInput } from '../../src/events/event-store';

// Records an event and dispatches its webhooks on behalf of code that is not a transaction's
// workflow (an API handler, an ops tool): the event is still recorded durably and delivered by
// the worker. Start it with a workflow id derived from the emission key, so it runs once.

const { recordEvent } = proxyActivities<ReturnType<typeof createEventActivities>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

export async function publishEventWorkflow(input: RecordEventInput): Promise<{ eventId: string }> {
  return recordEvent(input);
}
