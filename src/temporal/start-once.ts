import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  type Client,
  type Workflow,
  type WorkflowStartOptions,
} from '@temporalio/client';

// How we start workflows: by function reference (the compiler checks the workflow's name and its
// arguments against the function the worker registers), under a deterministic id
// (src/temporal/workflow-ids.ts) that is never run twice.

/** `started` now, or `exists`: a run with this id exists or existed (nothing was started). */
export type StartResult = 'started' | 'exists';

/**
 * Starts `workflow` under `options.workflowId` unless that id was ever used: REJECT_DUPLICATE, so a
 * closed run is never followed by a second one, and a repeated start (a retry, a replayed activity)
 * answers `exists` instead of failing.
 */
export async function startOnce<W extends Workflow>(
  client: Client,
  workflow: W | string,
  options: Omit<WorkflowStartOptions<W>, 'workflowIdReusePolicy'>,
): Promise<StartResult> {
  try {
    await client.workflow.start<W>(workflow, {
      ...options,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    } as WorkflowStartOptions<W>);
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
    throw err;
  }
}
