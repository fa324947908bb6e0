import type { Request } from 'express';
import { z } from 'zod';

export const languages = ['en', 'fr'] as const;
export type Language = (typeof languages)[number];

/** Picks en or fr from Accept-Language (quality values honoured); English by default. */
export function negotiateLanguage(req: Pick<Request, 'acceptsLanguages'>): Language {
  const found = req.acceptsLanguages(...languages);
  return found === 'fr' ? 'fr' : 'en';
}

const zodLocales = { en: z.locales.en(), fr: z.locales.fr() } as const;

/**
 * Zod's own messages, in the caller's language. A custom check carries its own wording as
 * `params: { en, fr }` (see `localizedIssue`).
 */
export function zodErrorMap(lang: Language): z.core.$ZodErrorMap {
  return (issue) => {
    const params = issue.code === 'custom' ? (issue.params as Partial<Record<Language, string>>) : undefined;
    return params?.[lang] ?? zodLocales[lang].localeError(issue);
  };
}

/** The params of a custom zod issue whose message follows the caller's language. */
export function localizedIssue(en: string, fr: string): Record<Language, string> {
  return { en, fr };
}
