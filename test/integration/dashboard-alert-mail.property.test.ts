import fc from 'fast-check';
import type { Connection, Model } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { interleaving } from '../helpers/interleave';
import { AlertMail, type AlertMailDeps } from '../../src/dashboard/alerts/mail';
import { MailOutbox, type Mailer } from '../../src/dashboard/identity/mailer';
import { defaultAlertSettings } from '../../src/dashboard/alerts/settings';
import type { DashboardAlert } from '../../src/dashboard/data/shapes';

// Two API processes mailing the same alert at once (docs/decisions/dashboard/alerts.md), interleaved
// by fast-check's scheduler over the real FerretDB: each command on the alerts' marks and each mail
// inserted is one step the scheduler places. Whatever the order, each owner and admin gets the
// alert's mail once, and the mark ends mailed; a sweep cut short between the mails and the mark
// sends nothing twice when the next one finishes it.

const RUNS = 12;

describe('alerts mailed by two processes at once (fast-check scheduler)', () => {
  let mongo: Connection;
  let outbox: MailOutbox;
  let marks: Model<unknown>;
  beforeAll(async () => {
    mongo = await connectTestMongo();
    outbox = MailOutbox.on(mongo);
    await outbox.init();
    await AlertMail.on(mongo, {} as AlertMailDeps).init();
    marks = mongo.models.DashboardAlertMark as Model<unknown>;
  });
  afterAll(async () => {
    await mongo.dropDatabase();
    await mongo.close();
  });

  const alert = (id: string): DashboardAlert => ({
    id,
    kind: 'balance-low',
    severity: 'warning',
    since: null,
    accountId: 'acc_1',
    currency: 'XOF',
    balance: 1_000,
    threshold: 5_000,
  });
  const team = (run: string) => [
    { _id: `dm_owner_${run}`, email: `owner-${run}@example.test`, role: 'owner' },
    { _id: `dm_admin_${run}`, email: `admin-${run}@example.test`, role: 'admin' },
    { _id: `dm_viewer_${run}`, email: `viewer-${run}@example.test`, role: 'viewer' },
  ];
  const depsOf = (run: string, mailer: Mailer): AlertMailDeps => ({
    reader: { of: async () => [alert(`balance-low:acc_${run}`)] },
    settings: { mailed: async () => [{ scope: `m_${run}_test`, settings: defaultAlertSettings() }] },
    members: { ofMerchant: async () => team(run) as never },
    mailer,
    merchantName: async () => 'Boutique Akwaba',
  });
  const mailsOf = async (run: string) =>
    Object.fromEntries(
      await Promise.all(
        team(run).map(async (m) => [
          m.role,
          (await outbox.to(m.email)).filter((x) => x.kind === 'alert').length,
        ]),
      ),
    );

  it('each owner and admin gets one mail, whatever the order of the two sweeps', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const run = `il${String(n++)}`;
        const step = interleaving(s);
        const gatedMarks = step.gated(marks, 'marks');
        const mailer: Mailer = {
          send: step.gate('mail', (m: Parameters<Mailer['send']>[0]) => outbox.send(m)),
        };
        const a = new AlertMail(gatedMarks as never, depsOf(run, mailer));
        const b = new AlertMail(gatedMarks as never, depsOf(run, mailer));
        await step.run(Promise.all([a.sweep(), b.sweep()]));
        expect(await mailsOf(run)).toEqual({ owner: 1, admin: 1, viewer: 0 });
        // Both agree it was mailed: a third sweep sends nothing.
        expect(await new AlertMail(marks as never, depsOf(run, outbox)).sweep()).toBe(0);
        expect(await mailsOf(run)).toEqual({ owner: 1, admin: 1, viewer: 0 });
      }),
      { numRuns: RUNS },
    );
  }, 180_000);

  it('a sweep cut short after the first mail is finished by the next one, with no mail twice', async () => {
    const run = 'crash';
    let sent = 0;
    const failing: Mailer = {
      send: async (m) => {
        if (++sent === 2) throw new Error('process killed');
        await outbox.send(m);
      },
    };
    await expect(new AlertMail(marks as never, depsOf(run, failing)).sweep()).rejects.toThrow(
      'process killed',
    );
    expect(await mailsOf(run)).toEqual({ owner: 1, admin: 0, viewer: 0 });
    expect(await new AlertMail(marks as never, depsOf(run, outbox)).sweep()).toBe(1);
    expect(await mailsOf(run)).toEqual({ owner: 1, admin: 1, viewer: 0 });
  });
});
