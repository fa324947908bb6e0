import express, { type Express, type Request, type Response } from 'express';
import type { OperatorCode } from '../domain/operators';
import { Books, type SimTransaction } from './books';
import { callbackSender, type CallbackDelivery } from './callbacks';
import { SandboxOperator } from './operator';
import { mountOperatorRoutes } from './operator-routes';
import { badRequest } from './route-helpers';
import { mountRecipientRoutes } from './recipient-routes';
import { mountSandboxRoutes } from './sandbox-routes';
import { RouteControls } from './route-controls';
import { join } from 'node:path';

// The sandbox operator, a separate HTTP service: it answers `pending`, reaches the outcome the
// request's sandboxScenario names after a short delay, then calls the service back, signed with the
// operator's secret. It keeps books like an operator does (durable with a data directory) and
// serves a statement per day. Split by concern: books.ts (storage), operator.ts (behaviour),
// callbacks.ts, operator-routes.ts (the operator API), sandbox-routes.ts (test controls).

export type { SimTransaction } from './books';
export type { CallbackDelivery } from './callbacks';

export interface SimulatorOptions {
  /** Per-operator HMAC secrets for the callbacks (the service verifies with the same). */
  callbackSecrets: Record<OperatorCode, string>;
  /** Where callbacks go when a request names no callbackUrl: the service's base URL. */
  callbackBaseUrl?: string | null;
  /** Time from a request to its final outcome. */
  settleDelayMs?: number;
  /** How long the first answer to a 9904 number takes (longer than the gateway waits). */
  slowResponseMs?: number;
  /** The partner check of a 9902 number finds the funds at this call. */
  partnerChecksBeforeCollected?: number;
  /** Waits before each callback delivery attempt. */
  callbackRetryDelaysMs?: number[];
  /** Where the books are kept across restarts; without it they live in memory only. */
  dataDir?: string | null;
  /** The operator's clock (tests put transactions on another day). */
  now?: () => Date;
}

export interface Simulator {
  app: Express;
  setCallbackBaseUrl(url: string | null): void;
  /** The first route's books. */
  transactions: ReadonlyMap<string, SimTransaction>;
  /** Each route's books and outage controls: route 1 (the root), route 2 (/routes/2). */
  routes: Array<{ transactions: ReadonlyMap<string, SimTransaction>; controls: RouteControls }>;
  callbacks: readonly CallbackDelivery[];
  /** Cancels pending timers (settlements, callback retries). */
  close(): void;
}

/** One sandbox route: an operator with its own books, its API, its test controls and its outage controls. */
function sandboxRoute(
  opts: SimulatorOptions,
  callbacks: ReturnType<typeof callbackSender>,
  dataDir: string | null,
) {
  const books = new Books(dataDir);
  const operator = new SandboxOperator(books, callbacks, {
    settleDelayMs: opts.settleDelayMs ?? 200,
    partnerChecksBeforeCollected: opts.partnerChecksBeforeCollected ?? 3,
    now: opts.now ?? (() => new Date()),
  });
  // What was pending when it stopped settles as it would have (after a restart).
  operator.resumePending();
  const controls = new RouteControls();
  const router = express.Router();
  router.use(controls.middleware(books));
  mountOperatorRoutes(router, operator, { slowResponseMs: opts.slowResponseMs ?? 3_000 });
  mountSandboxRoutes(router, operator, callbacks.log);
  controls.mount(router);
  return { books, operator, controls, router };
}

export function createSimulatorApp(opts: SimulatorOptions): Simulator {
  const callbacks = callbackSender({
    secrets: opts.callbackSecrets,
    baseUrl: opts.callbackBaseUrl ?? null,
    retryDelaysMs: opts.callbackRetryDelaysMs ?? [0, 500, 2_000],
  });
  // Two routes to every pair, each an operator of its own (its own books): the first at the root,
  // the second under /routes/2 (the connector `simulator-2`).
  const first = sandboxRoute(opts, callbacks, opts.dataDir ?? null);
  const second = sandboxRoute(opts, callbacks, opts.dataDir ? join(opts.dataDir, 'route-2') : null);

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb' }));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use('/routes/2', second.router);
  app.use(first.router);
  mountRecipientRoutes(app);
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: 'NOT_FOUND', message: 'No such route' });
  });
  app.use((err: { type?: string }, _req: Request, res: Response, _next: express.NextFunction) => {
    if (err.type === 'entity.parse.failed') return badRequest(res, 'Malformed JSON');
    res.status(500).json({ error: 'INTERNAL', message: 'Simulator error' });
  });

  return {
    app,
    setCallbackBaseUrl: (url) => callbacks.setBaseUrl(url),
    transactions: first.books.map,
    routes: [first, second].map((r) => ({ transactions: r.books.map, controls: r.controls })),
    callbacks: callbacks.log,
    close: () => {
      first.operator.close();
      second.operator.close();
      callbacks.close();
    },
  };
}
