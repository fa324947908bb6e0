import { createHash, randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { merchantOfScope, modeOfScope, type Mode } from '../../domain/modes';
import { insertOnce } from '../../persistence/insert-once';
import type { Mailer, MemberStore } from '../identity';
import type { DashboardAlert } from '../data/shapes';
import type { AlertReader } from './alerts';
import type { AlertSettings, AlertSettingsStore } from './settings';

// Alerts by e-mail (docs/decisions/dashboard/alerts.md): a sweep, every ALERT_MAIL_EVERY in each API
// process, reads the alerts of every mode whose owner asked for mail and mails each new one to the
// team's owners and admins. Once per episode, whichever process sweeps: an alert's mark is inserted
// once (its `_id` names the scope and the alert), each recipient's mail has an id drawn from the
// mark's episode (a second send is dropped), and the mark then says it was mailed. A mark outlives
// its alert for QUIET_MS, so a condition that comes and goes mails at most once in that time.

/** A cleared alert's mark is kept this long: the same alert again within it is not mailed again. */
export const QUIET_MS = 60 * 60_000;

interface MarkDoc {
  _id: string;
  scope: string;
  alertId: string;
  /** Names this episode's mails. */
  episode: string;
  mailedAt: Date | null;
  createdAt: Date;
}

const markSchema = new Schema<MarkDoc>(
  {
    _id: { type: String, required: true },
    scope: { type: String, required: true },
    alertId: { type: String, required: true },
    episode: { type: String, required: true },
    mailedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'dashboard_alert_marks' },
);

export interface AlertMailDeps {
  reader: Pick<AlertReader, 'of'>;
  settings: Pick<AlertSettingsStore, 'mailed'>;
  members: Pick<MemberStore, 'ofMerchant'>;
  mailer: Mailer;
  merchantName(merchantId: string): Promise<string | null>;
  /** The dashboard's address in the mail; unset, the mail names the page only. */
  publicBaseUrl?: string | undefined;
}

export class AlertMail {
  constructor(
    private readonly marks: Model<MarkDoc>,
    private readonly deps: AlertMailDeps,
  ) {}

  static on(conn: Connection, deps: AlertMailDeps): AlertMail {
    return new AlertMail(
      (conn.models.DashboardAlertMark as Model<MarkDoc> | undefined) ??
        conn.model<MarkDoc>('DashboardAlertMark', markSchema),
      deps,
    );
  }

  async init(): Promise<void> {
    await this.marks.init();
  }

  /** One pass over every mode mailed; answers how many alerts were mailed. */
  async sweep(now = new Date()): Promise<number> {
    let mailed = 0;
    for (const { scope, settings } of await this.deps.settings.mailed())
      mailed += await this.sweepScope(scope, settings, now);
    return mailed;
  }

  private async sweepScope(scope: string, settings: AlertSettings, now: Date): Promise<number> {
    const alerts = await this.deps.reader.of(scope, now, settings);
    // Each store call is one command (lean by option, not by a chained query): the interleaving test
    // gates them one by one.
    const marks = await this.marks.find({ scope }, null, { lean: true });
    const known = new Map(marks.map((m) => [m.alertId, m]));
    const merchantId = merchantOfScope(scope);
    // Who is mailed and under which name: read once per pass, and only when something is to be mailed.
    let team: { recipients: Array<{ _id: string; email: string }>; merchant: string } | null = null;
    let mailed = 0;
    for (const alert of alerts) {
      const mark = known.get(alert.id) ?? (await this.markOf(scope, alert.id, now));
      if (mark.mailedAt) continue;
      team ??= {
        recipients: (await this.deps.members.ofMerchant(merchantId)).filter(
          (m) => m.role === 'owner' || m.role === 'admin',
        ),
        merchant: (await this.deps.merchantName(merchantId)) ?? merchantId,
      };
      const { recipients, merchant } = team;
      const message = alertMessage(alert, modeOfScope(scope), merchant, this.deps.publicBaseUrl);
      for (const member of recipients)
        await this.deps.mailer.send({
          id: `alert_${createHash('sha256').update(`${mark.episode}:${member._id}`).digest('hex').slice(0, 32)}`,
          to: member.email,
          kind: 'alert',
          ...message,
        });
      await this.marks.updateOne({ _id: mark._id }, { $set: { mailedAt: now } });
      mailed++;
    }
    const current = new Set(alerts.map((a) => a.id));
    const gone = marks
      .filter((m) => !current.has(m.alertId) && now.getTime() - new Date(m.createdAt).getTime() >= QUIET_MS)
      .map((m) => m._id);
    if (gone.length > 0) await this.marks.deleteMany({ _id: { $in: gone } });
    return mailed;
  }

  /** The alert's mark, inserted once: two processes sweeping at once share one episode. */
  private async markOf(scope: string, alertId: string, now: Date): Promise<MarkDoc> {
    const fresh: MarkDoc = {
      _id: `${scope}:${alertId}`,
      scope,
      alertId,
      episode: randomBytes(12).toString('hex'),
      mailedAt: null,
      createdAt: now,
    };
    const { value } = await insertOnce(
      () => this.marks.create(fresh),
      () => this.marks.findById(fresh._id, null, { lean: true }),
      fresh,
    );
    return value;
  }
}

const titles: Record<DashboardAlert['kind'], string> = {
  'webhook-disabled': 'webhook endpoint disabled / webhook désactivé',
  'webhook-failing': 'webhook deliveries failing / livraisons webhook en échec',
  operator: 'operator degraded or down / opérateur dégradé ou indisponible',
  'balance-low': 'balance below threshold / solde sous le seuil',
  'statement-ready': 'statement ready / relevé prêt',
};
const number = (n: number) => new Intl.NumberFormat('en-US').format(n).replace(/,/g, ' ');
const day = (iso: string) => iso.slice(0, 10);

/** The mail of one alert, in English then French, as the invitations are (no locale per member yet). */
export function alertMessage(
  alert: DashboardAlert,
  mode: Mode,
  merchant: string,
  publicBaseUrl?: string,
): { subject: string; text: string } {
  const [en, fr] = ((): [string, string] => {
    switch (alert.kind) {
      case 'webhook-disabled':
        return [
          `Webhook endpoint ${alert.endpoint.url} is disabled${alert.reason ? ` (${alert.reason})` : ''}: it receives no events.`,
          `Le point de terminaison webhook ${alert.endpoint.url} est désactivé : il ne reçoit plus d'événements.`,
        ];
      case 'webhook-failing':
        return [
          `Webhook endpoint ${alert.endpoint.url} failed its last ${alert.failures} deliveries.`,
          `Le point de terminaison webhook ${alert.endpoint.url} a échoué à ses ${alert.failures} dernières livraisons.`,
        ];
      case 'operator':
        return [
          `${alert.displayName} (${alert.country}) ${alert.operation}s are ${alert.state === 'closed' ? 'down' : 'degraded'}.`,
          `${alert.displayName} (${alert.country}) : ${{ payin: 'encaissements', payout: 'décaissements', refund: 'remboursements' }[alert.operation]} ${alert.state === 'closed' ? 'indisponibles' : 'dégradés'}.`,
        ];
      case 'balance-low':
        return [
          `The ${alert.currency} balance is ${number(alert.balance)}, below your threshold of ${number(alert.threshold)}.`,
          `Le solde ${alert.currency} est de ${number(alert.balance)}, sous votre seuil de ${number(alert.threshold)}.`,
        ];
      case 'statement-ready':
        return [
          `The ${alert.currency} statement (${alert.format.toUpperCase()}) for ${day(alert.from)} – ${day(alert.to)} is ready.`,
          `Le relevé ${alert.currency} (${alert.format.toUpperCase()}) du ${day(alert.from)} au ${day(alert.to)} est prêt.`,
        ];
    }
  })();
  const where = publicBaseUrl
    ? `${publicBaseUrl.replace(/\/$/, '')}/dashboard/alerts`
    : 'the dashboard, Alerts / le tableau de bord, Alertes';
  const label = mode === 'live' ? 'LIVE' : 'TEST';
  return {
    subject: `[${label}] ${merchant}: ${titles[alert.kind]}`,
    text: `${merchant} (${label})\n\n${en}\n${fr}\n\n${where}\n`,
  };
}
