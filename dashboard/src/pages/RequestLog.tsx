import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type RequestLogEntry } from '../api/dashboard';
import { useCursorPages } from '../actions';
import { DataTable, features } from '../components/DataTable';
import { Field } from '../components/Field';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useSession } from '../session';

// The filters GET /dashboard/api/requests takes (it refuses any other).
interface Filters {
  method: string;
  statusClass: string;
  pathPrefix: string;
  idempotencyKey: string;
}
const none: Filters = { method: '', statusClass: '', pathPrefix: '', idempotencyKey: '' };
const helper = createColumnHelper<typeof features, RequestLogEntry>();
const noEntries: RequestLogEntry[] = [];

/** A body as the server stores it: masked JSON text (indented when it parses; it may be cut). */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function Body(props: { label: string; value: string | null }) {
  if (props.value === null) return null;
  return (
    <details>
      <summary>{props.label}</summary>
      <pre>{pretty(props.value)}</pre>
    </details>
  );
}

export function RequestLog() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const pages = useCursorPages();
  const [draft, setDraft] = useState<Filters>(none);
  const [filters, setFilters] = useState<Filters>(none);
  const log = useQuery({
    queryKey: ['requests', session.mode, filters, pages.cursor],
    placeholderData: keepPreviousData,
    queryFn: () => dashboardApi.requests({ ...filters, cursor: pages.cursor, limit: 50 }),
  });
  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor('at', { header: () => t('fields.date'), cell: (c) => f.dateTime(c.getValue()) }),
        helper.accessor('method', {
          header: () => t('requests.method'),
          cell: (c) => <code>{c.getValue()}</code>,
        }),
        helper.accessor('path', {
          header: () => t('requests.path'),
          cell: (c) => <code>{c.getValue()}</code>,
        }),
        helper.accessor('status', { header: () => t('fields.status'), cell: (c) => c.getValue() }),
        helper.accessor('problemType', {
          header: () => t('requests.problem'),
          cell: (c) => c.row.original.problemCode ?? c.getValue() ?? '—',
        }),
        helper.accessor('idempotencyKey', {
          header: () => t('requests.idempotencyKey'),
          cell: (c) => (c.getValue() ? <code>{c.getValue()}</code> : '—'),
        }),
        helper.accessor('durationMs', {
          header: () => t('requests.duration'),
          cell: (c) => `${f.number(c.getValue())} ms`,
        }),
        helper.display({
          id: 'bodies',
          header: () => t('requests.bodies'),
          cell: (c) => (
            <>
              <Body label={t('requests.request')} value={c.row.original.requestBody} />
              <Body label={t('requests.response')} value={c.row.original.responseBody} />
            </>
          ),
        }),
      ]),
    [t, f],
  );
  const set = (k: keyof Filters) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [k]: e.target.value }));
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
    pages.reset();
  };

  return (
    <section aria-labelledby="requests-heading">
      <h2 id="requests-heading">{t('developers.requests')}</h2>
      <p>{t('requests.intro')}</p>
      <form onSubmit={apply} className="filter-grid">
        <Field label={t('requests.method')}>
          {(p) => (
            <select {...p} value={draft.method} onChange={set('method')}>
              <option value="">{t('common.any')}</option>
              {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('fields.status')}>
          {(p) => (
            <select {...p} value={draft.statusClass} onChange={set('statusClass')}>
              <option value="">{t('common.any')}</option>
              {['2xx', '3xx', '4xx', '5xx'].map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('requests.path')} hint={t('requests.statusHint')}>
          {(p) => <input {...p} value={draft.pathPrefix} onChange={set('pathPrefix')} />}
        </Field>
        <Field label={t('requests.idempotencyKey')}>
          {(p) => <input {...p} value={draft.idempotencyKey} onChange={set('idempotencyKey')} />}
        </Field>
        <div className="actions">
          <button type="submit" className="button-primary">
            {t('common.apply')}
          </button>
        </div>
      </form>
      <ProblemAlert error={log.error} />
      <DataTable
        caption={t('requests.caption')}
        columns={columns}
        data={log.data?.data ?? noEntries}
        rowKey={(r) => r.id}
        loading={log.isFetching}
      />
      <Pager
        label={t('requests.pages')}
        page={pages.page}
        hasPrevious={pages.hasPrevious}
        nextCursor={log.data?.nextCursor}
        onPrevious={pages.previous}
        onNext={pages.next}
      />
    </section>
  );
}
