import type { z } from 'zod';
import { fieldMessages } from '../field-messages';

/** A `from`/`to` period's rule: `to` after `from`, at most `maxDays` apart (the error is on `to`). */
export function periodOfAtMost(maxDays: number) {
  return (r: { from: string; to: string }, ctx: z.core.$RefinementCtx) => {
    const span = new Date(r.to).getTime() - new Date(r.from).getTime();
    if (span <= 0) ctx.addIssue({ code: 'custom', path: ['to'], params: fieldMessages.periodOrder });
    else if (span > maxDays * 86_400_000)
      ctx.addIssue({ code: 'custom', path: ['to'], params: fieldMessages.periodTooLong(maxDays) });
  };
}
