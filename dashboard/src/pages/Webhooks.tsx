import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api/dashboard';
import { api, unwrap } from '../api/http';
import { useAction, useCursorQuery } from '../actions';
import { CopyableCode } from '../components/CopyButton';
import { Check, SelectField, TextField } from '../components/Field';
import { Form } from '../components/Form';
import { SecretModal } from '../components/Modal';
import { Pager } from '../components/Pager';
import { PeriodFields } from '../components/PeriodFields';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useFields } from '../hooks/useFields';
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

const blank = { url: '', description: '' };

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
        <fieldset>
          <legend>{t('webhooks.eventTypes')}</legend>
          <p className="hint">{t('webhooks.allTypes')}</p>
          <div className="checks">
            {eventTypes.map((type) => (
              <Check
                key={type}
                checked={chosen.includes(type)}
                onChange={(on) => setChosen((c) => (on ? [...c, type] : c.filter((x) => x !== type)))}
              >
                <code>{type}</code>
              </Check>
            ))}
          </div>
        </fieldset>
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

function Endpoint(props: { id: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
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
  const endpoints = list.data?.data ?? [];
  const current = selected ?? endpoints[0]?.id ?? null;

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
      {endpoints.length === 0 && list.isSuccess && <p>{t('webhooks.none')}</p>}
      {current && <Endpoint key={current} id={current} />}
      <AddEndpoint onAdded={() => void client.invalidateQueries({ queryKey: ['webhooks'] })} />
    </Section>
  );
}
