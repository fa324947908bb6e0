import { google } from '@temporalio/proto';

// Temporal answers an Update whose workflow task failed while the workflow held it with gRPC
// FAILED_PRECONDITION and a WorkflowNotReadyFailure detail ("unable to perform workflow execution
// update due to unexpected workflow task failure"): the Update was dropped, the task is retried
// without it, and the caller may send it again (temporalio/temporal#7296). A retry, not our bug.

const NOT_READY = 'temporal.api.errordetails.v1.WorkflowNotReadyFailure';

/** Whether `err` (or a cause of it) is Temporal's "workflow not ready": try again shortly. */
export function isWorkflowNotReady(err: unknown): boolean {
  let current: unknown = err;
  // The client wraps the gRPC error (ServiceError -> cause).
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const e = current as { metadata?: { get?: (key: string) => unknown[] }; cause?: unknown };
    const raw =
      typeof e.metadata?.get === 'function' ? e.metadata.get('grpc-status-details-bin')[0] : undefined;
    if (raw instanceof Uint8Array) {
      try {
        const details = google.rpc.Status.decode(raw).details ?? [];
        if (details.some((d) => d.type_url?.endsWith(NOT_READY))) return true;
      } catch {
        // Undecodable details say nothing either way.
      }
    }
    current = e.cause;
  }
  return false;
}
