import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api/dashboard';
import { api, fieldErrors, unwrap } from '../api/http';
import { useAction, useCursorPages } from '../actions';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { Modal } from '../components/Modal';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useSession } from '../session';
import { dayStart } from './transactions-model';

type EventType = NonNullable<Schemas['CreateWebhookRequest']['eventTypes']>[number];
const eventTypes: EventType[] = [
  'payin.completed',
  'payin.failed',
  'payin.expired',
  'payin.corrected',
  'payout.updated',
  'payout.completed',
  'refund.processing',
  'refund.completed',
  'refund.failed',
  'payout.batch.completed',
  'statement.ready',
];

function AddEndpoint(props: { onAdded: () => void }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<EventType[]>([]);
  const add = useAction(
    (body: Schemas['CreateWebhookRequest'], key: string) =>
      unwrap(api.POST('/v1/webhooks', { params: { header: { 'X-Idempotency-Key': key } }, body })),
    () => {
      setUrl('');
      setDescription('');
      setChosen([]);
      props.onAdded();
    },
  );
  const errors = fieldErrors(add.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.run({
      url,
      ...(description ? { description } : {}),
      ...(chosen.length ? { eventTypes: chosen } : {}),
    });
  };
  return (
    <section aria-labelledby="add-endpoint">
      <h3 id="add-endpoint">{t('webhooks.add')}</h3>
      <form onSubmit={submit} noValidate>
        <Field label={t('webhooks.url')} error={errors.url}>
          {(p) => <input {...p} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />}
        </Field>
        <Field label={t('webhooks.description')} error={errors.description}>
          {(p) => <input {...p} value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <fieldset>
          <legend>{t('webhooks.eventTypes')}</legend>
          <p className="hint">{t('webhooks.allTypes')}</p>
          <div className="checks">
            {eventTypes.map((type) => (
              <label key={type} className="choice">
                <input
                  type="checkbox"
                  checked={chosen.includes(type)}
                  onChange={(e) =>
                    setChosen((c) => (e.target.checked ? [...c, type] : c.filter((x) => x !== type)))
                  }
                />
                <code>{type}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <ProblemAlert error={add.error} shownFields={['url', 'description']} />
        <div className="actions">
          <button type="submit" className="button-primary" disabled={!url || add.isPending}>
            {t('webhooks.addSubmit')}
          </button>
        </div>
      </form>
      <Modal open={add.data !== undefined} onClose={() => add.reset()} title={t('webhooks.secretTitle')}>
        {add.data && (
          <>
            <p className="alert alert-warn">{t('webhooks.secretOnce')}</p>
            <p>
              <code className="secret">{add.data.secret}</code>{' '}
              <CopyButton value={add.data.secret} label={t('webhooks.copySecret')} />
            </p>
          </>
        )}
      </Modal>
    </section>
  );
}

function Endpoint(props: { id: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const pages = useCursorPages();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [onlyFailed, setOnlyFailed] = useState(true);
  const [dryRun, setDryRun] = useState(true);
  const id = props.id;
  const endpoint = useQuery({
    queryKey: ['webhook', session.mode, id],
    queryFn: () => unwrap(api.GET('/v1/webhooks/{id}', { params: { path: { id } } })),
  });
  const deliveries = useQuery({
    queryKey: ['deliveries', session.mode, id, pages.cursor],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/v1/webhooks/{id}/deliveries', {
          params: { path: { id }, query: { cursor: pages.cursor, limit: 25 } },
        }),
      ),
  });
  const test = useAction(
    (_: void, key: string) =>
      unwrap(
        api.POST('/v1/webhooks/{id}/test', {
          params: { path: { id }, header: { 'X-Idempotency-Key': key } },
          body: {},
        }),
      ),
    () => void deliveries.refetch(),
  );
  const replay = useAction((body: Schemas['ReplayRequest'], key: string) =>
    unwrap(
      api.POST('/v1/webhooks/{id}/replay', {
        params: { path: { id }, header: { 'X-Idempotency-Key': key } },
        body,
      }),
    ),
  );
  const replayErrors = fieldErrors(replay.error);
  const health = endpoint.data?.health;

  return (
    <section aria-labelledby={`ep-${id}`} className="endpoint">
      <h3 id={`ep-${id}`}>{endpoint.data?.url ?? id}</h3>
      <ProblemAlert error={endpoint.error} />
      {endpoint.data && health && (
        <dl className="summary">
          <dt>{t('fields.status')}</dt>
          <dd>
            {t(`webhooks.status.${endpoint.data.status}`)}
            {endpoint.data.disabledReason ? ` (${endpoint.data.disabledReason})` : ''}
          </dd>
          <dt>{t('webhooks.successRate')}</dt>
          <dd>{health.successRate === null ? '—' : f.percent(health.successRate)}</dd>
          <dt>{t('webhooks.attempts')}</dt>
          <dd>
            {f.number(health.attempts)} ({t('webhooks.since', { at: f.dateTime(health.since) })})
          </dd>
          <dt>{t('webhooks.failuresInRow')}</dt>
          <dd>{f.number(health.consecutiveFailures)}</dd>
          <dt>{t('webhooks.latency')}</dt>
          <dd>
            p50 {health.latencyP50Ms === null ? '—' : `${f.number(health.latencyP50Ms)} ms`} · p99{' '}
            {health.latencyP99Ms === null ? '—' : `${f.number(health.latencyP99Ms)} ms`}
          </dd>
          {health.lastError && (
            <>
              <dt>{t('webhooks.lastError')}</dt>
              <dd>
                {f.dateTime(health.lastError.at)} · {health.lastError.statusCode ?? '—'}{' '}
                {health.lastError.error ?? ''}
              </dd>
            </>
          )}
        </dl>
      )}
      <div className="actions">
        <button type="button" onClick={() => test.run()} disabled={test.isPending}>
          {t('webhooks.test')}
        </button>
      </div>
      <ProblemAlert error={test.error} />
      {test.data && (
        <p role="status" className={test.data.succeeded ? 'alert alert-ok' : 'alert alert-error'}>
          {test.data.succeeded
            ? t('webhooks.testOk', {
                status: test.data.statusCode ?? '—',
                ms: f.number(test.data.durationMs),
              })
            : t('webhooks.testFailed', { status: test.data.statusCode ?? '—', error: test.data.error ?? '' })}
        </p>
      )}
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption>{t('webhooks.deliveries')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('fields.date')}</th>
              <th scope="col">{t('webhooks.event')}</th>
              <th scope="col">{t('webhooks.attempt')}</th>
              <th scope="col">{t('webhooks.httpStatus')}</th>
              <th scope="col">{t('webhooks.latency')}</th>
              <th scope="col">{t('webhooks.result')}</th>
            </tr>
          </thead>
          <tbody>
            {(deliveries.data?.data ?? []).map((d) => (
              <tr key={`${d.deliveryId}-${d.attempt}`}>
                <td>{f.dateTime(d.attemptedAt)}</td>
                <td>
                  <code>{d.eventType}</code> <small>{d.eventId}</small>
                </td>
                <td>
                  {f.number(d.attempt)} {d.trigger === 'redelivery' ? `(${t('webhooks.redelivery')})` : ''}
                </td>
                <td>{d.statusCode ?? '—'}</td>
                <td>{f.number(d.latencyMs)} ms</td>
                <td>{d.succeeded ? t('webhooks.delivered') : (d.error ?? t('webhooks.notDelivered'))}</td>
              </tr>
            ))}
            {deliveries.data?.data.length === 0 && (
              <tr>
                <td colSpan={6} className="empty">
                  {t('common.empty')}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager
        label={t('webhooks.deliveryPages')}
        page={pages.page}
        hasPrevious={pages.hasPrevious}
        nextCursor={deliveries.data?.nextCursor}
        onPrevious={pages.previous}
        onNext={pages.next}
      />
      <form
        className="form-grid"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          replay.run({ from: dayStart(from) ?? '', to: dayStart(to, 1) ?? '', onlyFailed, dryRun });
        }}
      >
        <h4 className="full">{t('webhooks.replay')}</h4>
        <Field label={t('fields.from')} error={replayErrors.from}>
          {(p) => (
            <input {...p} type="date" required value={from} onChange={(e) => setFrom(e.target.value)} />
          )}
        </Field>
        <Field label={t('fields.toInclusive')} error={replayErrors.to}>
          {(p) => <input {...p} type="date" required value={to} onChange={(e) => setTo(e.target.value)} />}
        </Field>
        <label className="choice">
          <input type="checkbox" checked={onlyFailed} onChange={(e) => setOnlyFailed(e.target.checked)} />
          {t('webhooks.onlyFailed')}
        </label>
        <label className="choice">
          <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} />
          {t('webhooks.dryRun')}
        </label>
        <div className="actions">
          <button type="submit" className="button-primary" disabled={!from || !to || replay.isPending}>
            {t('webhooks.replaySubmit')}
          </button>
        </div>
      </form>
      <ProblemAlert error={replay.error} shownFields={['from', 'to']} />
      {replay.data && (
        <p role="status" className="alert alert-ok">
          {replay.data.dryRun
            ? t('webhooks.replayDry', { count: replay.data.count, formatted: f.number(replay.data.count) })
            : t('webhooks.replayed', { count: replay.data.count, formatted: f.number(replay.data.count) })}
        </p>
      )}
    </section>
  );
}

export function Webhooks() {
  const { t } = useTranslation();
  const session = useSession();
  const client = useQueryClient();
  const list = useQuery({
    queryKey: ['webhooks', session.mode],
    queryFn: () => unwrap(api.GET('/v1/webhooks')),
  });
  const [selected, setSelected] = useState<string | null>(null);
  const endpoints = list.data?.data ?? [];
  const current = selected ?? endpoints[0]?.id ?? null;

  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">{t('developers.webhooks')}</h2>
      <ProblemAlert error={list.error} />
      {endpoints.length > 0 && (
        <div className="field inline">
          <label htmlFor="endpoint-pick">{t('webhooks.endpoint')}</label>
          <select id="endpoint-pick" value={current ?? ''} onChange={(e) => setSelected(e.target.value)}>
            {endpoints.map((ep) => (
              <option key={ep.id} value={ep.id}>
                {ep.url} ({t(`webhooks.status.${ep.status}`)})
              </option>
            ))}
          </select>
        </div>
      )}
      {endpoints.length === 0 && list.isSuccess && <p>{t('webhooks.none')}</p>}
      {current && <Endpoint key={current} id={current} />}
      <AddEndpoint onAdded={() => void client.invalidateQueries({ queryKey: ['webhooks'] })} />
    </section>
  );
}
