import type { Router } from 'express';
import type { Connection } from 'mongoose';
import type { MerchantService } from '../../merchants/service';
import type { Ledger } from '../../ledger';
import type { TransactionStore } from '../../persistence/transactions';
import type { RefundStore } from '../../persistence/refunds';
import type { EventStore } from '../../events/event-store';
import type { EndpointStore } from '../../webhooks/endpoint-store';
import type { DeliveryLog } from '../../webhooks/delivery-log';
import type { RequestLogStore } from '../../request-log/store';
import { HomeFigures } from '../data/home';
import { TimelineReader } from '../data/timeline';
import { NoteStore } from '../data/notes';
import { SavedFilterStore } from '../data/saved-filters';
import { savedFilterRoutes } from './saved-filters';
import { homeRoutes } from './home';
import { timelineRoutes } from './timeline';
import { requestRoutes } from './requests';
import { keyRoutes } from './keys';
import { uploadRoutes } from './uploads';
import { searchRoutes } from './search';
import { exportRoutes } from './export';
import { paymentLinkRoutes } from './payment-links';
import type { PaymentLinkService } from '../../services/payment-link-service';
import { DashboardSearch } from '../data/search';
import { TransactionSearch } from '../../services/transaction-search';
import { newRouter } from '../../api/routing';

// What the dashboard shows beyond the public API (docs/dashboard.md): mounted by the access part
// under /dashboard/api after its session middleware, so `req.member` and `req.merchantId` (the
// scope of the session's mode) are set; each route checks its permission (roles.ts).

export interface DashboardDataDeps {
  mongo: Connection;
  merchants: MerchantService;
  ledger: Ledger;
  transactions: TransactionStore;
  refunds: RefundStore;
  events: EventStore;
  endpoints: EndpointStore;
  deliveries: DeliveryLog;
  requestLog: RequestLogStore;
  /** Staff's notes on transactions; omitted, on `mongo` (the application initializes it). */
  notes?: NoteStore;
  /** Members' saved filters; omitted, on `mongo` (the application initializes it). */
  savedFilters?: SavedFilterStore;
  /** Rows an export holds at most (DASHBOARD_EXPORT_MAX_ROWS); omitted, EXPORT_MAX_ROWS. */
  exportMaxRows?: number;
  /** The API's payment links use case (a link's payments exported); omitted, no such route. */
  paymentLinks?: PaymentLinkService;
}

export function dashboardDataRoutes(deps: DashboardDataDeps): Router {
  const router = newRouter('/dashboard/api');
  const home = new HomeFigures({
    conn: deps.mongo,
    transactions: deps.transactions,
    refunds: deps.refunds,
    ledger: deps.ledger,
  });
  const timeline = new TimelineReader(deps);
  const notes = deps.notes ?? NoteStore.on(deps.mongo);
  const transactionSearch = new TransactionSearch({ transactions: deps.transactions, refunds: deps.refunds });
  const search = new DashboardSearch({
    transactions: deps.transactions,
    refunds: deps.refunds,
    search: transactionSearch,
  });
  router.use(
    homeRoutes(home),
    // Before the timeline's `/transactions/:id/...`: `search` is not an id.
    searchRoutes(search),
    exportRoutes(transactionSearch, deps.exportMaxRows),
    timelineRoutes(timeline, notes),
    savedFilterRoutes(deps.savedFilters ?? SavedFilterStore.on(deps.mongo)),
    requestRoutes(deps.requestLog),
    keyRoutes(deps.merchants),
    uploadRoutes(),
  );
  if (deps.paymentLinks) router.use(paymentLinkRoutes(deps.paymentLinks, deps.exportMaxRows));
  return router;
}
