import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type Home as HomeFigures, type PeriodFigures } from '../api/dashboard';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useSession } from '../session';

// The chart library is the largest part of the page: loaded with Home's chart only.
const VolumeChart = lazy(() => import('../components/VolumeChart'));

const kinds = [
  ['payin', 'payins'],
  ['payout', 'payouts'],
  ['refund', 'refunds'],
] as const;

/** One point per day and currency, as the chart draws it (the server gives days with their currencies). */
export type ChartDay = { date: string; currency: string; payin: number; payout: number; refund: number };
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
  const headingId = useId();
  // Counts are of what was created; amounts of what succeeded, per currency.
  const rows = kinds.flatMap(([type, plural]) =>
    props.volumes.volumes
      .filter((v) => v[plural] > 0)
      .map((v) => ({ type, currency: v.currency, amount: v[plural], count: props.volumes[plural] })),
  );
  return (
    <section className="tile" aria-labelledby={headingId}>
      <h3 id={headingId}>{props.title}</h3>
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
    </section>
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
          <section aria-labelledby="balances-heading">
            <h2 id="balances-heading">{t('home.balances')}</h2>
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
          </section>
          <section aria-labelledby="volumes-heading">
            <h2 id="volumes-heading">{t('home.volumes')}</h2>
            <div className="tiles">
              <VolumeList volumes={home.data.today} title={t('home.today')} />
              <VolumeList volumes={home.data.month} title={t('home.month')} />
            </div>
          </section>
          <section aria-labelledby="rates-heading">
            <h2 id="rates-heading">{t('home.successRates')}</h2>
            <div className="table-wrap" tabIndex={0}>
              <table>
                <caption>{t('home.successRatesCaption')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('fields.operator')}</th>
                    <th scope="col">{t('home.attempts')}</th>
                    <th scope="col">{t('home.rate')}</th>
                  </tr>
                </thead>
                <tbody>
                  {home.data.successRates.length === 0 && (
                    <tr>
                      <td colSpan={3} className="empty">
                        {t('common.empty')}
                      </td>
                    </tr>
                  )}
                  {home.data.successRates.map((r) => (
                    <tr key={r.provider}>
                      <th scope="row">{r.provider}</th>
                      <td>{f.number(r.final)}</td>
                      <td>{r.rate === null ? '—' : f.percent(r.rate)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section aria-labelledby="chart-heading">
            <h2 id="chart-heading">{t('home.chart')}</h2>
            {currencies.length > 1 && (
              <div className="field inline">
                <label htmlFor="chart-currency">{t('fields.currency')}</label>
                <select
                  id="chart-currency"
                  value={currency ?? ''}
                  onChange={(e) => setPicked(e.target.value)}
                >
                  {currencies.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
              </div>
            )}
            {currency && (
              <figure className="chart">
                <Suspense fallback={<p>{t('common.loading')}</p>}>
                  <VolumeChart days={days} currency={currency} />
                </Suspense>
                <figcaption>
                  <details>
                    <summary>{t('home.chartAsTable')}</summary>
                    <div className="table-wrap" tabIndex={0}>
                      <table>
                        <caption>{t('home.chartLabel', { currency })}</caption>
                        <thead>
                          <tr>
                            <th scope="col">{t('fields.date')}</th>
                            <th scope="col">{t('types.payin')}</th>
                            <th scope="col">{t('types.payout')}</th>
                            <th scope="col">{t('types.refund')}</th>
                          </tr>
                        </thead>
                        <tbody>
                          {days.map((d) => (
                            <tr key={d.date}>
                              <th scope="row">{f.date(d.date)}</th>
                              <td>{f.amount(d.payin, currency)}</td>
                              <td>{f.amount(d.payout, currency)}</td>
                              <td>{f.amount(d.refund, currency)}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                  </details>
                </figcaption>
              </figure>
            )}
          </section>
        </>
      )}
    </>
  );
}
