// The 30-day chart of Home, in SVG (recharts), loaded on its own (Home imports it lazily).
import { useTranslation } from 'react-i18next';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartDay } from './chart-day';
import { useFormat } from '../format';

export default function VolumeChart(props: { days: ChartDay[]; currency: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { days, currency } = props;
  return (
    <div role="img" aria-label={t('home.chartLabel', { currency })}>
      <ResponsiveContainer width="100%" height={280}>
        <LineChart data={days} margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
          <CartesianGrid stroke="#d0d5dd" strokeDasharray="3 3" />
          <XAxis dataKey="date" tickFormatter={(d: string) => f.shortDate(d)} stroke="#344054" />
          <YAxis tickFormatter={(n: number) => f.number(n)} stroke="#344054" width={90} />
          <Tooltip
            labelFormatter={(d: unknown) => (typeof d === 'string' ? f.date(d) : '')}
            formatter={(value) => f.amount(Number(value), currency)}
          />
          <Legend />
          <Line type="monotone" dataKey="payin" name={t('types.payin')} stroke="#1d4ed8" dot={false} />
          <Line type="monotone" dataKey="payout" name={t('types.payout')} stroke="#b42318" dot={false} />
          <Line type="monotone" dataKey="refund" name={t('types.refund')} stroke="#067647" dot={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
