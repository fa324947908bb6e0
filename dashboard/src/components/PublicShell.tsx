import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from './Layout';

/** The frame of the pages seen before signing in: a header with the language switch, one main. */
export function PublicShell(props: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="public">
      <header className="top">
        <span className="brand">{t('app.name')}</span>
        <LanguageSwitch />
      </header>
      <main id="main" className="card">
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </div>
  );
}
