import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useCursorPages } from '../actions';
import { DataTable, features } from '../components/DataTable';
import { Field } from '../components/Field';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { maskPhone, useFormat } from '../format';
import { useSession } from '../session';
import {
  countries,
  dayStart,
  providers,
  statuses,
  toRow,
  types,
  type TransactionRow,
} from './transactions-model';

interface Filters {
  type: string;
  status: string;
  provider: string;
  country: string;
  from: string;
  to: string;
  reference: string;
  metadataKey: string;
  metadataValue: string;
}
const noFilters: Filters = {
  type: '',
  status: '',
  provider: '',
  country: '',
  from: '',
  to: '',
  reference: '',
  metadataKey: '',
  metadataValue: '',
};

const helper = createColumnHelper<typeof features, TransactionRow>();

export function Transactions() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const pages = useCursorPages();
  const [draft, setDraft] = useState<Filters>(noFilters);
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [searchDraft, setSearchDraft] = useState('');
  const [search, setSearch] = useState('');

  const list = useQuery({
    queryKey: ['transactions', session.mode, filters, search, pages.cursor],
    placeholderData: keepPreviousData,
    queryFn: () => {
      // A few digits are the end of a phone number; anything else is a part of a reference.
      if (search)
        return dashboardApi.search({
          ...(/^\d{2,4}$/.test(search) ? { phone: search } : { q: search }),
          cursor: pages.cursor,
          limit: 50,
        });
      const metadata = filters.metadataKey ? { [filters.metadataKey]: filters.metadataValue } : undefined;
      return unwrap(
        api.GET('/v1/transactions', {
          params: {
            query: {
              limit: 50,
              cursor: pages.cursor,
              type: (filters.type || undefined) as (typeof types)[number] | undefined,
              status: (filters.status || undefined) as (typeof statuses)[number] | undefined,
              provider: (filters.provider || undefined) as (typeof providers)[number] | undefined,
              country: (filters.country || undefined) as (typeof countries)[number] | undefined,
              from: dayStart(filters.from),
              to: dayStart(filters.to, 1),
              reference: filters.reference || undefined,
              metadata,
            },
          },
        }),
      );
    },
  });

  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor('reference', {
          header: () => t('fields.reference'),
          cell: (c) => (
            <Link to={`/transactions/${c.row.original.type}/${encodeURIComponent(c.getValue())}`}>
              {c.getValue()}
            </Link>
          ),
        }),
        helper.accessor('type', { header: () => t('fields.type'), cell: (c) => t(`types.${c.getValue()}`) }),
        helper.accessor('status', {
          header: () => t('fields.status'),
          cell: (c) => (
            <span className={`status status-${c.getValue()}`}>{t(`statuses.${c.getValue()}`)}</span>
          ),
        }),
        helper.accessor('amount', {
          header: () => t('fields.amount'),
          cell: (c) => f.amount(c.getValue(), c.row.original.currency),
        }),
        helper.accessor('phone', { header: () => t('fields.phone'), cell: (c) => maskPhone(c.getValue()) }),
        helper.accessor('operator', {
          header: () => t('fields.operator'),
          cell: (c) => maskPhone(c.getValue()),
        }),
        helper.accessor('createdAt', {
          header: () => t('fields.createdAt'),
          cell: (c) => f.dateTime(c.getValue()),
        }),
      ]),
    [t, f],
  );
  const rows = useMemo(() => (list.data?.data ?? []).map(toRow), [list.data]);

  const set = (k: keyof Filters) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [k]: e.target.value }));
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setSearch('');
    setFilters(draft);
    pages.reset();
  };
  const runSearch = (e: FormEvent) => {
    e.preventDefault();
    setSearch(searchDraft.trim());
    pages.reset();
  };
  const select = (
    k: keyof Filters,
    label: string,
    values: readonly string[],
    labelOf: (v: string) => string,
  ) => (
    <Field label={label}>
      {(p) => (
        <select {...p} value={draft[k]} onChange={set(k)}>
          <option value="">{t('common.any')}</option>
          {values.map((v) => (
            <option key={v} value={v}>
              {labelOf(v)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );

  return (
    <>
      <h1>{t('transactions.title')}</h1>
      <form onSubmit={runSearch} className="search-form" role="search" aria-label={t('transactions.search')}>
        <Field label={t('transactions.search')} hint={t('transactions.searchHint')}>
          {(p) => (
            <input
              {...p}
              type="search"
              value={searchDraft}
              onChange={(e) => setSearchDraft(e.target.value)}
            />
          )}
        </Field>
        <button type="submit">{t('common.search')}</button>
      </form>
      <details className="filters" open>
        <summary>{t('transactions.filters')}</summary>
        <form onSubmit={apply} className="filter-grid">
          {select('type', t('fields.type'), types, (v) => t(`types.${v}`))}
          {select('status', t('fields.status'), statuses, (v) => t(`statuses.${v}`))}
          {select('provider', t('fields.operator'), providers, (v) => v)}
          {select('country', t('fields.country'), countries, (v) => t(`countries.${v}`))}
          <Field label={t('fields.from')}>
            {(p) => <input {...p} type="date" value={draft.from} onChange={set('from')} />}
          </Field>
          <Field label={t('fields.to')}>
            {(p) => <input {...p} type="date" value={draft.to} onChange={set('to')} />}
          </Field>
          <Field label={t('fields.reference')}>
            {(p) => <input {...p} value={draft.reference} onChange={set('reference')} />}
          </Field>
          <Field label={t('fields.metadataKey')}>
            {(p) => <input {...p} value={draft.metadataKey} onChange={set('metadataKey')} />}
          </Field>
          <Field label={t('fields.metadataValue')}>
            {(p) => <input {...p} value={draft.metadataValue} onChange={set('metadataValue')} />}
          </Field>
          <div className="actions">
            <button type="submit" className="button-primary">
              {t('common.apply')}
            </button>
            <button
              type="button"
              onClick={() => {
                setDraft(noFilters);
                setFilters(noFilters);
                pages.reset();
              }}
            >
              {t('common.reset')}
            </button>
          </div>
        </form>
      </details>
      <ProblemAlert error={list.error} />
      <DataTable
        caption={search ? t('transactions.captionSearch', { q: search }) : t('transactions.caption')}
        columns={columns}
        data={rows}
        rowKey={(r) => `${r.type}:${r.reference}`}
        loading={list.isFetching}
      />
      <Pager
        label={t('transactions.pages')}
        page={pages.page}
        hasPrevious={pages.hasPrevious}
        nextCursor={list.data?.nextCursor}
        onPrevious={pages.previous}
        onNext={pages.next}
      />
    </>
  );
}
