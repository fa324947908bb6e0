// The refunds and the payouts, each a list of its own with why and where it stands: a refund's
// reason and status, a payout's recipient and status, and why either failed, in the page's
// language (GET /v1/transactions?type=…, newest first, paged by its cursor).
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { TransactionPage } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useCursorQuery } from '../actions';
import { ExportButton } from '../components/ExportButton';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useSession } from '../session';

type Row = TransactionPage['data'][number];
type Failure = { code: string; message: string } | null;

function useList(type: 'refund' | 'payout') {
  const session = useSession();
  return useCursorQuery(['list', type, session.mode], (cursor) =>
    unwrap(api.GET('/v1/transactions', { params: { query: { type, limit: 50, cursor } } })),
  );
}

/** A failure in words when its code is one the page knows, else its code. */
function FailureText(props: { failure: Failure }) {
  const { t } = useTranslation();
  const failure = props.failure;
  if (!failure) return <>—</>;
  const words = t(`failures.${failure.code}`, { defaultValue: '' });
  return words ? <>{words}</> : <code>{failure.code}</code>;
}

function Status(props: { status: string }) {
  const { t } = useTranslation();
  return (
    <span className={`status status-${props.status}`}>
      {t(`statuses.${props.status}`, { defaultValue: props.status })}
    </span>
  );
}

export function Refunds() {
  const { t } = useTranslation();
  const f = useFormat();
  const { query: list, pages } = useList('refund');
  const rows = (list.data?.data ?? []).filter(
    (r): r is Extract<Row, { type: 'refund' }> => r.type === 'refund',
  );
  return (
    <>
      <h1>{t('lists.refunds')}</h1>
      <ExportButton list="refunds" />
      <ProblemAlert error={list.error} />
      <Table
        caption={t('lists.refundsCaption')}
        headers={[
          t('lists.refund'),
          t('lists.payment'),
          t('fields.amount'),
          t('lists.reason'),
          t('fields.status'),
          t('lists.failure'),
          t('fields.date'),
        ]}
        busy={list.isFetching}
        empty={rows.length === 0 && (list.isFetching ? t('common.loading') : t('common.empty'))}
      >
        {rows.map((r) => (
          <tr key={r.reference}>
            <td>
              <Link to={`/transactions/refund/${encodeURIComponent(r.reference)}`}>{r.reference}</Link>
            </td>
            <td>
              <Link to={`/transactions/payin/${encodeURIComponent(r.originalReference)}`}>
                {r.originalReference}
              </Link>
            </td>
            <td>{f.amount(r.amount, r.currency)}</td>
            <td>{r.reason || '—'}</td>
            <td>
              <Status status={r.status} />
            </td>
            <td>
              <FailureText failure={r.failure} />
            </td>
            <td>{f.dateTime(r.createdAt)}</td>
          </tr>
        ))}
      </Table>
      <Pager label={t('lists.refundPages')} pages={pages} nextCursor={list.data?.nextCursor} />
    </>
  );
}

export function PayoutList() {
  const { t } = useTranslation();
  const f = useFormat();
  const { query: list, pages } = useList('payout');
  const rows = (list.data?.data ?? []).filter((r) => r.type === 'payout');
  return (
    <>
      <h1>{t('lists.payouts')}</h1>
      <ExportButton list="payouts" />
      <ProblemAlert error={list.error} />
      <Table
        caption={t('lists.payoutsCaption')}
        headers={[
          t('fields.reference'),
          t('lists.recipient'),
          t('fields.amount'),
          t('fields.status'),
          t('lists.failure'),
          t('fields.date'),
        ]}
        busy={list.isFetching}
        empty={rows.length === 0 && (list.isFetching ? t('common.loading') : t('common.empty'))}
      >
        {rows.map((r) => {
          const phone = 'customer' in r ? r.customer.phoneNumber : 'phoneNumber' in r ? r.phoneNumber : null;
          const name = 'customer' in r ? r.customer.name : 'customerName' in r ? r.customerName : null;
          return (
            <tr key={r.reference}>
              <td>
                <Link to={`/transactions/payout/${encodeURIComponent(r.reference)}`}>{r.reference}</Link>
              </td>
              <td>{[name, phone].filter(Boolean).join(' · ') || '—'}</td>
              <td>{f.amount(r.amount, r.currency)}</td>
              <td>
                <Status status={r.status} />
              </td>
              <td>
                <FailureText failure={'failure' in r ? r.failure : null} />
              </td>
              <td>{f.dateTime(r.createdAt)}</td>
            </tr>
          );
        })}
      </Table>
      <Pager label={t('lists.payoutPages')} pages={pages} nextCursor={list.data?.nextCursor} />
    </>
  );
}
