import { ApplicationFailure } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { permanentErrors } from '../infra/metrics';

// Errors that retrying cannot fix. Workflows list these types as non-retryable
// (workflows/activity-proxies.ts), so they surface at once instead of retrying for ever in
// silence; this interceptor makes each one a metric and an error log line an on-call can alert on.

/** A record an activity needs does not exist: a bug or lost data, never a passing fault. */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
}

export const permanentErrorTypes = ['PermanentError', 'SourceRefConflictError'] as const;

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
