// The page's language: from localStorage when chosen before, else the browser's; en or fr. The
// <html lang> and the Accept-Language of every call follow it (the server localizes problems).
import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import { setApiLanguage } from './api/http';
import { en } from './locales/en';
import { fr } from './locales/fr';

export const languages = ['en', 'fr'] as const;
export type Language = (typeof languages)[number];
export const languageStorageKey = 'dashboard.language';

i18n.on('languageChanged', (lng) => {
  const language = lng.startsWith('fr') ? 'fr' : 'en';
  document.documentElement.lang = language;
  setApiLanguage(language);
  document.title = i18n.t('app.name');
});

void i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources: { en: { translation: en }, fr: { translation: fr } },
    supportedLngs: languages,
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    detection: {
      order: ['localStorage', 'navigator'],
      lookupLocalStorage: languageStorageKey,
      caches: ['localStorage'],
    },
  });

export default i18n;
