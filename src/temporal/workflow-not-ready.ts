import { google } from '@temporalio/proto';
import { errorChain } from '../infra/error-chain';

// Temporal answers an Update whose workflow task failed while the workflow held it with gRPC
// FAILED_PRECONDITION and a WorkflowNotReadyFailure detail ("unable to perform workflow execution
// update due to unexpected workflow task failure"): the Update was dropped, the task is retried
// without it, and the caller may send it again (temporalio/temporal#7296). A retry, not our bug.

const NOT_READY = 'temporal.api.errordetails.v1.WorkflowNotReadyFailure';

/** Whether `err` (or a cause of it) is Temporal's "workflow not ready": try again shortly. */
export function isWorkflowNotReady(err: unknown): boolean {
  // The client wraps the gRPC error (ServiceError -> cause).
  for (const e of errorChain(err)) {
    const metadata = e.metadata as { get?: (key: string) => unknown[] } | undefined;
    const raw = typeof metadata?.get === 'function' ? metadata.get('grpc-status-details-bin')[0] : undefined;
    if (raw instanceof Uint8Array) {
      try {
        const details = google.rpc.Status.decode(raw).details ?? [];
        if (details.some((d) => d.type_url?.endsWith(NOT_READY))) return true;
      } catch {
        // Undecodable details say nothing either way.
      }
    }
  }
  return false;
}
