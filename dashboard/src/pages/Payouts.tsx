import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { dashboardApi, type BulkPreview, type BulkPreviewRow, type Schemas } from '../api/dashboard';
import { api, fieldErrors, unwrap } from '../api/http';
import { useAction } from '../actions';
import { CancelPayoutDialog } from '../components/CancelPayoutDialog';
import { DataTable, features } from '../components/DataTable';
import { Field, SelectField, TextField } from '../components/Field';
import { Form } from '../components/Form';
import { ConfirmModal } from '../components/Modal';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { maskPhone, useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { useSession } from '../session';
import { countries, currencyOf, toRow, type Country, type TransactionRow } from './transactions-model';

/** POST /v1/payouts/bulk takes at most 100 items (docs/bulk-payouts.md). */
export const chunkSize = 100;
const ended = new Set(['completed', 'failed', 'reversed', 'expired']);

const newReference = () => `po-${crypto.randomUUID().slice(0, 8)}`;
const blankPayout = (): {
  country: Country;
  msisdn: string;
  amount: string;
  customerName: string;
  reference: string;
} => ({
  country: 'CI',
  msisdn: '',
  amount: '',
  customerName: '',
  reference: newReference(),
});

function SinglePayout() {
  const { t } = useTranslation();
  const f = useFormat();
  const [confirming, setConfirming] = useState(false);

  const check = useAction((q: { country: Country; msisdn: string }) =>
    unwrap(api.GET('/v1/providers/recipient', { params: { query: q } })),
  );
  const send = useAction(
    (body: Schemas['StandardPayoutRequest'], key: string) =>
      unwrap(api.POST('/v1/payout', { params: { header: { 'X-Idempotency-Key': key } }, body })),
    () => {
      setConfirming(false);
      form.set('reference', newReference());
    },
  );
  const form = useFields(blankPayout, check.error, send.error);
  const { country, msisdn, customerName, reference } = form.values;
  const value = Number(form.values.amount);
  const checked =
    check.data && check.data.msisdn.replace(/\D/g, '').endsWith(msisdn.replace(/\D/g, '').slice(-8));

  const runCheck = () => {
    send.reset();
    check.run({ country, msisdn });
  };

  return (
    <Section title={t('payouts.single')}>
      <Form
        onSubmit={runCheck}
        className="form-grid"
        submit={t('payouts.check')}
        quiet
        disabled={!msisdn || check.isPending}
      >
        <SelectField
          label={t('fields.country')}
          choices={countries.map((c) => ({ value: c, label: t(`countries.${c}`) }))}
          {...form.bind('country')}
        />
        <TextField
          label={t('fields.phone')}
          hint={t('payouts.phoneHint')}
          type="tel"
          autoComplete="off"
          required
          {...form.bind('msisdn')}
        />
        <TextField
          label={t('fields.amountIn', { currency: currencyOf[country] })}
          type="number"
          inputMode="numeric"
          min={1}
          required
          {...form.bind('amount')}
        />
        <TextField label={t('fields.customerName')} {...form.bind('customerName')} />
        <TextField label={t('fields.reference')} required {...form.bind('reference')} />
      </Form>
      <ProblemAlert error={check.error} shownFields={['msisdn', 'country']} />
      {check.data && (
        <div className="recipient" role="status">
          <p>
            <strong>{t('payouts.recipient')}</strong> {check.data.holderName ?? t('payouts.noName')} ·{' '}
            {check.data.operator ?? '—'} ·{' '}
            {check.data.active === true
              ? t('payouts.active')
              : check.data.active === false
                ? t('payouts.inactive')
                : t('payouts.unknown')}
          </p>
          {check.data.active !== false && checked && (
            <button
              type="button"
              className="button-primary"
              disabled={!(value > 0) || !reference}
              onClick={() => {
                send.reset();
                setConfirming(true);
              }}
            >
              {t('payouts.review')}
            </button>
          )}
        </div>
      )}
      {send.data && (
        <p role="status" className="alert alert-ok">
          {t('payouts.sent')}{' '}
          <Link to={`/transactions/payout/${encodeURIComponent(send.data.reference)}`}>
            {send.data.reference}
          </Link>
        </p>
      )}
      <ConfirmModal
        open={confirming}
        title={t('payouts.confirmTitle')}
        confirmLabel={t('payouts.send')}
        action={send}
        onClose={() => setConfirming(false)}
        onConfirm={() =>
          send.run({
            country,
            msisdn,
            amount: value,
            reference,
            ...(customerName ? { customerName } : {}),
          })
        }
      >
        <p className="confirm-text">
          {t('payouts.confirm', {
            amount: f.amount(value, currencyOf[country]),
            name: check.data?.holderName ?? t('payouts.noName'),
            phone: msisdn,
          })}
        </p>
      </ConfirmModal>
    </Section>
  );
}

const previewHelper = createColumnHelper<typeof features, BulkPreviewRow>();

function BulkPayouts() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const [file, setFile] = useState<File | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [batchIds, setBatchIds] = useState<string[]>([]);
  const preview = useAction(dashboardApi.bulkPreview, () => setBatchIds([]));
  const valid = useMemo(
    () => (preview.data?.rows ?? []).flatMap((r) => (r.item ? [r.item] : [])),
    [preview.data],
  );

  const send = useAction(
    async (vars: { items: Schemas['CreatePayoutBatchRequest']['items']; keys: string[] }) => {
      const ids: string[] = [];
      // One request per chunk, each with its own key made at the click: a retry resends them all
      // under the same keys, and the server answers the batches it already has.
      for (let i = 0; i * chunkSize < vars.items.length; i++) {
        const batch = await unwrap(
          api.POST('/v1/payouts/bulk', {
            params: { header: { 'X-Idempotency-Key': vars.keys[i] ?? crypto.randomUUID() } },
            body: { atomic: false, items: vars.items.slice(i * chunkSize, (i + 1) * chunkSize) },
          }),
        );
        ids.push(batch.id);
        setBatchIds([...ids]);
      }
      return ids;
    },
    (ids) => {
      setBatchIds(ids);
      setConfirming(false);
    },
  );

  const batches = useQueries({
    queries: batchIds.map((id) => ({
      queryKey: ['payout-batch', session.mode, id],
      queryFn: () => unwrap(api.GET('/v1/payouts/bulk/{id}', { params: { path: { id } } })),
      refetchInterval: (q: { state: { data?: Schemas['PayoutBatch'] } }) =>
        q.state.data?.status === 'completed' ? false : 2000,
    })),
  });

  const columns = useMemo(
    () =>
      previewHelper.columns([
        previewHelper.accessor('line', { header: () => t('bulk.row'), cell: (c) => f.number(c.getValue()) }),
        previewHelper.display({
          id: 'reference',
          header: () => t('fields.reference'),
          cell: (c) => c.row.original.item?.reference ?? c.row.original.cells?.reference ?? '—',
        }),
        previewHelper.display({
          id: 'msisdn',
          header: () => t('fields.phone'),
          cell: (c) => {
            const item = c.row.original.item;
            // A row read as a payout shows its number masked, as everywhere; a row in error, as written.
            return item && 'msisdn' in item ? maskPhone(item.msisdn) : (c.row.original.cells?.msisdn ?? '—');
          },
        }),
        previewHelper.display({
          id: 'amount',
          header: () => t('fields.amount'),
          cell: (c) => {
            const item = c.row.original.item;
            return item && 'country' in item
              ? f.amount(item.amount, currencyOf[item.country])
              : (c.row.original.cells?.amount ?? '—');
          },
        }),
        previewHelper.display({
          id: 'name',
          header: () => t('fields.customerName'),
          cell: (c) => {
            const item = c.row.original.item;
            return (
              (item && 'customerName' in item ? item.customerName : c.row.original.cells?.customerName) ?? '—'
            );
          },
        }),
        previewHelper.accessor('errors', {
          header: () => t('bulk.check'),
          cell: (c) =>
            c.getValue().length === 0 ? (
              <span className="status status-completed">{t('bulk.ok')}</span>
            ) : (
              <ul className="row-errors">
                {c.getValue().map((e) => (
                  <li key={`${e.field}:${e.message}`}>
                    <code>{e.field}</code>: {e.message}
                  </li>
                ))}
              </ul>
            ),
        }),
      ]),
    [t, f],
  );

  const data: BulkPreview | undefined = preview.data;
  const loaded = batches.flatMap((b) => (b.data ? [b.data] : []));
  const accepted = loaded.reduce((n, b) => n + b.summary.accepted, 0);
  const refused = loaded.reduce((n, b) => n + b.summary.refused, 0);
  const done = loaded.reduce(
    (n, b) => n + Object.entries(b.summary.byStatus).reduce((m, [s, c]) => m + (ended.has(s) ? c : 0), 0),
    0,
  );
  const byStatus = new Map<string, number>();
  for (const b of loaded)
    for (const [s, c] of Object.entries(b.summary.byStatus)) byStatus.set(s, (byStatus.get(s) ?? 0) + c);
  const allCompleted = loaded.length === batchIds.length && loaded.every((b) => b.status === 'completed');

  return (
    <Section title={t('bulk.title')}>
      <p>{t('bulk.intro')}</p>
      <Form
        onSubmit={() => file && preview.run(file)}
        className="form-row"
        submit={t('bulk.preview')}
        quiet
        disabled={!file || preview.isPending}
      >
        <Field label={t('bulk.file')} hint={t('bulk.fileHint')} error={fieldErrors(preview.error).file}>
          {(p) => (
            <input
              {...p}
              type="file"
              accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          )}
        </Field>
      </Form>
      <ProblemAlert error={preview.error} shownFields={['file']} />
      {data && (
        <>
          <p role="status">
            {t('bulk.summary', { valid: f.number(data.valid), invalid: f.number(data.invalid) })}{' '}
            {data.totals.map((v) => f.amount(v.amount, v.currency)).join(' · ')}
          </p>
          <DataTable
            caption={t('bulk.caption')}
            columns={columns}
            data={data.rows}
            rowKey={(r) => String(r.line)}
          />
          {batchIds.length === 0 && (
            <div className="actions">
              <button
                type="button"
                className="button-primary"
                disabled={valid.length === 0}
                onClick={() => {
                  send.reset();
                  setConfirming(true);
                }}
              >
                {t('bulk.sendValid', { count: valid.length, formatted: f.number(valid.length) })}
              </button>
            </div>
          )}
        </>
      )}
      <ConfirmModal
        open={confirming}
        title={t('bulk.confirmTitle')}
        confirmLabel={t('bulk.send')}
        action={send}
        onClose={() => setConfirming(false)}
        onConfirm={() =>
          send.run({
            items: valid,
            keys: Array.from({ length: Math.ceil(valid.length / chunkSize) }, () => crypto.randomUUID()),
          })
        }
      >
        <p className="confirm-text">
          {t('bulk.confirm', {
            count: valid.length,
            formatted: f.number(valid.length),
            amounts: (data?.totals ?? []).map((v) => f.amount(v.amount, v.currency)).join(' · '),
          })}
        </p>
      </ConfirmModal>
      {batchIds.length > 0 && (
        <section aria-labelledby="progress-heading" className="progress-box">
          <h3 id="progress-heading">{t('bulk.progress')}</h3>
          <progress
            id="bulk-progress"
            max={Math.max(accepted, 1)}
            value={done}
            aria-labelledby="progress-heading"
          />
          <p role="status" aria-live="polite">
            {allCompleted
              ? t('bulk.completed', { accepted: f.number(accepted), refused: f.number(refused) })
              : t('bulk.running', { done: f.number(done), accepted: f.number(accepted) })}
          </p>
          <ul>
            {[...byStatus.entries()].map(([s, c]) => (
              <li key={s}>
                {t(`statuses.${s}`)}: {f.number(c)}
              </li>
            ))}
          </ul>
          <p>
            {t('bulk.batches')}{' '}
            {batchIds.map((id) => (
              <code key={id}>{id} </code>
            ))}
          </p>
        </section>
      )}
    </Section>
  );
}

function HeldPayouts() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const client = useQueryClient();
  const [cancelling, setCancelling] = useState<TransactionRow | null>(null);
  const held = useQuery({
    queryKey: ['transactions', session.mode, 'held-payouts'],
    queryFn: () =>
      unwrap(
        api.GET('/v1/transactions', { params: { query: { type: 'payout', status: 'pending', limit: 50 } } }),
      ),
  });
  const rows = (held.data?.data ?? []).map(toRow);
  return (
    <Section title={t('payouts.held')}>
      <p>{t('payouts.heldIntro')}</p>
      <ProblemAlert error={held.error} />
      <Table
        caption={t('payouts.heldCaption')}
        headers={[
          t('fields.reference'),
          t('fields.amount'),
          t('fields.phone'),
          t('fields.createdAt'),
          t('common.actions'),
        ]}
        empty={held.isSuccess && rows.length === 0 && t('payouts.noneHeld')}
      >
        {rows.map((r) => (
          <tr key={r.reference}>
            <th scope="row">
              <Link to={`/transactions/payout/${encodeURIComponent(r.reference)}`}>{r.reference}</Link>
            </th>
            <td>{f.amount(r.amount, r.currency)}</td>
            <td>{maskPhone(r.phone)}</td>
            <td>{f.dateTime(r.createdAt)}</td>
            <td>
              <button type="button" className="button-danger" onClick={() => setCancelling(r)}>
                {t('payouts.cancel')}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <CancelPayoutDialog
        payout={cancelling}
        onClose={() => setCancelling(null)}
        onCancelled={() => {
          setCancelling(null);
          void client.invalidateQueries({ queryKey: ['transactions'] });
        }}
      />
    </Section>
  );
}

export function Payouts() {
  const { t } = useTranslation();
  return (
    <>
      <h1>{t('payouts.title')}</h1>
      <SinglePayout />
      <BulkPayouts />
      <HeldPayouts />
    </>
  );
}
