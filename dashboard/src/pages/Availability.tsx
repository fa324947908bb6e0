// Operator availability (issue 44 §2): each operator's state per country for payins, payouts and
// refunds, and each route's recent success rate and answer time, as GET /v1/providers answers them
// in the session's mode (docs/provider-health.md), read again every 30 s. The API's states read as
// the words merchants know from pawaPay's page: up, degraded, down
// (docs/decisions/dashboard/operator-availability.md).
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api/dashboard';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useProviders } from '../hooks/useProviders';
import { useSession } from '../session';

type Provider = Schemas['ProviderList']['providers'][number];
type Health = NonNullable<Provider['health']>['payin'];
type Route = Health['routes'][number];
type Look = 'up' | 'degraded' | 'down';

const operations = ['payin', 'payout', 'refund'] as const;
const looks: Record<Health['state'], Look> = { operational: 'up', delayed: 'degraded', closed: 'down' };

function StateBadge(props: { state: Health['state'] }) {
  const { t } = useTranslation();
  const look = looks[props.state];
  return <span className={`status status-${look}`}>{t(`availability.states.${look}`)}</span>;
}

/** The route's connector by its name, and what sets it apart now (asked last, reported down). */
function RouteName(props: { route: Route }) {
  const { t } = useTranslation();
  const r = props.route;
  const published = r.published && r.published !== 'operational' ? looks[r.published] : null;
  const notes = [
    r.eliminated && t('availability.eliminated'),
    published && t(`availability.published.${published}`),
  ].filter(Boolean);
  return (
    <>
      {t(`availability.connectors.${r.connector}`, { defaultValue: r.connector })}
      {notes.length > 0 && <small className="route-note">{notes.join(' · ')}</small>}
    </>
  );
}

/** One operator in one country: a row group per operation, a row per route. */
function OperatorTable(props: { provider: Provider }) {
  const { t } = useTranslation();
  const f = useFormat();
  const p = props.provider;
  return (
    <Section title={p.displayName} level={3}>
      <Table
        caption={t('availability.caption', { operator: p.displayName, country: t(`countries.${p.country}`) })}
        className="availability-table"
        headers={[
          t('availability.operation'),
          t('availability.state'),
          t('availability.since'),
          t('availability.route'),
          t('availability.rate'),
          t('availability.answer'),
        ]}
        rowGroups
      >
        {operations.map((operation) => {
          const health = p.health?.[operation];
          const routes: (Route | null)[] = health?.routes.length ? health.routes : [null];
          const span = routes.length;
          return (
            <tbody key={operation}>
              {routes.map((r, i) => (
                <tr key={r?.connector ?? 'none'}>
                  {i === 0 && (
                    <>
                      <th scope="rowgroup" rowSpan={span}>
                        {t(`availability.operations.${operation}`)}
                      </th>
                      <td rowSpan={span}>{health ? <StateBadge state={health.state} /> : '—'}</td>
                      <td rowSpan={span}>{f.dateTime(health?.since)}</td>
                    </>
                  )}
                  <td>{r ? <RouteName route={r} /> : t('availability.noRoute')}</td>
                  <td>{r?.successRate == null ? '—' : f.percent(r.successRate)}</td>
                  <td>
                    {r?.answerSeconds == null
                      ? '—'
                      : t('availability.seconds', { value: f.number(r.answerSeconds) })}
                  </td>
                </tr>
              ))}
            </tbody>
          );
        })}
      </Table>
    </Section>
  );
}

/** What is not up now, in a sentence a merchant reads before the tables. */
function RightNow(props: { providers: Provider[] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const issues = props.providers.flatMap((p) =>
    operations
      .map((operation) => ({ p, operation, health: p.health?.[operation] }))
      .filter(({ health }) => health && health.state !== 'operational'),
  );
  if (issues.length === 0) return <p>{t('availability.allUp')}</p>;
  return (
    <>
      <p>{t('availability.notUp')}</p>
      <ul>
        {issues.map(({ p, operation, health }) => (
          <li key={`${p.name}-${operation}`}>
            {t('availability.issue', {
              operator: p.displayName,
              country: t(`countries.${p.country}`),
              operation: t(`availability.operations.${operation}`),
              state: t(`availability.states.${looks[health!.state]}`),
            })}
            {health?.since && ` ${t('availability.sinceAt', { at: f.dateTime(health.since) })}`}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Availability() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const providers = useProviders();
  const list = providers.data?.providers ?? [];
  const countries = [...new Set(list.map((p) => p.country))];
  const meanings = ['up', 'degraded', 'down', 'since', 'route', 'rate', 'answer'] as const;
  const terms: Record<(typeof meanings)[number], string> = {
    up: t('availability.states.up'),
    degraded: t('availability.states.degraded'),
    down: t('availability.states.down'),
    since: t('availability.since'),
    route: t('availability.route'),
    rate: t('availability.rate'),
    answer: t('availability.answer'),
  };

  return (
    <div className="touch-targets">
      <h1>{t('availability.title')}</h1>
      <p>{t('availability.intro')}</p>
      {session.mode === 'test' && <p className="alert alert-warn">{t('availability.testMode')}</p>}
      {providers.isPending && <p>{t('common.loading')}</p>}
      <ProblemAlert error={providers.error} />
      {providers.data && (
        <>
          <p className="hint">
            {t('availability.updated', { time: f.time(new Date(providers.dataUpdatedAt).toISOString()) })}
          </p>
          <Section title={t('availability.now')}>
            <RightNow providers={list} />
          </Section>
          {countries.map((country) => (
            <Section key={country} title={t(`countries.${country}`)}>
              {list
                .filter((p) => p.country === country)
                .map((p) => (
                  <OperatorTable key={p.name} provider={p} />
                ))}
            </Section>
          ))}
        </>
      )}
      <Section title={t('availability.meaning')}>
        <dl className="meanings">
          {meanings.map((m) => (
            <div key={m}>
              <dt>{terms[m]}</dt>
              <dd>{t(`availability.meanings.${m}`)}</dd>
            </div>
          ))}
        </dl>
      </Section>
    </div>
  );
}
