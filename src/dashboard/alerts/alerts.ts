import { countries, type OperatorCode, type Country } from '../../domain/operators';
import { providersOf } from '../../domain/providers';
import { modeOfScope, type Mode } from '../../domain/modes';
import { healthOperations, type HealthOperation } from '../../operators/health/state';
import type { ProviderStateReader } from '../../operators/health';
import type { EndpointStore } from '../../webhooks/endpoint-store';
import type { DeliveryLog } from '../../webhooks/delivery-log';
import type { Ledger } from '../../ledger';
import type { StatementStore } from '../../statements/store';
import type { DashboardAlert, AlertSeverity } from '../data/shapes';
import type { AlertSettings, AlertSettingsStore } from './settings';

// What needs a merchant's attention now, in one mode (docs/dashboard.md, Alerts; docs/decisions/
// dashboard/alerts.md), computed when read from what the service already keeps: webhook endpoints
// (disabled, or failing since their last success), operators' states as GET /v1/providers gives
// them, main balances below the owner's thresholds, statements made ready in the last day. Nothing
// is stored to raise an alert, so it can never disagree with the screens it points to.

const DAY_MS = 86_400_000;
/** Failed attempts in a row, since the last success, that make an endpoint "failing". */
export const FAILING_AFTER = 3;
/** Attempts read per endpoint at most (the newest, an `_id` read each): a longer run counts as this many. */
const ATTEMPTS_READ = 10;
/** Statements examined, newest first, for those made ready in the last day. */
const STATEMENTS_READ = 20;

export interface AlertSources {
  endpoints: Pick<EndpointStore, 'list'>;
  deliveries: Pick<DeliveryLog, 'recent'>;
  ledger: Pick<Ledger, 'listAccounts'>;
  statements: Pick<StatementStore, 'list'>;
  settings: Pick<AlertSettingsStore, 'of'>;
  /** Operators' states (src/operators/health); omitted, no operator alert. */
  health?: Pick<ProviderStateReader, 'stateOf'>;
  /** Whether a provider × operation has a route in the mode (a live pair without one is not "down"). */
  routed?: (mode: Mode, operator: OperatorCode, country: Country, operation: HealthOperation) => boolean;
}

const order: Record<AlertSeverity, number> = { critical: 0, warning: 1, info: 2 };

export class AlertReader {
  constructor(private readonly sources: AlertSources) {}

  /**
   * The scope's alerts, the most severe first, then the newest. `webhooks: false` leaves the
   * endpoints out (a member who may not see them: an endpoint's address can carry the merchant's
   * own token).
   */
  async of(
    scope: string,
    now = new Date(),
    known?: AlertSettings,
    opts: { webhooks?: boolean } = {},
  ): Promise<DashboardAlert[]> {
    const settings = known ?? (await this.sources.settings.of(scope));
    const found = (
      await Promise.all([
        opts.webhooks === false ? [] : this.webhooks(scope, now),
        this.operators(modeOfScope(scope)),
        this.balances(scope, settings),
        this.statementsReady(scope, now),
      ])
    ).flat();
    return found.sort(
      (a, b) => order[a.severity] - order[b.severity] || (b.since ?? '').localeCompare(a.since ?? ''),
    );
  }

  private async webhooks(scope: string, now: Date): Promise<DashboardAlert[]> {
    const since = new Date(now.getTime() - DAY_MS);
    const alerts = await Promise.all(
      (await this.sources.endpoints.list(scope)).map(async (e): Promise<DashboardAlert | null> => {
        const endpoint = { id: e.id, url: e.url };
        if (e.status === 'disabled')
          return {
            id: `webhook-disabled:${e.id}`,
            kind: 'webhook-disabled',
            severity: 'critical',
            since: new Date(e.updatedAt).toISOString(),
            endpoint,
            reason: e.disabledReason,
          };
        const { attempts } = await this.sources.deliveries.recent(scope, e.id, since, ATTEMPTS_READ);
        const firstSuccess = attempts.findIndex((a) => a.succeeded);
        const failed = firstSuccess === -1 ? attempts : attempts.slice(0, firstSuccess);
        if (failed.length < FAILING_AFTER) return null;
        return {
          id: `webhook-failing:${e.id}`,
          kind: 'webhook-failing',
          severity: 'warning',
          // The oldest failure read: the run may have begun earlier when it is longer than the read.
          since: new Date(failed.at(-1)!.attemptedAt).toISOString(),
          endpoint,
          failures: failed.length,
          lastStatusCode: failed[0]!.statusCode,
        };
      }),
    );
    return alerts.filter((a) => a !== null);
  }

  private async operators(mode: Mode): Promise<DashboardAlert[]> {
    const { health, routed } = this.sources;
    if (!health) return [];
    const pairs = countries.flatMap((c) =>
      providersOf(c).flatMap((p) =>
        healthOperations
          .filter((operation) => routed?.(mode, p.code, p.country, operation) ?? true)
          .map((operation) => ({ p, operation })),
      ),
    );
    const alerts = await Promise.all(
      pairs.map(async ({ p, operation }): Promise<DashboardAlert | null> => {
        // A state that cannot be read now raises nothing (the availability screen says so).
        const answer = await health.stateOf(mode, p.code, p.country, operation).catch(() => null);
        if (!answer || answer.state === 'operational') return null;
        return {
          id: `operator:${p.code}:${p.country}:${operation}:${answer.state}`,
          kind: 'operator',
          severity: answer.state === 'closed' ? 'critical' : 'warning',
          since: answer.since,
          operator: p.code,
          displayName: p.displayName,
          country: p.country,
          operation,
          state: answer.state,
        };
      }),
    );
    return alerts.filter((a) => a !== null);
  }

  private async balances(scope: string, settings: AlertSettings): Promise<DashboardAlert[]> {
    const { XOF, XAF } = settings.balanceBelow;
    if (XOF === null && XAF === null) return [];
    const thresholds: Record<string, number | null> = { XOF, XAF };
    return (await this.sources.ledger.listAccounts(scope))
      .filter((a) => a.kind === 'main')
      .flatMap((a): DashboardAlert[] => {
        const threshold = thresholds[a.currency] ?? null;
        if (threshold === null || a.balance >= threshold) return [];
        return [
          {
            id: `balance-low:${a.id}`,
            kind: 'balance-low',
            severity: 'warning',
            since: null,
            accountId: a.id,
            currency: a.currency,
            balance: a.balance,
            threshold,
          },
        ];
      });
  }

  private async statementsReady(scope: string, now: Date): Promise<DashboardAlert[]> {
    const after = now.getTime() - DAY_MS;
    const { statements } = await this.sources.statements.list(scope, { limit: STATEMENTS_READ });
    return statements
      .filter((s) => s.status === 'ready' && s.readyAt && new Date(s.readyAt).getTime() >= after)
      .map((s) => ({
        id: `statement-ready:${s.id}`,
        kind: 'statement-ready',
        severity: 'info',
        since: new Date(s.readyAt!).toISOString(),
        statementId: s.id,
        accountId: s.accountId,
        currency: s.currency,
        format: s.format,
        from: new Date(s.from).toISOString(),
        to: new Date(s.to).toISOString(),
      }));
  }
}
