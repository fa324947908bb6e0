import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useAction, useCursorQuery } from '../actions';
import { CopyableCode } from '../components/CopyButton';
import { Check, SelectField, TextField } from '../components/Field';
import { Form } from '../components/Form';
import { ConfirmModal, Modal, SecretModal } from '../components/Modal';
import { Pager } from '../components/Pager';
import { PeriodFields } from '../components/PeriodFields';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { useCan, useSession } from '../session';
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
  'payment_link.paid',
];

const blank = { url: '', description: '' };

/** The event types an endpoint subscribes to: none ticked is every type. */
function EventTypeChecks(props: { chosen: EventType[]; onChange: (next: EventType[]) => void }) {
  const { t } = useTranslation();
  const { chosen } = props;
  return (
    <fieldset>
      <legend>{t('webhooks.eventTypes')}</legend>
      <p className="hint">{t('webhooks.allTypes')}</p>
      <div className="checks">
        {eventTypes.map((type) => (
          <Check
            key={type}
            checked={chosen.includes(type)}
            onChange={(on) => props.onChange(on ? [...chosen, type] : chosen.filter((x) => x !== type))}
          >
            <code>{type}</code>
          </Check>
        ))}
      </div>
    </fieldset>
  );
}

// Why an endpoint is disabled, as the server words it (src/api/routes/webhooks.ts, the dispatcher's
// park, src/webhooks/outbox.ts), said in the page's language; another reason shows as written.
const reasons: Record<string, string> = {
  'disabled by the merchant': 'webhooks.reasons.merchant',
  'the endpoint answered 410 Gone': 'webhooks.reasons.gone',
  'deliveries failed for three days': 'webhooks.reasons.spent',
};

type EndpointRecord = Schemas['WebhookEndpoint'];

/** Its URL, description and event types, changed in a dialog (PATCH /v1/webhooks/{id}). */
function EditEndpoint(props: { endpoint: EndpointRecord; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const { endpoint } = props;
  const [chosen, setChosen] = useState<EventType[]>(endpoint.eventTypes);
  const save = useAction(
    (body: Schemas['UpdateWebhookRequest'], _key: string) =>
      unwrap(api.PATCH('/v1/webhooks/{id}', { params: { path: { id: endpoint.id } }, body })),
    () => {
      void client.invalidateQueries({ queryKey: ['webhooks'] });
      void client.invalidateQueries({ queryKey: ['webhook'] });
      props.onClose();
    },
  );
  const form = useFields({ url: endpoint.url, description: endpoint.description ?? '' }, save.error);
  const { url, description } = form.values;
  return (
    <Modal open={props.open} onClose={props.onClose} title={t('webhooks.editTitle')}>
      <Form
        onSubmit={() => save.run({ url, description: description || null, eventTypes: chosen })}
        submit={t('webhooks.save')}
        disabled={!url || save.isPending}
      >
        <TextField label={t('webhooks.url')} type="url" required {...form.bind('url')} />
        <TextField label={t('webhooks.description')} {...form.bind('description')} />
        <EventTypeChecks chosen={chosen} onChange={setChosen} />
        <ProblemAlert error={save.error} shownFields={['url', 'description']} />
      </Form>
    </Modal>
  );
}

function AddEndpoint(props: { onAdded: () => void }) {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState<EventType[]>([]);
  const add = useAction(
    (body: Schemas['CreateWebhookRequest'], key: string) =>
      unwrap(api.POST('/v1/webhooks', { params: { header: { 'X-Idempotency-Key': key } }, body })),
    () => {
      form.reset(blank);
      setChosen([]);
      props.onAdded();
    },
  );
  const form = useFields(blank, add.error);
  const { url, description } = form.values;
  const submit = () =>
    add.run({
      url,
      ...(description ? { description } : {}),
      ...(chosen.length ? { eventTypes: chosen } : {}),
    });
  return (
    <Section title={t('webhooks.add')} level={3}>
      <Form onSubmit={submit} submit={t('webhooks.addSubmit')} disabled={!url || add.isPending}>
        <TextField label={t('webhooks.url')} type="url" required {...form.bind('url')} />
        <TextField label={t('webhooks.description')} {...form.bind('description')} />
        <EventTypeChecks chosen={chosen} onChange={setChosen} />
        <ProblemAlert error={add.error} shownFields={['url', 'description']} />
      </Form>
      <SecretModal
        secret={add.data}
        title={t('webhooks.secretTitle')}
        warning={t('webhooks.secretOnce')}
        onClose={() => add.reset()}
      >
        {(endpoint) => (
          <p>
            <CopyableCode value={endpoint.secret} label={t('webhooks.copySecret')} secret />
          </p>
        )}
      </SecretModal>
    </Section>
  );
}

/** Edit, disable or enable, delete: for the roles the route table lets manage endpoints. */
function EndpointActions(props: { endpoint: EndpointRecord; onDeleted: (url: string) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const { endpoint } = props;
  const id = endpoint.id;
  const [asking, setAsking] = useState<'edit' | 'disable' | 'delete' | null>(null);
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['webhooks'] });
    void client.invalidateQueries({ queryKey: ['webhook'] });
  };
  const disable = useAction(
    (_: void, key: string) =>
      unwrap(
        api.POST('/v1/webhooks/{id}/disable', {
          params: { path: { id }, header: { 'X-Idempotency-Key': key } },
        }),
      ),
    () => {
      setAsking(null);
      refresh();
    },
  );
  const enable = useAction(
    (_: void, key: string) =>
      unwrap(
        api.POST('/v1/webhooks/{id}/enable', {
          params: { path: { id }, header: { 'X-Idempotency-Key': key } },
        }),
      ),
    refresh,
  );
  const remove = useAction(
    (_: void, _key: string) => unwrap(api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } })),
    () => {
      setAsking(null);
      props.onDeleted(endpoint.url);
    },
  );
  const enabled = endpoint.status === 'enabled';
  return (
    <>
      <button type="button" onClick={() => setAsking('edit')}>
        {t('webhooks.edit')}
      </button>
      {enabled ? (
        <button type="button" onClick={() => setAsking('disable')}>
          {t('webhooks.disable')}
        </button>
      ) : (
        <button type="button" onClick={() => enable.run()} disabled={enable.isPending}>
          {t('webhooks.enable')}
        </button>
      )}
      <button type="button" className="button-danger" onClick={() => setAsking('delete')}>
        {t('webhooks.delete')}
      </button>
      <ProblemAlert error={enable.error} />
      <EditEndpoint
        key={`${endpoint.id}-${endpoint.updatedAt}-${asking === 'edit'}`}
        endpoint={endpoint}
        open={asking === 'edit'}
        onClose={() => setAsking(null)}
      />
      <ConfirmModal
        open={asking === 'disable'}
        title={t('webhooks.disableTitle')}
        confirmLabel={t('webhooks.disableSubmit')}
        action={disable}
        onConfirm={() => disable.run()}
        onClose={() => {
          disable.reset();
          setAsking(null);
        }}
      >
        <p>{t('webhooks.disableConfirm', { url: endpoint.url })}</p>
      </ConfirmModal>
      <ConfirmModal
        open={asking === 'delete'}
        title={t('webhooks.deleteTitle')}
        confirmLabel={t('webhooks.deleteSubmit')}
        danger
        action={remove}
        onConfirm={() => remove.run()}
        onClose={() => {
          remove.reset();
          setAsking(null);
        }}
      >
        <p>{t('webhooks.deleteConfirm', { url: endpoint.url })}</p>
      </ConfirmModal>
    </>
  );
}

function Endpoint(props: { id: string; onDeleted: (url: string) => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const can = useCan();
  const [onlyFailed, setOnlyFailed] = useState(true);
  const [dryRun, setDryRun] = useState(true);
  const id = props.id;
  const endpoint = useQuery({
    queryKey: ['webhook', session.mode, id],
    queryFn: () => unwrap(api.GET('/v1/webhooks/{id}', { params: { path: { id } } })),
  });
  const { query: deliveries, pages } = useCursorQuery(['deliveries', session.mode, id], (cursor) =>
    unwrap(
      api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query: { cursor, limit: 25 } } }),
    ),
  );
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
  const period = useFields({ from: '', to: '' }, replay.error);
  const { from, to } = period.values;
  const health = endpoint.data?.health;

  return (
    <Section title={endpoint.data?.url ?? id} level={3} className="endpoint">
      <ProblemAlert error={endpoint.error} />
      {endpoint.data && health && (
        <dl className="summary">
          <dt>{t('fields.status')}</dt>
          <dd>
            {t(`webhooks.status.${endpoint.data.status}`)}
            {endpoint.data.disabledReason
              ? ` (${reasons[endpoint.data.disabledReason] ? t(reasons[endpoint.data.disabledReason]!) : endpoint.data.disabledReason})`
              : ''}
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
        {endpoint.data && can('developer') && (
          <EndpointActions endpoint={endpoint.data} onDeleted={props.onDeleted} />
        )}
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
      <Table
        caption={t('webhooks.deliveries')}
        headers={[
          t('fields.date'),
          t('webhooks.event'),
          t('webhooks.attempt'),
          t('webhooks.httpStatus'),
          t('webhooks.latency'),
          t('webhooks.result'),
        ]}
        empty={deliveries.data?.data.length === 0 && t('common.empty')}
      >
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
      </Table>
      <Pager label={t('webhooks.deliveryPages')} pages={pages} nextCursor={deliveries.data?.nextCursor} />
      <Form
        className="form-grid"
        onSubmit={() =>
          replay.run({ from: dayStart(from) ?? '', to: dayStart(to, 1) ?? '', onlyFailed, dryRun })
        }
        submit={t('webhooks.replaySubmit')}
        disabled={!from || !to || replay.isPending}
      >
        <h4 className="full">{t('webhooks.replay')}</h4>
        <PeriodFields from={period.bind('from')} to={period.bind('to')} />
        <Check checked={onlyFailed} onChange={setOnlyFailed}>
          {t('webhooks.onlyFailed')}
        </Check>
        <Check checked={dryRun} onChange={setDryRun}>
          {t('webhooks.dryRun')}
        </Check>
      </Form>
      <ProblemAlert error={replay.error} shownFields={['from', 'to']} />
      {replay.data && (
        <p role="status" className="alert alert-ok">
          {replay.data.dryRun
            ? t('webhooks.replayDry', { count: replay.data.count, formatted: f.number(replay.data.count) })
            : t('webhooks.replayed', { count: replay.data.count, formatted: f.number(replay.data.count) })}
        </p>
      )}
    </Section>
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
  const [deleted, setDeleted] = useState<string | null>(null);
  const endpoints = list.data?.data ?? [];
  const current =
    (selected && endpoints.some((ep) => ep.id === selected) ? selected : null) ?? endpoints[0]?.id ?? null;
  const onDeleted = (url: string) => {
    setSelected(null);
    setDeleted(url);
    void client.invalidateQueries({ queryKey: ['webhooks'] });
  };

  return (
    <Section title={t('developers.webhooks')}>
      <ProblemAlert error={list.error} />
      {endpoints.length > 0 && (
        <SelectField
          inline
          label={t('webhooks.endpoint')}
          value={current ?? ''}
          onChange={setSelected}
          choices={endpoints.map((ep) => ({
            value: ep.id,
            label: `${ep.url} (${t(`webhooks.status.${ep.status}`)})`,
          }))}
        />
      )}
      {deleted && (
        <p role="status" className="alert alert-ok">
          {t('webhooks.deleted', { url: deleted })}
        </p>
      )}
      {endpoints.length === 0 && list.isSuccess && <p>{t('webhooks.none')}</p>}
      {current && <Endpoint key={current} id={current} onDeleted={onDeleted} />}
      <AddEndpoint onAdded={() => void client.invalidateQueries({ queryKey: ['webhooks'] })} />
    </Section>
  );
}
