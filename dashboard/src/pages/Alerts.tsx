// Alerts (issue 44 §2): what needs the team's attention in the session's mode, the most severe
// first, each in words with the screen that shows more (docs/dashboard.md, Alerts). The server
// computes them when asked from the service's own records (src/dashboard/alerts/alerts.ts), so an
// alert goes away by itself once its cause is gone.
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { DashboardAlert, Permission } from '../api/dashboard';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useAlerts } from '../hooks/useAlerts';
import { useCan } from '../session';

const looks = { critical: 'down', warning: 'degraded', info: 'up' } as const;

/** The screen that shows more of the alert, and who may open it. */
function whereOf(a: DashboardAlert): { to: string; key: string; permission: Permission } {
  switch (a.kind) {
    case 'webhook-disabled':
    case 'webhook-failing':
      return { to: '/developers/webhooks', key: 'alerts.open.webhooks', permission: 'developer' };
    case 'operator':
      return { to: '/availability', key: 'alerts.open.availability', permission: 'read' };
    case 'balance-low':
      return { to: '/balance-history', key: 'alerts.open.balances', permission: 'read' };
    case 'statement-ready':
      return { to: '/statements', key: 'alerts.open.statements', permission: 'statement' };
  }
}

function useAlertText() {
  const { t } = useTranslation();
  const f = useFormat();
  return (a: DashboardAlert): string => {
    switch (a.kind) {
      case 'webhook-disabled':
        return t(/410/.test(a.reason ?? '') ? 'alerts.text.webhookGone' : 'alerts.text.webhookDisabled', {
          url: a.endpoint.url,
        });
      case 'webhook-failing':
        return t(a.lastStatusCode ? 'alerts.text.webhookFailingStatus' : 'alerts.text.webhookFailing', {
          url: a.endpoint.url,
          count: a.failures,
          status: a.lastStatusCode,
        });
      case 'operator':
        return t(`alerts.text.operator.${a.state === 'closed' ? 'down' : 'degraded'}`, {
          operation: t(`alerts.operations.${a.operation}`),
          operator: a.displayName,
          country: t(`countries.${a.country}`),
        });
      case 'balance-low':
        return t('alerts.text.balanceLow', {
          currency: a.currency,
          balance: f.amount(a.balance, a.currency),
          threshold: f.amount(a.threshold, a.currency),
        });
      case 'statement-ready':
        return t('alerts.text.statementReady', {
          currency: a.currency,
          format: a.format.toUpperCase(),
          period: f.period(a.from, a.to),
        });
    }
  };
}

function AlertItem(props: { alert: DashboardAlert }) {
  const { t } = useTranslation();
  const f = useFormat();
  const can = useCan();
  const text = useAlertText();
  const a = props.alert;
  const where = whereOf(a);
  return (
    <li className={`alert-item alert-${a.severity}`}>
      <span className={`status status-${looks[a.severity]}`}>{t(`alerts.severity.${a.severity}`)}</span>{' '}
      <span className="alert-text">{text(a)}</span>
      {a.since && <small className="alert-since">{t('alerts.since', { at: f.dateTime(a.since) })}</small>}
      {can(where.permission) && (
        <Link className="alert-link" to={where.to}>
          {t(where.key)}
        </Link>
      )}
    </li>
  );
}

export function Alerts() {
  const { t } = useTranslation();
  const can = useCan();
  const alerts = useAlerts();
  const list = alerts.data?.data;
  return (
    <>
      <h1>{t('alerts.title')}</h1>
      <p className="hint">{t('alerts.intro')}</p>
      <ProblemAlert error={alerts.error} />
      {list &&
        (list.length === 0 ? (
          <p role="status">{t('alerts.none')}</p>
        ) : (
          <ul className="alert-list" aria-label={t('alerts.listLabel', { count: list.length })}>
            {list.map((a) => (
              <AlertItem key={a.id} alert={a} />
            ))}
          </ul>
        ))}
      {can('team') && (
        <p>
          <Link to="/team#alerts">{t('alerts.settings')}</Link>
        </p>
      )}
    </>
  );
}
