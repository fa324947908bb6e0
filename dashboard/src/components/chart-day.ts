// One day of Home's 30-day chart: built by the page (pages/Home.tsx), drawn by VolumeChart.tsx. Its
// own module, so the chart (loaded lazily) and the page do not import each other.
export type ChartDay = { date: string; currency: string; payin: number; payout: number; refund: number };
