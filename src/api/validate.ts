import type { Request } from 'express';
import type { z } from 'zod';
import { negotiateLanguage, type Language } from '../contract/i18n';
import { zodErrorMap } from '../contract/zod-messages';
import { ApiProblem } from '../contract/problems';

/**
 * Parses with a zod schema; a failure becomes a 400 listing each bad field, in the caller's language
 * (Accept-Language, unless the page the request comes from chose one: `lang`).
 */
export function parseOr400<S extends z.ZodType>(
  schema: S,
  data: unknown,
  req: Request,
  lang: Language = negotiateLanguage(req),
): z.infer<S> {
  const result = schema.safeParse(data, { error: zodErrorMap(lang) });
  if (result.success) return result.data;
  const at = (path: PropertyKey[]) => path.map(String).join('.') || '(body)';
  throw new ApiProblem('VALIDATION_ERROR', {
    // An unknown field is reported at its own path, one entry per field, not at its parent's.
    errors: result.error.issues.flatMap((i) =>
      i.code === 'unrecognized_keys'
        ? i.keys.map((k) => ({ path: at([...i.path, k]), message: i.message }))
        : [{ path: at(i.path), message: i.message }],
    ),
  });
}
