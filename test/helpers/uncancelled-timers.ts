import { CancellationScope, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

// Workflow interceptors of the time-skipping integration stack only (its own bundle, built in
// test/setup/global-setup.ts): a timer whose wait is cancelled (a condition met before its timeout)
// is left to fire instead of being cancelled. The time-skipping test server refuses a CancelTimer
// for a timer that fired while the task was with the worker and then never redelivers the task
// (temporalio/sdk-java#3088), which strands the workflow and holds the server's clock; the real
// server accepts it. docs/decisions/testing/time-skipping-uncancelled-timers.md.
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      startTimer(input, next) {
        const scope = CancellationScope.current();
        const timer = CancellationScope.nonCancellable(() => next(input));
        if (!scope.cancellable) return timer;
        // The waiter sees its cancellation at once, as it would with the timer cancelled.
        return Promise.race([timer, scope.cancelRequested]);
      },
    },
  ],
});
