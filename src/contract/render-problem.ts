import type { Language } from './i18n';
import {
  problemCatalogue,
  type ApiProblem,
  type Catalogue,
  type Problem,
  type ProblemCode,
} from './problems';

/** A problem's RFC 9457 body in one language, from the catalogue and what the raiser added. */
export function renderProblem(
  code: ProblemCode,
  lang: Language,
  extra: ApiProblem['extra'] = {},
  instance?: string,
): Problem {
  const entry: Catalogue = problemCatalogue[code];
  const detail = extra.detail ?? entry.detail;
  return {
    type: `/docs/errors#${code}`,
    title: entry.title[lang],
    status: entry.status,
    ...(detail ? { detail: detail[lang] } : {}),
    code,
    ...(instance ? { instance } : {}),
    ...(extra.errors
      ? {
          errors: extra.errors.map((e) => ({
            path: e.path,
            message: typeof e.message === 'string' ? e.message : e.message[lang],
          })),
        }
      : {}),
  };
}
