import { useTranslation } from 'react-i18next';

export function Pager(props: {
  label: string;
  page: number;
  hasPrevious: boolean;
  nextCursor: string | null | undefined;
  onPrevious: () => void;
  onNext: (cursor: string) => void;
}) {
  const { t } = useTranslation();
  const next = props.nextCursor;
  return (
    <nav className="pager" aria-label={props.label}>
      <button type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        {t('common.previous')}
      </button>
      <span>{t('common.page', { page: props.page })}</span>
      <button type="button" disabled={!next} onClick={() => next && props.onNext(next)}>
        {t('common.next')}
      </button>
    </nav>
  );
}
