import type { RecordEventInput } from './event-store';

/**
 * The event publication workflow's signature (workflows/publish-event.ts), to start it by its
 * registered name with typed arguments: what starts it (the reconciliation's corrections) sits
 * below the workflows and imports none.
 */
export type PublishEventWorkflow = (input: RecordEventInput) => Promise<{ eventId: string }>;

/** Its workflow type, as histories record it (never renamed). */
export const publishEventWorkflowType = 'publishEventWorkflow';
