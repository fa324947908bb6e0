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
