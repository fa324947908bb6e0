import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { dashboardApi, type Timeline } from '../api/dashboard';
import { api, fieldErrors, unwrap } from '../api/http';
import { useAction } from '../actions';
import { CancelPayoutDialog } from '../components/CancelPayoutDialog';
import { Field, TextField } from '../components/Field';
import { Form } from '../components/Form';
import { Modal } from '../components/Modal';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { maskPhone, useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { useCan, useSession } from '../session';
import { toRow, type AnyTransaction } from './transactions-model';

type Kind = 'payin' | 'payout' | 'refund';

function fetchRecord(type: Kind, reference: string): Promise<AnyTransaction> {
  const path = { path: { reference } };
  if (type === 'payin') return unwrap(api.GET('/v1/payin/{reference}', { params: path }));
  if (type === 'payout') return unwrap(api.GET('/v1/payout/{reference}', { params: path }));
  return unwrap(api.GET('/v1/refunds/{reference}', { params: path }));
}

function RefundDialog(props: {
  reference: string;
  remaining: number;
  currency: string;
  onDone: () => void;
  /** Reads the payment again: another refund may have been made since the page loaded. */
  onStale: () => void;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [full, setFull] = useState(true);
  const refund = useAction(
    (body: { amount?: number; reason: string; externalReference: string }, key: string) =>
      unwrap(
        api.POST('/v1/payin/{reference}/refund', {
          params: { path: { reference: props.reference }, header: { 'X-Idempotency-Key': key } },
          body,
        }),
      ),
    () => {
      setOpen(false);
      props.onDone();
    },
  );
  const form = useFields({ amount: '', reason: '', externalReference: '' }, refund.error);
  const { reason, externalReference } = form.values;
  const value = full ? props.remaining : Number(form.values.amount);
  // More than remains is said next to the field as it is typed, not only by a greyed-out button.
  const tooMuch =
    !full && form.values.amount !== '' && value > props.remaining
      ? t('refund.tooMuch', { amount: f.amount(props.remaining, props.currency) })
      : undefined;
  // A refusal naming fields goes back to the form, where each error sits next to its field; the
  // amount's (what remains changed meanwhile) also reads the payment again.
  const fieldRefusal = Object.keys(form.errors).length > 0;
  const { onStale } = props;
  useEffect(() => {
    if (fieldRefusal) setConfirming(false);
    if (form.errors.amount) onStale();
  }, [fieldRefusal, form.errors.amount, onStale]);
  const openDialog = () => {
    props.onStale();
    refund.reset();
    setConfirming(false);
    setFull(true);
    form.reset({ amount: '', reason: '', externalReference: `rf-${crypto.randomUUID().slice(0, 8)}` });
    setOpen(true);
  };
  const send = () => refund.run({ ...(full ? {} : { amount: value }), reason, externalReference });

  return (
    <>
      <button type="button" className="button-primary" onClick={openDialog}>
        {t('refund.open')}
      </button>
      <Modal open={open} onClose={() => setOpen(false)} title={t('refund.title')}>
        <p>{t('refund.remaining', { amount: f.amount(props.remaining, props.currency) })}</p>
        {/* A refusal naming fields shows the form at once: the confirmation never shows it, even for a frame. */}
        {!confirming || fieldRefusal ? (
          <Form onSubmit={() => setConfirming(true)}>
            <fieldset>
              <legend>{t('refund.kind')}</legend>
              <label className="choice">
                <input type="radio" name="refund-kind" checked={full} onChange={() => setFull(true)} />
                {t('refund.full')}
              </label>
              <label className="choice">
                <input type="radio" name="refund-kind" checked={!full} onChange={() => setFull(false)} />
                {t('refund.partial')}
              </label>
            </fieldset>
            <ProblemAlert error={refund.error} shownFields={['amount', 'reason', 'externalReference']} />
            {!full && (
              <TextField
                label={t('fields.amountIn', { currency: props.currency })}
                type="number"
                inputMode="numeric"
                min={1}
                max={props.remaining}
                required
                {...form.bind('amount')}
                // A new amount answers the server's refusal of the last one.
                onChange={(v) => {
                  if (refund.error) refund.reset();
                  form.set('amount', v);
                }}
                error={form.errors.amount ?? tooMuch}
              />
            )}
            <TextField label={t('fields.reason')} required {...form.bind('reason')} />
            <TextField label={t('fields.externalReference')} required {...form.bind('externalReference')} />
            <div className="actions">
              <button type="button" onClick={() => setOpen(false)}>
                {t('common.cancel')}
              </button>
              <button
                type="submit"
                className="button-primary"
                disabled={!reason || !externalReference || !(value > 0 && value <= props.remaining)}
              >
                {t('refund.review')}
              </button>
            </div>
          </Form>
        ) : (
          <div>
            <p className="confirm-text">
              {t('refund.confirm', { amount: f.amount(value, props.currency), reference: props.reference })}
            </p>
            <ProblemAlert error={refund.error} />
            <div className="actions">
              <button type="button" onClick={() => setConfirming(false)}>
                {t('common.back')}
              </button>
              <button type="button" className="button-danger" onClick={send} disabled={refund.isPending}>
                {t('refund.send')}
              </button>
            </div>
          </div>
        )}
      </Modal>
    </>
  );
}

export function Transaction() {
  const { t } = useTranslation();
  const f = useFormat();
  const can = useCan();
  const session = useSession();
  const client = useQueryClient();
  const params = useParams();
  const type = (['payin', 'payout', 'refund'].includes(params.type ?? '') ? params.type : 'payin') as Kind;
  const reference = params.reference ?? '';
  const [cancelOpen, setCancelOpen] = useState(false);

  const record = useQuery({
    queryKey: ['transaction', session.mode, type, reference],
    queryFn: () => fetchRecord(type, reference),
  });
  // The timeline is read by the record's id (pr_…, rf_…), known once the record is.
  const recordId = record.data && 'id' in record.data ? String(record.data.id) : null;
  const timeline = useQuery({
    queryKey: ['timeline', session.mode, recordId],
    queryFn: () => dashboardApi.timeline(recordId!),
    enabled: recordId !== null,
  });
  const refresh = useCallback(() => {
    void client.invalidateQueries({ queryKey: ['transaction'] });
    void client.invalidateQueries({ queryKey: ['timeline'] });
    void client.invalidateQueries({ queryKey: ['transactions'] });
  }, [client]);

  const tx = record.data;
  const row = tx ? toRow(tx) : null;
  const refunded = tx && 'refundedAmount' in tx ? (tx.refundedAmount ?? 0) : 0;
  // What the API still takes: refunds in flight are committed too (failed or reversed ones are not).
  const committed =
    tx && 'refunds' in tx
      ? (tx.refunds ?? [])
          .filter((r) => !['failed', 'reversed'].includes(r.status))
          .reduce((sum, r) => sum + r.amount, 0)
      : refunded;
  const refundable =
    tx && row && row.type === 'payin' && ['completed', 'success'].includes(row.status)
      ? Math.max(0, row.amount - Math.max(committed, refunded))
      : 0;

  return (
    <>
      <p>
        <Link to="/transactions">{t('transaction.back')}</Link>
      </p>
      <h1>{t('transaction.title', { type: t(`types.${type}`), reference })}</h1>
      <ProblemAlert error={record.error} />
      {record.isPending && <p>{t('common.loading')}</p>}
      {tx && row && (
        <Section title={t('transaction.summary')}>
          <dl className="summary">
            <dt>{t('fields.status')}</dt>
            <dd>
              <span className={`status status-${row.status}`}>{t(`statuses.${row.status}`)}</span>
            </dd>
            <dt>{t('fields.amount')}</dt>
            <dd>{f.amount(row.amount, row.currency)}</dd>
            <dt>{t('fields.fee')}</dt>
            <dd>{f.amount(tx.fee, row.currency)}</dd>
            {row.type === 'payin' && (
              <>
                <dt>{t('transaction.refunded')}</dt>
                <dd>{f.amount(refunded, row.currency)}</dd>
              </>
            )}
            <dt>{t('fields.phone')}</dt>
            <dd>{maskPhone(row.phone)}</dd>
            <dt>{t('fields.operator')}</dt>
            <dd>{row.operator ?? '—'}</dd>
            <dt>{t('fields.createdAt')}</dt>
            <dd>{f.dateTime(row.createdAt)}</dd>
            {tx.failure && (
              <>
                <dt>{t('transaction.failure')}</dt>
                <dd>
                  <code>{tx.failure.code}</code> {tx.failure.message}
                </dd>
              </>
            )}
            {Object.entries(tx.metadata).map(([k, v]) => (
              <Fragment key={k}>
                <dt>
                  {t('transaction.metadata')} <code>{k}</code>
                </dt>
                <dd>{v}</dd>
              </Fragment>
            ))}
          </dl>
          <div className="actions">
            {can('refund') && refundable > 0 && (
              <RefundDialog
                reference={reference}
                remaining={refundable}
                currency={row.currency}
                onDone={refresh}
                onStale={refresh}
              />
            )}
            {can('payout') && row.type === 'payout' && row.status === 'pending' && (
              <button type="button" className="button-danger" onClick={() => setCancelOpen(true)}>
                {t('payouts.cancel')}
              </button>
            )}
          </div>
          <CancelPayoutDialog
            payout={cancelOpen ? row : null}
            onClose={() => setCancelOpen(false)}
            onCancelled={() => {
              setCancelOpen(false);
              refresh();
            }}
          />
        </Section>
      )}
      {tx && row && row.type === 'payin' && 'refunds' in tx && (tx.refunds ?? []).length > 0 && (
        <Section title={t('transaction.refunds')}>
          <ul className="refund-links">
            {(tx.refunds ?? []).map((r) => (
              <li key={r.reference}>
                <Link to={`/transactions/refund/${r.reference}`}>{r.reference}</Link> ·{' '}
                {f.amount(r.amount, r.currency)} ·{' '}
                <span className={`status status-${r.status}`}>{t(`statuses.${r.status}`)}</span>
              </li>
            ))}
          </ul>
        </Section>
      )}
      <Section title={t('transaction.timeline')}>
        <ProblemAlert error={timeline.error} />
        {timeline.isLoading && <p>{t('common.loading')}</p>}
        {timeline.data && (
          <ol className="timeline">
            {timelineEntries(timeline.data).map((e, i) => (
              <li key={`${e.at}-${i}`} className={`timeline-${e.kind}`}>
                <p>
                  <time dateTime={e.at}>{f.dateTime(e.at)}</time> ·{' '}
                  <span className="badge">{t(`timeline.${e.kind}`)}</span> <StoryLine entry={e} />
                </p>
              </li>
            ))}
          </ol>
        )}
        {can('note') && recordId && <NoteForm id={recordId} onAdded={refresh} />}
      </Section>
    </>
  );
}

/** A staff member's note, added to the timeline: it cannot be changed afterwards (the hint says so). */
function NoteForm(props: { id: string; onAdded: () => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const add = useAction(
    (v: { text: string }) => dashboardApi.addNote(props.id, v.text),
    () => {
      setText('');
      props.onAdded();
    },
  );
  const errors = fieldErrors(add.error);
  return (
    <Form onSubmit={() => add.run({ text })} submit={t('notes.add')} disabled={add.isPending} quiet>
      <Field label={t('notes.label')} hint={t('notes.hint')} error={errors.text}>
        {(p) => (
          <textarea {...p} rows={3} maxLength={1000} value={text} onChange={(e) => setText(e.target.value)} />
        )}
      </Field>
      <ProblemAlert error={add.error} shownFields={['text']} />
    </Form>
  );
}

type TimelineEntry =
  | { at: string; kind: 'status'; status: string; created: boolean }
  | { at: string; kind: 'event'; type: string }
  | {
      at: string;
      kind: 'webhook';
      url: string;
      attempt: number;
      succeeded: boolean;
      latencyMs: number | null;
      error: string | null;
    }
  | { at: string; kind: 'ledger'; movement: string; reason: string; amount: number; currency: string }
  | { at: string; kind: 'note'; author: string; text: string }
  | {
      at: string;
      kind: 'operator';
      provider: string | null;
      failure: string | null;
      reference: string | null;
    };

/** What the ledger moved, by its source reference's last part (`<id>:payin-credit`, …). */
const movements = [
  'payin-credit',
  'payin-fee',
  'payout-debit',
  'payout-fee',
  'payout-reversal',
  'refund-debit',
  'refund-fee',
  'refund-reversal',
];

/** One line of the payment's story, in the reader's language (never a raw status or field name). */
function StoryLine(props: { entry: TimelineEntry }) {
  const { t } = useTranslation();
  const f = useFormat();
  const e = props.entry;
  switch (e.kind) {
    case 'status':
      return (
        <strong>
          {t(e.created ? 'timeline.story.created' : 'timeline.story.status', {
            status: t(`statuses.${e.status}`, { defaultValue: e.status }),
          })}
        </strong>
      );
    case 'event':
      return <>{t('timeline.story.event', { type: e.type })}</>;
    case 'webhook':
      return e.succeeded ? (
        <>
          {t('timeline.story.delivered', {
            endpoint: e.url,
            ms: e.latencyMs === null ? '—' : f.number(e.latencyMs),
            attempt: e.attempt,
          })}
        </>
      ) : (
        <>
          {t('timeline.story.notDelivered', {
            endpoint: e.url,
            attempt: e.attempt,
            error: e.error ?? '—',
          })}
        </>
      );
    case 'ledger':
      return (
        <>
          {movements.includes(e.movement)
            ? t(`timeline.story.ledger.${e.movement}`, { amount: f.amount(e.amount, e.currency) })
            : `${f.amount(e.amount, e.currency)} · ${e.reason}`}
        </>
      );
    case 'note':
      return (
        <>
          {t('timeline.story.note', { author: e.author })} <q className="note-text">{e.text}</q>
        </>
      );
    case 'operator':
      return (
        <>
          {[
            e.provider && t('timeline.story.operator', { provider: e.provider }),
            e.reference && t('timeline.story.operatorReference', { reference: e.reference }),
            e.failure && t('timeline.story.failure', { failure: e.failure }),
          ]
            .filter(Boolean)
            .join(' · ')}
        </>
      );
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The server's timeline (statuses, events, webhook attempts, ledger, operator) as one story, oldest first. */
function timelineEntries(t: Timeline): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    ...t.statuses.map((s): TimelineEntry => ({
      at: s.at,
      kind: 'status',
      status: s.status,
      created: s.source === 'created',
    })),
    ...t.events.map((e): TimelineEntry => ({ at: e.createdAt, kind: 'event', type: e.type })),
    ...t.webhookAttempts.map((w): TimelineEntry => ({
      at: w.at,
      kind: 'webhook',
      url: w.url,
      attempt: w.attempt,
      succeeded: w.succeeded,
      latencyMs: w.latencyMs,
      error: w.error,
    })),
    ...t.ledger.map((l): TimelineEntry => ({
      at: l.at,
      kind: 'ledger',
      movement: l.sourceRef.split(':').at(-1) ?? '',
      reason: l.reason,
      amount: l.amount,
      currency: l.currency,
    })),
    ...t.notes.map((n): TimelineEntry => ({ at: n.at, kind: 'note', author: n.author.name, text: n.text })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  // The operator's answer has no time of its own: it follows what it answered.
  const op = (t.operator ?? {}) as Record<string, unknown>;
  const failure = op.failure as { code?: unknown; message?: unknown } | null | undefined;
  const operator = {
    provider: text(op.provider),
    reference: text(op.operatorReference),
    failure: failure ? [text(failure.code), text(failure.message)].filter(Boolean).join(': ') || null : null,
  };
  if (operator.provider || operator.reference || operator.failure)
    entries.push({ at: entries.at(-1)?.at ?? '', kind: 'operator', ...operator });
  return entries;
}
