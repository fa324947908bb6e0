import { ApplicationFailure } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { permanentErrors } from '../../infra/metrics';
import { permanentErrorTypes } from '../../temporal/permanent-errors';

// The worker's side of the permanent errors (src/temporal/permanent-errors.ts): each one that leaves
// an activity becomes a metric and an error log line an on-call can alert on. It lives with the
// worker's wiring, so the Temporal seam below does not import the metrics.

function typeOf(err: unknown): string | null {
  if (err instanceof ApplicationFailure) return err.nonRetryable && err.type ? err.type : null;
  return err instanceof Error ? err.name : null;
}

export function permanentErrorAlert(ctx: Context): ActivityInboundCallsInterceptor {
  return {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        const type = typeOf(err);
        if (type && (permanentErrorTypes as readonly string[]).includes(type)) {
          const activity = ctx.info.activityType;
          permanentErrors.inc({ activity, type });
          // The message names ids only (our own errors' wording), never a phone number.
          ctx.log.error('permanent activity error: a person must look', {
            activity,
            type,
            workflowId: ctx.info.workflowExecution?.workflowId ?? null,
            message: err instanceof Error ? err.message : String(err),
          });
        }
        throw err;
      }
    },
  };
}
