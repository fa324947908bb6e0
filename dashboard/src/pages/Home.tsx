import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type Home as HomeFigures, type PeriodFigures } from '../api/dashboard';
import { SelectField, asChoices } from '../components/Field';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import type { ChartDay } from '../components/chart-day';
import { useFormat } from '../format';
import { useProviders } from '../hooks/useProviders';
import { useSession } from '../session';

// The chart library is the largest part of the page: loaded with Home's chart only.
const VolumeChart = lazy(() => import('../components/VolumeChart'));

const kinds = [
  ['payin', 'payins'],
  ['payout', 'payouts'],
  ['refund', 'refunds'],
] as const;

/** One point per day and currency, as the chart draws it (the server gives days with their currencies). */
const chartDays = (home: HomeFigures): ChartDay[] => {
  // A day without volume in a currency lists none: it is drawn as zero, so every line spans 30 days.
  const currencies = [...new Set(home.series.flatMap((d) => d.volumes.map((v) => v.currency)))];
  return home.series.flatMap((d) =>
    currencies.map((currency) => {
      const v = d.volumes.find((x) => x.currency === currency);
      return {
        date: d.day,
        currency,
        payin: v?.payins ?? 0,
        payout: v?.payouts ?? 0,
        refund: v?.refunds ?? 0,
      };
    }),
  );
};

function VolumeList(props: { volumes: PeriodFigures; title: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  // Counts are of what was created; amounts of what succeeded, per currency.
  const rows = kinds.flatMap(([type, plural]) =>
    props.volumes.volumes
      .filter((v) => v[plural] > 0)
      .map((v) => ({ type, currency: v.currency, amount: v[plural], count: props.volumes[plural] })),
  );
  return (
    <Section title={props.title} level={3} className="tile">
      {rows.length === 0 ? (
        <p>{t('home.noVolume')}</p>
      ) : (
        <dl>
          {rows.map((v) => (
            <div key={`${v.type}-${v.currency}`}>
              <dt>{t(`types.${v.type}`)}</dt>
              <dd>
                {f.amount(v.amount, v.currency)} ·{' '}
                {t('home.count', { count: v.count, formatted: f.number(v.count) })}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </Section>
  );
}

/**
 * Every route to every operator, for payins and payouts, as the service measures it (issue 43):
 * its success rate, answer time, and whether it is asked last after failures or closed by its
 * provider. Asked again every 30 s.
 */
function OperatorRoutes() {
  const { t } = useTranslation();
  const f = useFormat();
  const providers = useProviders();
  const rows = (providers.data?.providers ?? []).flatMap((p) =>
    (['payin', 'payout'] as const).flatMap((operation) =>
      (p.health?.[operation].routes ?? []).map((r) => ({
        name: p.name,
        provider: `${p.displayName} · ${t(`countries.${p.country}`)}`,
        operation,
        ...r,
      })),
    ),
  );
  return (
    <Section title={t('home.routes')}>
      <ProblemAlert error={providers.error} />
      <Table
        caption={t('home.routesCaption')}
        headers={[
          t('fields.operator'),
          t('home.route'),
          t('home.routeState'),
          t('home.rate'),
          t('home.answerTime'),
        ]}
        empty={providers.isSuccess && rows.length === 0 && t('common.empty')}
      >
        {rows.map((r) => (
          <tr key={`${r.name}-${r.operation}-${r.connector}`}>
            <th scope="row">
              {r.provider} · {t(`types.${r.operation}`)}
            </th>
            <td>{r.connector}</td>
            <td>{t(`home.routeStates.${r.eliminated ? 'eliminated' : (r.published ?? 'operational')}`)}</td>
            <td>{r.successRate === null ? '—' : f.percent(r.successRate)}</td>
            <td>
              {r.answerSeconds === null ? '—' : t('home.seconds', { value: f.number(r.answerSeconds) })}
            </td>
          </tr>
        ))}
      </Table>
    </Section>
  );
}

export function Home() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const home = useQuery({
    queryKey: ['home', session.mode],
    queryFn: dashboardApi.home,
    // A first visit may find the figures still being folded: asked again until they are.
    refetchInterval: (q) => (q.state.data?.ready === false ? 2000 : false),
  });
  const allDays = home.data ? chartDays(home.data) : [];
  const currencies = [...new Set(allDays.map((d) => d.currency))];
  const [picked, setPicked] = useState<string | null>(null);
  const currency = picked && currencies.includes(picked) ? picked : (currencies[0] ?? null);
  const days = allDays.filter((d) => d.currency === currency);

  return (
    <>
      <h1>{t('home.title')}</h1>
      {home.isPending && <p>{t('common.loading')}</p>}
      <ProblemAlert error={home.error} />
      {home.data?.ready === false && <p role="status">{t('home.computing')}</p>}
      {home.data && (
        <>
          <Section title={t('home.balances')}>
            <div className="tiles">
              {home.data.balances.length === 0 && <p>{t('home.noBalance')}</p>}
              {home.data.balances.map((b) => (
                <div className="tile" key={b.currency}>
                  <p className="tile-label">
                    {b.currency} · {t(`modes.${session.mode}`)}
                  </p>
                  <p className="tile-figure">{f.amount(b.available, b.currency)}</p>
                </div>
              ))}
            </div>
          </Section>
          <Section title={t('home.volumes')}>
            <div className="tiles">
              <VolumeList volumes={home.data.today} title={t('home.today')} />
              <VolumeList volumes={home.data.month} title={t('home.month')} />
            </div>
          </Section>
          <Section title={t('home.successRates')}>
            <Table
              caption={t('home.successRatesCaption')}
              headers={[t('fields.operator'), t('home.attempts'), t('home.rate')]}
              empty={home.data.successRates.length === 0 && t('common.empty')}
            >
              {home.data.successRates.map((r) => (
                <tr key={r.provider}>
                  <th scope="row">{r.provider}</th>
                  <td>{f.number(r.final)}</td>
                  <td>{r.rate === null ? '—' : f.percent(r.rate)}</td>
                </tr>
              ))}
            </Table>
          </Section>
          <OperatorRoutes />
          <Section title={t('home.chart')}>
            {currencies.length > 1 && (
              <SelectField
                inline
                label={t('fields.currency')}
                value={currency ?? ''}
                onChange={setPicked}
                choices={asChoices(currencies)}
              />
            )}
            {currency && (
              <figure className="chart">
                <Suspense fallback={<p>{t('common.loading')}</p>}>
                  <VolumeChart days={days} currency={currency} />
                </Suspense>
                <figcaption>
                  <details>
                    <summary>{t('home.chartAsTable')}</summary>
                    <Table
                      caption={t('home.chartLabel', { currency })}
                      headers={[t('fields.date'), t('types.payin'), t('types.payout'), t('types.refund')]}
                    >
                      {days.map((d) => (
                        <tr key={d.date}>
                          <th scope="row">{f.date(d.date)}</th>
                          <td>{f.amount(d.payin, currency)}</td>
                          <td>{f.amount(d.payout, currency)}</td>
                          <td>{f.amount(d.refund, currency)}</td>
                        </tr>
                      ))}
                    </Table>
                  </details>
                </figcaption>
              </figure>
            )}
          </Section>
        </>
      )}
    </>
  );
}
