import { useQueries, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Schemas } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useAction } from '../actions';
import { SelectField } from '../components/Field';
import { Form } from '../components/Form';
import { PeriodFields } from '../components/PeriodFields';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { useSession } from '../session';
import { dayStart } from './transactions-model';

// The public API has no list of statements: the page lists those requested from this browser, per
// merchant and mode (docs/decisions/dashboard/statements-listed-per-browser.md).
function storageKey(merchantId: string, mode: string): string {
  return `dashboard.statements.${merchantId}.${mode}`;
}
const formats = [
  { value: 'csv', label: 'CSV' },
  { value: 'json', label: 'JSON' },
] as const;

function readIds(key: string): string[] {
  try {
    const ids: unknown = JSON.parse(localStorage.getItem(key) ?? '[]');
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function Statements() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const key = storageKey(session.merchant.id, session.mode);
  const [ids, setIds] = useState<string[]>(() => readIds(key));

  const accounts = useQuery({
    queryKey: ['accounts', session.mode],
    queryFn: () => unwrap(api.GET('/v1/accounts')),
  });
  const create = useAction(
    (body: Schemas['CreateStatementRequest'], idempotencyKey: string) =>
      unwrap(
        api.POST('/v1/statements', { params: { header: { 'X-Idempotency-Key': idempotencyKey } }, body }),
      ),
    (statement) => {
      const next = [statement.id, ...ids.filter((id) => id !== statement.id)].slice(0, 50);
      localStorage.setItem(key, JSON.stringify(next));
      setIds(next);
    },
  );
  const statements = useQueries({
    queries: ids.map((id) => ({
      queryKey: ['statement', session.mode, id],
      queryFn: () => unwrap(api.GET('/v1/statements/{id}', { params: { path: { id } } })),
      refetchInterval: (q: { state: { data?: Schemas['Statement'] } }) =>
        q.state.data && q.state.data.status !== 'pending' ? false : 3000,
    })),
  });
  const form = useFields({ accountId: '', from: '', to: '', format: 'csv' as 'csv' | 'json' }, create.error);
  const { from, to, format } = form.values;
  const account = form.values.accountId || accounts.data?.data[0]?.id || '';

  return (
    <>
      <h1>{t('statements.title')}</h1>
      <Section title={t('statements.request')}>
        <p>{t('statements.intro')}</p>
        <ProblemAlert error={accounts.error} />
        <Form
          onSubmit={() =>
            create.run({ accountId: account, from: dayStart(from) ?? '', to: dayStart(to, 1) ?? '', format })
          }
          className="form-grid"
          submit={t('statements.submit')}
          disabled={!account || !from || !to || create.isPending}
        >
          <SelectField
            label={t('fields.account')}
            choices={(accounts.data?.data ?? []).map((a) => ({
              value: a.id,
              label: `${a.name} (${a.currency})`,
            }))}
            {...form.bind('accountId')}
            value={account}
          />
          <PeriodFields from={form.bind('from')} to={form.bind('to')} />
          <SelectField label={t('fields.format')} choices={formats} {...form.bind('format')} />
        </Form>
        <ProblemAlert error={create.error} shownFields={['accountId', 'from', 'to', 'format']} />
      </Section>
      <Section title={t('statements.list')}>
        <Table
          caption={t('statements.caption')}
          headers={[
            t('statements.period'),
            t('fields.currency'),
            t('fields.format'),
            t('fields.status'),
            t('statements.entries'),
            t('statements.download'),
          ]}
          empty={ids.length === 0 && t('statements.none')}
        >
          {statements.map((q, i) => {
            const s = q.data;
            const id = ids[i] ?? '';
            if (!s)
              return (
                <tr key={id}>
                  <td colSpan={6}>{q.isError ? q.error.message : t('common.loading')}</td>
                </tr>
              );
            return (
              <tr key={id}>
                <td>{f.period(s.from, s.to)}</td>
                <td>{s.currency}</td>
                <td>{s.format.toUpperCase()}</td>
                <td>
                  <span className={`status status-${s.status}`}>{t(`statements.status.${s.status}`)}</span>
                </td>
                <td>{s.entryCount === null ? '—' : f.number(s.entryCount)}</td>
                <td>
                  {s.status === 'ready' && s.download ? (
                    <a href={s.download.url} download>
                      {t('statements.downloadLink', { format: s.format.toUpperCase() })}
                    </a>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            );
          })}
        </Table>
      </Section>
    </>
  );
}
