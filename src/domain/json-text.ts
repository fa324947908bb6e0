import { z } from 'zod';

/**
 * A setting written as JSON text, parsed before its schema checks it: text that is not JSON is
 * refused with a message that shows what is expected (`hint`).
 */
export function jsonText(hint: string) {
  return z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: hint });
      return z.NEVER;
    }
  });
}
