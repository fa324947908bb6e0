import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { type Schemas } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useAction, useCursorQuery } from '../actions';
import { SelectField } from '../components/Field';
import { Form } from '../components/Form';
import { Pager } from '../components/Pager';
import { PeriodFields } from '../components/PeriodFields';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { useSession } from '../session';
import { dayStart } from './transactions-model';

const formats = [
  { value: 'csv', label: 'CSV' },
  { value: 'json', label: 'JSON' },
] as const;

export function Statements() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const client = useQueryClient();

  const accounts = useQuery({
    queryKey: ['accounts', session.mode],
    queryFn: () => unwrap(api.GET('/v1/accounts')),
  });
  const create = useAction(
    (body: Schemas['CreateStatementRequest'], idempotencyKey: string) =>
      unwrap(
        api.POST('/v1/statements', { params: { header: { 'X-Idempotency-Key': idempotencyKey } }, body }),
      ),
    () => {
      pages.reset();
      void client.invalidateQueries({ queryKey: ['statements', session.mode] });
    },
  );
  // The team's statements, whoever asked for them (GET /v1/statements), read again while one is
  // being prepared.
  const { query: list, pages } = useCursorQuery(
    ['statements', session.mode],
    (cursor) =>
      unwrap(api.GET('/v1/statements', { params: { query: { limit: 20, ...(cursor ? { cursor } : {}) } } })),
    (data) => (data?.data.some((s) => s.status === 'pending') ? 3000 : false),
  );
  const statements = list.data?.data ?? [];
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
          empty={list.isSuccess && statements.length === 0 && t('statements.none')}
        >
          {statements.map((s) => (
            <tr key={s.id}>
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
          ))}
        </Table>
        <ProblemAlert error={list.error} />
        <Pager label={t('statements.pages')} pages={pages} nextCursor={list.data?.nextCursor} />
      </Section>
    </>
  );
}
