import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { dashboardApi, type TransactionPage } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useCursorQuery } from '../actions';
import { DataTable, features } from '../components/DataTable';
import { ExportButton } from '../components/ExportButton';
import { SavedFilters } from '../components/SavedFilters';
import { SelectField, TextField, asChoices } from '../components/Field';
import { Form } from '../components/Form';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { maskPhone, useFormat } from '../format';
import { useFilters } from '../hooks/useFilters';
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

// A type, not an interface: filters are a record of strings (useFilters).
type Filters = {
  type: string;
  status: string;
  provider: string;
  country: string;
  from: string;
  to: string;
  reference: string;
  metadataKey: string;
  metadataValue: string;
};
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

/** A few digits are the end of a phone number; anything else is a part of a reference. */
function searchPage(search: string, cursor: string | undefined) {
  return dashboardApi.search({
    ...(/^\d{2,4}$/.test(search) ? { phone: search } : { q: search }),
    cursor,
    limit: 50,
  });
}

/** The filters as the query GET /v1/transactions (and the export) reads; empty ones left out. */
function filterQuery(filters: Filters) {
  return {
    type: filters.type || undefined,
    status: filters.status || undefined,
    provider: filters.provider || undefined,
    country: filters.country || undefined,
    from: dayStart(filters.from),
    to: dayStart(filters.to, 1),
    reference: filters.reference || undefined,
    ...(filters.metadataKey ? { [`metadata[${filters.metadataKey}]`]: filters.metadataValue } : {}),
  };
}

function filteredPage(filters: Filters, cursor: string | undefined) {
  const metadata = filters.metadataKey ? { [filters.metadataKey]: filters.metadataValue } : undefined;
  return unwrap(
    api.GET('/v1/transactions', {
      params: {
        query: {
          limit: 50,
          cursor,
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
}

export function Transactions() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const filters = useFilters(noFilters);
  const [searchDraft, setSearchDraft] = useState('');
  const [search, setSearch] = useState('');
  const { query: list, pages } = useCursorQuery(
    ['transactions', session.mode, filters.applied, search],
    (cursor): Promise<TransactionPage> =>
      search ? searchPage(search, cursor) : filteredPage(filters.applied, cursor),
  );

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

  const apply = () => {
    setSearch('');
    filters.apply();
    pages.reset();
  };
  const clear = () => {
    filters.clear();
    pages.reset();
  };
  const any = t('common.any');

  return (
    <>
      <h1>{t('transactions.title')}</h1>
      <Form
        onSubmit={() => {
          setSearch(searchDraft.trim());
          pages.reset();
        }}
        noValidate={false}
        className="search-form"
        role="search"
        aria-label={t('transactions.search')}
      >
        <TextField
          label={t('transactions.search')}
          hint={t('transactions.searchHint')}
          type="search"
          value={searchDraft}
          onChange={setSearchDraft}
        />
        <button type="submit">{t('common.search')}</button>
      </Form>
      <details className="filters" open>
        <summary>{t('transactions.filters')}</summary>
        <Form onSubmit={apply} noValidate={false} className="filter-grid">
          <SelectField
            label={t('fields.type')}
            any={any}
            choices={types.map((v) => ({ value: v, label: t(`types.${v}`) }))}
            {...filters.bind('type')}
          />
          <SelectField
            label={t('fields.status')}
            any={any}
            choices={statuses.map((v) => ({ value: v, label: t(`statuses.${v}`) }))}
            {...filters.bind('status')}
          />
          <SelectField
            label={t('fields.operator')}
            any={any}
            choices={asChoices(providers)}
            {...filters.bind('provider')}
          />
          <SelectField
            label={t('fields.country')}
            any={any}
            choices={countries.map((v) => ({ value: v, label: t(`countries.${v}`) }))}
            {...filters.bind('country')}
          />
          <TextField label={t('fields.from')} type="date" {...filters.bind('from')} />
          <TextField label={t('fields.to')} type="date" {...filters.bind('to')} />
          <TextField label={t('fields.reference')} {...filters.bind('reference')} />
          <TextField label={t('fields.metadataKey')} {...filters.bind('metadataKey')} />
          <TextField label={t('fields.metadataValue')} {...filters.bind('metadataValue')} />
          <div className="actions">
            <button type="submit" className="button-primary">
              {t('common.apply')}
            </button>
            <button type="button" onClick={clear}>
              {t('common.reset')}
            </button>
          </div>
        </Form>
      </details>
      <SavedFilters
        list="transactions"
        applied={filters.applied}
        none={noFilters}
        onApply={(saved) => {
          setSearch('');
          filters.load(saved);
          pages.reset();
        }}
      />
      {/* A search is a look-up, not a filter: the export follows the filters (list-exports.md). */}
      {!search && <ExportButton list="transactions" filters={filterQuery(filters.applied)} />}
      <ProblemAlert error={list.error} />
      <DataTable
        caption={search ? t('transactions.captionSearch', { q: search }) : t('transactions.caption')}
        columns={columns}
        data={rows}
        rowKey={(r) => `${r.type}:${r.reference}`}
        loading={list.isFetching}
      />
      <Pager label={t('transactions.pages')} pages={pages} nextCursor={list.data?.nextCursor} />
    </>
  );
}
