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

/** Zod's own messages, in the caller's language. */
export function zodErrorMap(lang: Language) {
  return zodLocales[lang].localeError;
}
