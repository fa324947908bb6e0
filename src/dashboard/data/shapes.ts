// The answers of the dashboard's data routes as the page reads them (docs/dashboard.md, "Shapes =
// server truth"): the server builds them, the page imports these types (type-only, no runtime code),
// so the two cannot drift. Dependency-free on purpose: the page's type-check includes this file.

export interface CurrencyVolumes {
  currency: string;
  payins: number;
  payouts: number;
  refunds: number;
}

export interface PeriodFigures {
  payins: number;
  payouts: number;
  refunds: number;
  volumes: CurrencyVolumes[];
}

export interface HomeAnswer {
  balances: { currency: string; available: number; accounts: number }[];
  today: PeriodFigures;
  month: PeriodFigures;
  /** Payins and payouts of the last 30 days that reached a final status, per provider. */
  successRates: { provider: string; final: number; success: number; rate: number | null }[];
  /** Oldest first, today last. */
  series: { day: string; payins: number; payouts: number; refunds: number; volumes: CurrencyVolumes[] }[];
  /** Members not final yet at this visit (counted, their outcome not yet). */
  pending: number;
  /** false: the scope's first fold is still running (figures empty); ask again in a few seconds. */
  ready: boolean;
  computedAt: string;
}

/** What the stores tell of a transaction; its page adds the staff's notes (TransactionTimeline). */
export interface TimelineBody {
  id: string;
  kind: 'payin' | 'payout' | 'refund';
  record: unknown;
  statuses: { status: string; at: string; source: 'created' | 'event' | 'current' }[];
  operator: unknown;
  events: { id: string; type: string; createdAt: string; data: unknown }[];
  webhookAttempts: {
    eventId: string;
    endpointId: string;
    /** Where the attempt was sent (the endpoint's URL then). */
    url: string;
    attempt: number;
    at: string;
    succeeded: boolean;
    statusCode: number | null;
    latencyMs: number;
    error: string | null;
  }[];
  ledger: {
    sourceRef: string;
    reason: string;
    fromAccountId: string;
    toAccountId: string;
    amount: number;
    currency: string;
    at: string;
  }[];
}

/** A staff member's note on a transaction (src/dashboard/data/notes.ts), newest first. */
export interface TransactionNote {
  id: string;
  text: string;
  /** The member who wrote it, with their name as it was then. */
  author: { id: string; name: string };
  at: string;
}

export interface TransactionTimeline extends TimelineBody {
  notes: TransactionNote[];
}

/** What the alerts read and mail name (docs/dashboard.md, Alerts): each alert once per condition. */
export type AlertSeverity = 'critical' | 'warning' | 'info';
interface AlertBase {
  /** Stable while the condition lasts: the page's key, and a mail's once-per-episode key. */
  id: string;
  severity: AlertSeverity;
  /** When the condition began, as far as the service knows; null when it does not. */
  since: string | null;
}
export type DashboardAlert =
  | (AlertBase & {
      kind: 'webhook-disabled';
      endpoint: { id: string; url: string };
      /** Why it was disabled ('the endpoint answered 410 Gone'), null by hand. */
      reason: string | null;
    })
  | (AlertBase & {
      kind: 'webhook-failing';
      endpoint: { id: string; url: string };
      /** Failed attempts since the last success. */
      failures: number;
      lastStatusCode: number | null;
    })
  | (AlertBase & {
      kind: 'operator';
      operator: string;
      displayName: string;
      country: string;
      operation: 'payin' | 'payout' | 'refund';
      /** delayed: degraded, closed: down (GET /v1/providers' states). */
      state: 'delayed' | 'closed';
    })
  | (AlertBase & {
      kind: 'balance-low';
      accountId: string;
      currency: string;
      balance: number;
      threshold: number;
    })
  | (AlertBase & {
      kind: 'statement-ready';
      statementId: string;
      accountId: string;
      currency: string;
      format: 'csv' | 'json';
      from: string;
      to: string;
    });

/** An owner's or admin's choices for the alerts of one mode (Team page). */
export interface AlertSettingsShape {
  /** A main account's balance below this (major units of its currency) raises an alert. */
  balanceBelow: { XOF: number | null; XAF: number | null };
  /** Alerts of this mode are also mailed to the team's owners and admins. */
  email: boolean;
}
