import { AlertReader, FAILING_AFTER, type AlertSources } from '../../src/dashboard/alerts/alerts';
import { alertMessage } from '../../src/dashboard/alerts/mail';
import { defaultAlertSettings } from '../../src/dashboard/alerts/settings';
import type { DeliveryAttempt } from '../../src/webhooks/delivery-log';
import type { WebhookEndpoint } from '../../src/webhooks/endpoint-store';
import type { Statement } from '../../src/statements/store';
import type { Account } from '../../src/ledger/types';

// The alerts' rules (src/dashboard/alerts/alerts.ts) over stub sources: when an endpoint is failing,
// which operator pairs count in each mode, which balances and statements raise one, and their order;
// then the mail's words in both languages. The real stores are exercised in
// test/integration/dashboard-alerts.test.ts.

const now = new Date('2026-11-29T12:00:00Z');
const scope = 'm_alerts_test';
const endpoint = (id: string, status: WebhookEndpoint['status'] = 'enabled'): WebhookEndpoint => ({
  id,
  merchantId: scope,
  url: `https://shop.example/${id}`,
  eventTypes: [],
  description: null,
  status,
  disabledReason: status === 'disabled' ? 'the endpoint answered 410 Gone' : null,
  secrets: [],
  createdAt: now,
  updatedAt: new Date('2026-11-29T11:00:00Z'),
});
const attempt = (succeeded: boolean, minutesAgo: number): DeliveryAttempt =>
  ({
    succeeded,
    statusCode: succeeded ? 200 : 500,
    attemptedAt: new Date(now.getTime() - minutesAgo * 60_000),
  }) as DeliveryAttempt;
const account = (currency: 'XOF' | 'XAF', balance: number, kind: Account['kind'] = 'main'): Account => ({
  id: `acc_${currency}_${kind}`,
  merchantId: scope,
  currency,
  kind,
  name: currency,
  balance,
  createdAt: now,
});
const statement = (id: string, readyHoursAgo: number | null): Statement =>
  ({
    id,
    accountId: 'acc_XOF_main',
    currency: 'XOF',
    from: new Date('2026-11-27T00:00:00Z'),
    to: new Date('2026-11-28T00:00:00Z'),
    format: 'csv',
    status: readyHoursAgo === null ? 'pending' : 'ready',
    readyAt: readyHoursAgo === null ? null : new Date(now.getTime() - readyHoursAgo * 3_600_000),
  }) as Statement;

function reader(over: Partial<AlertSources> = {}, attempts: Record<string, DeliveryAttempt[]> = {}) {
  return new AlertReader({
    endpoints: { list: async () => [] },
    deliveries: { recent: async (_m, id) => ({ attempts: attempts[id] ?? [], complete: true }) },
    ledger: { listAccounts: async () => [] },
    statements: { list: async () => ({ statements: [], more: false }) },
    settings: { of: async () => defaultAlertSettings() },
    ...over,
  });
}

describe('dashboard alerts', () => {
  it(`an endpoint is failing after ${FAILING_AFTER} failed attempts in a row since its last success; a disabled one is critical`, async () => {
    const failures = (n: number) => Array.from({ length: n }, (_, i) => attempt(false, i + 1));
    const alerts = await reader(
      {
        endpoints: {
          list: async () => [endpoint('a'), endpoint('b'), endpoint('c'), endpoint('d', 'disabled')],
        },
      },
      {
        a: [...failures(FAILING_AFTER - 1), attempt(true, 30)],
        b: [...failures(FAILING_AFTER), attempt(true, 30), ...failures(5)],
        c: failures(25).slice(0, 10),
      },
    ).of(scope, now);
    expect(alerts.map((a) => a.id)).toEqual(['webhook-disabled:d', 'webhook-failing:b', 'webhook-failing:c']);
    expect(alerts[1]).toMatchObject({
      failures: FAILING_AFTER,
      lastStatusCode: 500,
      since: '2026-11-29T11:57:00.000Z',
    });
    expect(alerts[0]).toMatchObject({ severity: 'critical', reason: 'the endpoint answered 410 Gone' });
  });

  it('an operator pair counts when it is not operational and has a route in the mode; an unreadable state raises nothing', async () => {
    const asked: string[] = [];
    const alerts = await reader({
      health: {
        stateOf: async (mode, operator, country, operation) => {
          asked.push(`${mode}:${operator}:${country}:${operation}`);
          if (operator === 'ORANGE') throw new Error('store unreachable');
          if (operator === 'MTN' && country === 'CI' && operation === 'payout')
            return { state: 'delayed', since: '2026-11-29T11:30:00.000Z', retryAfterSeconds: null };
          if (operator === 'WAVE') return { state: 'closed', since: null, retryAfterSeconds: null };
          return { state: 'operational', since: null, retryAfterSeconds: null };
        },
      },
      // Live: Wave has no route, so its "closed" is not news.
      routed: (_mode, operator) => operator !== 'WAVE',
    }).of('m_alerts_live', now);
    expect(asked.some((a) => a.includes('WAVE'))).toBe(false);
    expect(alerts).toEqual([
      {
        id: 'operator:MTN:CI:payout:delayed',
        kind: 'operator',
        severity: 'warning',
        since: '2026-11-29T11:30:00.000Z',
        operator: 'MTN',
        displayName: expect.any(String),
        country: 'CI',
        operation: 'payout',
        state: 'delayed',
      },
    ]);
  });

  it("a main account below its currency's threshold raises one; other accounts and unset thresholds do not", async () => {
    const alerts = await reader({
      ledger: {
        listAccounts: async () => [
          account('XOF', 4_999),
          account('XAF', 100),
          account('XOF', 0, 'fees' as Account['kind']),
        ],
      },
      settings: { of: async () => ({ balanceBelow: { XOF: 5_000, XAF: null }, email: false }) },
    }).of(scope, now);
    expect(alerts).toEqual([
      expect.objectContaining({
        id: 'balance-low:acc_XOF_main',
        balance: 4_999,
        threshold: 5_000,
        currency: 'XOF',
      }),
    ]);
    const atThreshold = await reader({
      ledger: { listAccounts: async () => [account('XOF', 5_000)] },
      settings: { of: async () => ({ balanceBelow: { XOF: 5_000, XAF: null }, email: false }) },
    }).of(scope, now);
    expect(atThreshold).toEqual([]);
  });

  it('a statement made ready within the last 24 hours is news; an older or pending one is not', async () => {
    const alerts = await reader({
      statements: {
        list: async () => ({
          statements: [statement('st_new', 1), statement('st_pending', null), statement('st_old', 25)],
          more: false,
        }),
      },
    }).of(scope, now);
    expect(alerts.map((a) => a.id)).toEqual(['statement-ready:st_new']);
  });

  it('the mail says it in English then in French, with the mode and where to look', () => {
    const mail = alertMessage(
      {
        id: 'webhook-failing:a',
        kind: 'webhook-failing',
        severity: 'warning',
        since: null,
        endpoint: { id: 'a', url: 'https://shop.example/a' },
        failures: 4,
        lastStatusCode: 500,
      },
      'live',
      'Boutique Akwaba',
      'https://pay.example/',
    );
    expect(mail.subject).toBe(
      '[LIVE] Boutique Akwaba: webhook deliveries failing / livraisons webhook en échec',
    );
    expect(mail.text).toBe(
      'Boutique Akwaba (LIVE)\n\n' +
        'Webhook endpoint https://shop.example/a failed its last 4 deliveries.\n' +
        'Le point de terminaison webhook https://shop.example/a a échoué à ses 4 dernières livraisons.\n\n' +
        'https://pay.example/dashboard/alerts\n',
    );
  });
});
