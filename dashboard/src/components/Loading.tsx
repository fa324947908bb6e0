import { useTranslation } from 'react-i18next';

/** While a screen's script or data arrives. */
export function Loading() {
  const { t } = useTranslation();
  return <p role="status">{t('common.loading')}</p>;
}
