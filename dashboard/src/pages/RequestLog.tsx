import { createColumnHelper } from '@tanstack/react-table';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type RequestLogEntry } from '../api/dashboard';
import { useCursorQuery } from '../actions';
import { DataTable, features } from '../components/DataTable';
import { SelectField, TextField, asChoices } from '../components/Field';
import { Form } from '../components/Form';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { useFormat } from '../format';
import { useFilters } from '../hooks/useFilters';
import { useSession } from '../session';

// The filters GET /dashboard/api/requests takes (it refuses any other).
const none = { method: '', statusClass: '', pathPrefix: '', idempotencyKey: '' };
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
  const filters = useFilters(none);
  const { query: log, pages } = useCursorQuery(['requests', session.mode, filters.applied], (cursor) =>
    dashboardApi.requests({ ...filters.applied, cursor, limit: 50 }),
  );
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
  const apply = () => {
    filters.apply();
    pages.reset();
  };

  return (
    <Section title={t('developers.requests')}>
      <p>{t('requests.intro')}</p>
      <Form onSubmit={apply} noValidate={false} className="filter-grid">
        <SelectField
          label={t('requests.method')}
          any={t('common.any')}
          choices={asChoices(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])}
          {...filters.bind('method')}
        />
        <SelectField
          label={t('fields.status')}
          any={t('common.any')}
          choices={asChoices(['2xx', '3xx', '4xx', '5xx'])}
          {...filters.bind('statusClass')}
        />
        <TextField
          label={t('requests.path')}
          hint={t('requests.statusHint')}
          {...filters.bind('pathPrefix')}
        />
        <TextField label={t('requests.idempotencyKey')} {...filters.bind('idempotencyKey')} />
        <div className="actions">
          <button type="submit" className="button-primary">
            {t('common.apply')}
          </button>
        </div>
      </Form>
      <ProblemAlert error={log.error} />
      <DataTable
        caption={t('requests.caption')}
        columns={columns}
        data={log.data?.data ?? noEntries}
        rowKey={(r) => r.id}
        loading={log.isFetching}
      />
      <Pager label={t('requests.pages')} pages={pages} nextCursor={log.data?.nextCursor} />
    </Section>
  );
}
