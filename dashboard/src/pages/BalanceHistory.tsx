// Balance history (issue 44 §2): every movement of an account with its running balance, newest
// first, by day, through the public API's door (GET /v1/accounts, then …/{id}/entries with its
// cursor and `from`), in the session's mode. The same entries as the statements (docs/statements.md).
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Schemas } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useCursorQuery } from '../actions';
import { SelectField } from '../components/Field';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useCan, useSession } from '../session';
import {
  byDay,
  movementOf,
  periodStart,
  periods,
  type Carried,
  type Entry,
  type Period,
} from './balance-history-model';

type Account = Schemas['Account'];

function MovementText(props: { entry: Entry }) {
  const { t } = useTranslation();
  const m = movementOf(props.entry);
  const words = m.kind
    ? t(`balances.movements.${m.kind}`, { payment: m.payment })
    : t('balances.other', { reason: props.entry.reason });
  const name = m.kind ? m.reference : props.entry.transactionId;
  return (
    <>
      {words}
      {name && (
        <>
          {' · '}
          {m.link ? <Link to={m.link}>{name}</Link> : <code>{name}</code>}
        </>
      )}
    </>
  );
}

/** One account's movements from `from` on, a page at a time; a day split across pages is carried over. */
function Movements(props: { account: Account; from: string | undefined }) {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const { account, from } = props;
  const { query: list, pages } = useCursorQuery(['entries', session.mode, account.id, from], (cursor) =>
    unwrap(
      api.GET('/v1/accounts/{id}/entries', {
        params: { path: { id: account.id }, query: { limit: '50', cursor, from } },
      }),
      // The page knows the cursor it was read at: the day the page before ended on is found by it.
    ).then((page) => ({ ...page, cursor })),
  );
  // Each page's last day and closing balance, by the cursor of the page after it.
  const carried = useRef(new Map<string, Carried>());
  const page = list.data;
  const days = useMemo(
    () => (page ? byDay(page.data, page.cursor ? carried.current.get(page.cursor) : undefined) : []),
    [page],
  );
  const last = days[days.length - 1];
  useEffect(() => {
    if (page?.nextCursor && last && !carried.current.has(page.nextCursor))
      carried.current.set(page.nextCursor, { day: last.day, closing: last.closing });
  }, [page, last]);

  const headers = [
    t('balances.time'),
    t('balances.movement'),
    t('fields.amount'),
    t('balances.balanceAfter'),
  ];
  return (
    <>
      <ProblemAlert error={list.error} />
      <Table
        caption={t('balances.caption', { account: `${account.name} (${account.currency})` })}
        className="movements"
        headers={headers}
        busy={list.isFetching}
        rowGroups
        empty={
          days.length === 0 &&
          (list.isPending ? t('common.loading') : from ? t('balances.noneInPeriod') : t('balances.none'))
        }
      >
        {days.map((d) => (
          <tbody key={d.day}>
            <tr className="day-row">
              <th scope="rowgroup" colSpan={headers.length}>
                {t(d.continued ? 'balances.dayContinued' : 'balances.day', {
                  day: f.date(d.day),
                  balance: f.amount(d.closing, account.currency),
                })}
              </th>
            </tr>
            {d.entries.map((e) => (
              <tr key={e.id}>
                <td>{f.time(e.createdAt)}</td>
                <td className="movement">
                  <MovementText entry={e} />
                </td>
                <td className="figure">{f.signedAmount(e.amount, e.currency)}</td>
                <td className="figure">{f.amount(e.balanceAfter, e.currency)}</td>
              </tr>
            ))}
          </tbody>
        ))}
      </Table>
      <Pager label={t('balances.pages')} pages={pages} nextCursor={page?.nextCursor} />
    </>
  );
}

export function BalanceHistory() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const can = useCan();
  const accounts = useQuery({
    queryKey: ['accounts', session.mode],
    queryFn: () => unwrap(api.GET('/v1/accounts')),
  });
  const [picked, setPicked] = useState('');
  // The shortcut's start is fixed when it is chosen: the list's key does not move as time passes.
  const [period, setPeriod] = useState<{ name: Period; from: string | undefined }>({
    name: 'all',
    from: undefined,
  });
  const all = accounts.data?.data ?? [];
  const account = all.find((a) => a.id === picked) ?? all[0];

  return (
    <div className="touch-targets">
      <h1>{t('balances.title')}</h1>
      <p>
        {t('balances.intro')}
        {can('statement') && (
          <>
            {' '}
            <Link to="/statements">{t('balances.statements')}</Link>
          </>
        )}
      </p>
      {accounts.isPending && <p>{t('common.loading')}</p>}
      <ProblemAlert error={accounts.error} />
      {accounts.isSuccess && !account && <p>{t('balances.noAccount')}</p>}
      {account && (
        <>
          <SelectField
            inline
            label={t('fields.account')}
            choices={all.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }))}
            value={account.id}
            onChange={setPicked}
          />
          <fieldset className="period-choices">
            <legend>{t('balances.period')}</legend>
            {periods.map((p) => (
              <label key={p} className="choice">
                <input
                  type="radio"
                  name="period"
                  value={p}
                  checked={period.name === p}
                  onChange={() => setPeriod({ name: p, from: periodStart(p) })}
                />
                {t(`balances.periods.${p}`)}
              </label>
            ))}
          </fieldset>
          <p className="tile-figure">
            {t('balances.available', { amount: f.amount(account.available, account.currency) })}
          </p>
          {/* Another account or period starts at its first page, nothing carried over. */}
          <Movements key={`${account.id}:${period.from ?? ''}`} account={account} from={period.from} />
        </>
      )}
    </div>
  );
}
