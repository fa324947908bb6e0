import { randomBytes } from 'node:crypto';
import type { EventType } from '../../src/events/catalogue';
import type { TestStack } from './stack';

// Causes an event through the worker, as a transaction workflow does: publishEventWorkflow runs
// the recordEvent activity, which stores the event, feeds the stream and starts webhook deliveries.
// Its result is not awaited: awaiting would let the time-skipping server jump delivery timers. With
// `recorded`, the call returns once the workflow completed (polled, which jumps no timer): two such
// calls record their events in call order, which two workflows left running do not promise.
export async function publishTestEvent(
  stack: TestStack,
  merchantId: string,
  fields: { type: EventType; reference: string; status?: string },
  opts: { recorded?: boolean } = {},
): Promise<void> {
  const subjectId = `pr_${randomBytes(12).toString('hex')}`;
  const status = fields.status ?? (fields.type.endsWith('.failed') ? 'failed' : 'success');
  const data = {
    id: subjectId,
    type: fields.type.split('.')[0],
    reference: fields.reference,
    status,
    amount: 5000,
    currency: 'XOF',
  };
  const handle = await stack.env.client.workflow.start('publishEventWorkflow', {
    taskQueue: stack.taskQueue,
    workflowId: `event:${subjectId}:${fields.type}`,
    args: [{ merchantId, type: fields.type, subjectId, reference: fields.reference, data }],
  });
  if (!opts.recorded) return;
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50)))
    if ((await handle.describe()).status.name === 'COMPLETED') return;
  throw new Error(`event ${fields.reference} was not recorded within a minute`);
}
