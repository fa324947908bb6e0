import { useTranslation } from 'react-i18next';
import type { CursorPages } from '../actions';

/** Previous / page n / next over a cursor-paged list; `nextCursor` is the server's, null on the last page. */
export function Pager(props: { label: string; pages: CursorPages; nextCursor: string | null | undefined }) {
  const { t } = useTranslation();
  const { pages, nextCursor: next } = props;
  return (
    <nav className="pager" aria-label={props.label}>
      <button type="button" disabled={!pages.hasPrevious} onClick={pages.previous}>
        {t('common.previous')}
      </button>
      <span>{t('common.page', { page: pages.page })}</span>
      <button type="button" disabled={!next} onClick={() => next && pages.next(next)}>
        {t('common.next')}
      </button>
    </nav>
  );
}
