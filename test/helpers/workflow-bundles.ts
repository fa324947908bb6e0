import { join } from 'node:path';

/**
 * The workflow interceptor module of the integration stack's bundle (jest's global setup builds it
 * beside the plain one): docs/decisions/testing/time-skipping-uncancelled-timers.md.
 */
export const uncancelledTimers = join(__dirname, 'uncancelled-timers.ts');

/**
 * The workflow bundle of a stack's workers: the time-skipping twin (its timers never cancelled)
 * when the run built one, else the plain bundle (scripts that record golden histories or fuzz set
 * only that one).
 */
export function stackBundle(): string {
  return process.env.TEST_TIME_SKIPPING_BUNDLE ?? process.env.TEST_WORKFLOW_BUNDLE!;
}
