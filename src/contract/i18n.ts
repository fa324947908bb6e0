import { z } from 'zod';

export const languages = ['en', 'fr'] as const;
export type Language = (typeof languages)[number];
/** A text of the interface in every language it speaks. */
export type Text = Record<Language, string>;

/**
 * Picks en or fr from Accept-Language (quality values honoured); English by default. Typed by
 * shape, not by Express's Request, so the contract does not depend on the web framework.
 */
export function negotiateLanguage(req: { acceptsLanguages(...langs: string[]): string | false }): Language {
  const found = req.acceptsLanguages(...languages);
  return found === 'fr' ? 'fr' : 'en';
}

const zodLocales = { en: z.locales.en(), fr: z.locales.fr() } as const;

/**
 * Zod's own messages, in the caller's language. A custom check carries its own wording as
 * `params: { en, fr }` (a Text of src/contract/field-messages.ts).
 */
export function zodErrorMap(lang: Language): z.core.$ZodErrorMap {
  return (issue) => {
    const params = issue.code === 'custom' ? (issue.params as Partial<Text>) : undefined;
    return params?.[lang] ?? zodLocales[lang].localeError(issue);
  };
}
