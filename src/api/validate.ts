import type { Request } from 'express';
import type { z } from 'zod';
import { negotiateLanguage, zodErrorMap } from './i18n';
import { ApiProblem } from './problem';

/** Parses with a zod schema; a failure becomes a 400 listing each bad field, in the caller's language. */
export function parseOr400<S extends z.ZodType>(schema: S, data: unknown, req: Request): z.infer<S> {
  const result = schema.safeParse(data, { error: zodErrorMap(negotiateLanguage(req)) });
  if (result.success) return result.data;
  throw new ApiProblem('VALIDATION_ERROR', {
    errors: result.error.issues.map((i) => ({
      path: i.path.map(String).join('.') || '(body)',
      message: i.message,
    })),
  });
}
