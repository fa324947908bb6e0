import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isFinal, isStatusKind } from '../domain/final-status';

// Prometheus metrics of this process (API, worker, or both in `npm start` and the tests), plus the
// Temporal worker's own series, which the SDK's Core runtime serves on its own port: /metrics
// appends them, so one scrape of a process sees everything it does.

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new Histogram({
  name: 'payments_http_request_duration_seconds',
  help: 'HTTP request latency by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const transactionsCreated = new Counter({
  name: 'payments_transactions_created_total',
  help: 'Transactions (payin, payout, refund) accepted by the API, by kind, status and provider',
  labelNames: ['kind', 'status', 'provider'] as const,
  registers: [metricsRegistry],
});

export const transactionsFinished = new Counter({
  name: 'payments_transactions_finished_total',
  help: 'Transactions that reached a final status, by kind, status and provider',
  labelNames: ['kind', 'status', 'provider'] as const,
  registers: [metricsRegistry],
});

export const webhookDeliveries = new Counter({
  name: 'payments_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (delivered, failed, gone)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const ledgerPostings = new Counter({
  name: 'payments_ledger_postings_total',
  help: 'Ledger transfers applied (each one debit and one credit entry)',
  registers: [metricsRegistry],
});

/** Alert on any increase: a transaction past its deadline that the operator neither settled nor cancelled. */
export const operatorUnresolved = new Counter({
  name: 'payments_operator_unresolved_total',
  help: 'Transactions flagged for ops: past our deadline, the operator neither settled nor cancelled them',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

/** Alert on any increase: an activity failed in a way retrying cannot fix (a person must look). */
export const permanentErrors = new Counter({
  name: 'payments_permanent_errors_total',
  help: 'Activities failed with a non-retryable error (a record missing, a sourceRef reused), by activity and type',
  labelNames: ['activity', 'type'] as const,
  registers: [metricsRegistry],
});

/**
 * Events that repeat a status change another event already announced: `payout.completed` follows
 * the `payout.updated` that carried `completed`.
 */
const repeatsAStatus = new Set(['payout.completed']);

/**
 * Counts a status final for its kind (src/domain/final-status.ts) once per status change recorded
 * for it (events are the durable state changes; a failed payin corrected to success counts twice,
 * a payout failed then reversed too). Events about other subjects (a payout batch, a statement)
 * are not transactions.
 */
export function observeTransactionEvent(type: string, data: Record<string, unknown>): void {
  const kind = type.slice(0, type.lastIndexOf('.'));
  const status = typeof data.status === 'string' ? data.status : null;
  if (!status || repeatsAStatus.has(type) || !isStatusKind(kind) || !isFinal(kind, status)) return;
  const mobileMoney = data.mobileMoney as { provider?: { name?: string } } | undefined;
  transactionsFinished.inc({
    kind,
    status,
    provider: mobileMoney?.provider?.name ?? 'none',
  });
}

/** One live route's health as every process measured it (src/operators/routes/ranking.ts). */
export interface RouteHealthSample {
  provider: string;
  operation: string;
  connector: string;
  successRate: number | null;
  answerMs: number | null;
  eliminated: boolean;
}

// Read at each scrape from the store every process writes to, so any process's /metrics shows the
// routes as the ranking sees them. The last source set wins (one per process; tests start several).
let routeHealthSource: (() => Promise<RouteHealthSample[]>) | null = null;
export function setRouteHealthSource(source: () => Promise<RouteHealthSample[]>): void {
  routeHealthSource = source;
}
const routeLabels = ['provider', 'operation', 'connector'] as const;
const routeGauge = (name: string, help: string, value: (s: RouteHealthSample) => number | null) =>
  new Gauge({
    name,
    help,
    labelNames: routeLabels,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      const samples = await (routeHealthSource?.() ?? Promise.resolve([])).catch(() => []);
      for (const s of samples) {
        const v = value(s);
        if (v !== null) this.set({ provider: s.provider, operation: s.operation, connector: s.connector }, v);
      }
    },
  });
routeGauge(
  'payments_route_success_rate',
  'Completed over completed and failed by the route, live, in the health window (customers’ failures left out)',
  (s) => s.successRate,
);
routeGauge('payments_route_answer_seconds', 'Mean answer time of a live route in the health window', (s) =>
  s.answerMs === null ? null : s.answerMs / 1000,
);
routeGauge(
  'payments_route_eliminated',
  '1 while a live route is eliminated after a burst of technical failures',
  (s) => (s.eliminated ? 1 : 0),
);

const temporalSources = new Set<string>();

/** The Temporal Core runtime's Prometheus endpoint in this process (`host:port`). */
export function addTemporalMetricsSource(bindAddress: string): void {
  temporalSources.add(`http://${bindAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}/metrics`);
}

/** This process's metrics, then the Temporal worker's (an unreachable exporter is skipped). */
export async function renderMetrics(): Promise<string> {
  const parts = [await metricsRegistry.metrics()];
  for (const url of temporalSources) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) parts.push(await res.text());
    } catch {
      // The worker is not up (yet): the API's own series are still worth a scrape.
    }
  }
  return parts.join('\n');
}

export const metricsContentType = metricsRegistry.contentType;
