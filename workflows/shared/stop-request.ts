import { CancellationScope } from '@temporalio/workflow';

/**
 * Money steps run in a non-cancellable scope: a Temporal cancellation of a transaction workflow
 * must not cut a debit from its reversal. It is read instead as "our deadline is now": the
 * workflow asks the operator to cancel and returns the money exactly once on its answer.
 */
export function watchStopRequest(): { requested: boolean } {
  const flag = { requested: false };
  CancellationScope.current().cancelRequested.catch(() => {
    flag.requested = true;
  });
  return flag;
}
