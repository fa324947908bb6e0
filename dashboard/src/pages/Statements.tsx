import { useQueries, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { type Schemas } from '../api/dashboard';
import { api, fieldErrors, unwrap } from '../api/http';
import { useAction } from '../actions';
import { Field } from '../components/Field';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useSession } from '../session';
import { dayStart } from './transactions-model';

// The public API has no list of statements: the page lists those requested from this browser, per
// merchant and mode (docs/decisions/dashboard/statements-listed-per-browser.md).
function storageKey(merchantId: string, mode: string): string {
  return `dashboard.statements.${merchantId}.${mode}`;
}
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
  const [accountId, setAccountId] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [format, setFormat] = useState<'csv' | 'json'>('csv');

  const accounts = useQuery({
    queryKey: ['accounts', session.mode],
    queryFn: () => unwrap(api.GET('/v1/accounts')),
  });
  const account = accountId || accounts.data?.data[0]?.id || '';
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
  const errors = fieldErrors(create.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.run({ accountId: account, from: dayStart(from) ?? '', to: dayStart(to, 1) ?? '', format });
  };

  return (
    <>
      <h1>{t('statements.title')}</h1>
      <section aria-labelledby="request-heading">
        <h2 id="request-heading">{t('statements.request')}</h2>
        <p>{t('statements.intro')}</p>
        <ProblemAlert error={accounts.error} />
        <form onSubmit={submit} noValidate className="form-grid">
          <Field label={t('fields.account')} error={errors.accountId}>
            {(p) => (
              <select {...p} value={account} onChange={(e) => setAccountId(e.target.value)}>
                {(accounts.data?.data ?? []).map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name} ({a.currency})
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={t('fields.from')} error={errors.from}>
            {(p) => (
              <input {...p} type="date" required value={from} onChange={(e) => setFrom(e.target.value)} />
            )}
          </Field>
          <Field label={t('fields.toInclusive')} error={errors.to}>
            {(p) => <input {...p} type="date" required value={to} onChange={(e) => setTo(e.target.value)} />}
          </Field>
          <Field label={t('fields.format')} error={errors.format}>
            {(p) => (
              <select {...p} value={format} onChange={(e) => setFormat(e.target.value as 'csv' | 'json')}>
                <option value="csv">CSV</option>
                <option value="json">JSON</option>
              </select>
            )}
          </Field>
          <div className="actions">
            <button
              type="submit"
              className="button-primary"
              disabled={!account || !from || !to || create.isPending}
            >
              {t('statements.submit')}
            </button>
          </div>
        </form>
        <ProblemAlert error={create.error} shownFields={['accountId', 'from', 'to', 'format']} />
      </section>
      <section aria-labelledby="list-heading">
        <h2 id="list-heading">{t('statements.list')}</h2>
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption>{t('statements.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('statements.period')}</th>
                <th scope="col">{t('fields.currency')}</th>
                <th scope="col">{t('fields.format')}</th>
                <th scope="col">{t('fields.status')}</th>
                <th scope="col">{t('statements.entries')}</th>
                <th scope="col">{t('statements.download')}</th>
              </tr>
            </thead>
            <tbody>
              {ids.length === 0 && (
                <tr>
                  <td colSpan={6} className="empty">
                    {t('statements.none')}
                  </td>
                </tr>
              )}
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
                    <td>
                      {f.dateTime(s.from)} – {f.dateTime(s.to)}
                    </td>
                    <td>{s.currency}</td>
                    <td>{s.format.toUpperCase()}</td>
                    <td>
                      <span className={`status status-${s.status}`}>
                        {t(`statements.status.${s.status}`)}
                      </span>
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
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
