// Export of a list (GET /dashboard/api/transactions/export): the format chosen, the filters the
// list shows; or of another export route (`path`: a payment link's payments), the format only. The
// file is fetched, so a refusal (too many rows) is said here, in the page's language.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { download, type RequestOptions } from '../api/http';
import { SelectField } from './Field';
import { ProblemAlert } from './ProblemAlert';

export type ExportList = 'transactions' | 'refunds' | 'payouts';
type Format = 'csv' | 'xlsx';

type Target = { list: ExportList; filters?: RequestOptions['query'] } | { path: string };

export function ExportButton(props: Target) {
  const { t } = useTranslation();
  const [format, setFormat] = useState<Format>('csv');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      if ('path' in props) await download(props.path, { format });
      else await download('/transactions/export', { ...props.filters, list: props.list, format });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="export" role="group" aria-label={t('exports.label')}>
      <div className="actions">
        <SelectField
          inline
          label={t('exports.format')}
          value={format}
          onChange={setFormat}
          choices={[
            { value: 'csv', label: t('exports.csv') },
            { value: 'xlsx', label: t('exports.xlsx') },
          ]}
        />
        <button type="button" onClick={() => void run()} disabled={busy} aria-busy={busy}>
          {busy ? t('exports.busy') : t('exports.button')}
        </button>
      </div>
      <ProblemAlert error={error} />
    </div>
  );
}
