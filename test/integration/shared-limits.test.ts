import type { Server } from 'node:http';
import type { Connection } from 'mongoose';
import { randomUUID } from 'node:crypto';
import { connectMongo } from '../../src/persistence/mongo';
import { LIMIT_COLLECTION, SharedLimits } from '../../src/persistence/shared-limits';
import { buildApi } from '../../src/main/wiring';
import { createLogger } from '../../src/infra/logger';
import { connectTestMongo } from '../helpers/stack';
import { useStack } from '../helpers/use-stack';
import { ApiClient } from '../helpers/http';
import { awayFromWindowEnd } from '../helpers/fixed-windows';
import { DashboardBrowser, PASSWORD, signedInMember } from '../helpers/dashboard';

// The limits that protect, counted in the store every API replica shares
// (docs/decisions/api/shared-limit-counters.md): the counter on the real FerretDB under concurrent
// hits from two "processes" (no count lost, none doubled), its sweep, its cost per hit; then two
// API instances on two connections, sharing nothing in memory, and a client alternating between
// them: every limit holds at its configured number, not twice it.

jest.setTimeout(120_000);

describe('shared limit counters on FerretDB', () => {
  let a: Connection;
  let b: Connection;
  beforeAll(async () => {
    a = await connectTestMongo();
    // Another connection to the same database: another process's view.
    b = await connectMongo(`${process.env.TEST_MONGODB_URL}/${a.name}`);
    await SharedLimits.on(a).init();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('counts concurrent hits from two processes exactly: each hit gets its own number, none lost', async () => {
    await awayFromWindowEnd(60_000);
    const one = SharedLimits.on(a).counter('burst', 60_000, { releases: false });
    const two = SharedLimits.on(b).counter('burst', 60_000, { releases: false });
    const hits = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).hit('the-key').then((h) => h.count)),
    );
    expect([...hits].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await two.count('the-key')).count).toBe(40);
    expect((await one.count('another-key')).count).toBe(0);
  });

  it('un-counts released hits, whichever process released them', async () => {
    await awayFromWindowEnd(60_000);
    const one = SharedLimits.on(a).counter('released', 60_000);
    const two = SharedLimits.on(b).counter('released', 60_000);
    await Promise.all([one.hit('k'), two.hit('k'), one.hit('k'), two.hit('k')]);
    await Promise.all([one.release('k'), two.release('k'), two.release('k')]);
    expect((await one.count('k')).count).toBe(1);
    expect((await two.hit('k')).count).toBe(2);
  });

  it('costs one insert per hit when one process counts the key, three when two alternate, and stores no key in clear', async () => {
    await awayFromWindowEnd(60_000);
    const counter = SharedLimits.on(a, { sweepEveryMs: 3_600_000 }).counter('cost', 60_000, {
      releases: false,
    });
    await counter.hit('198.51.100.7');
    const commands: string[] = [];
    a.set('debug', (collection: string, method: string) => {
      if (collection === LIMIT_COLLECTION) commands.push(method);
    });
    try {
      await counter.hit('198.51.100.7');
    } finally {
      a.set('debug', false);
    }
    expect(commands).toEqual(['insertOne']);
    // Two processes alternating on one key (two replicas behind a round-robin proxy): the slot this
    // one expected is taken, one read finds the next free one.
    const elsewhere = SharedLimits.on(b, { sweepEveryMs: 3_600_000 }).counter('cost', 60_000, {
      releases: false,
    });
    await elsewhere.hit('198.51.100.7');
    commands.length = 0;
    a.set('debug', (collection: string, method: string) => {
      if (collection === LIMIT_COLLECTION) commands.push(method);
    });
    try {
      expect((await counter.hit('198.51.100.7')).count).toBe(4);
    } finally {
      a.set('debug', false);
    }
    expect(commands).toEqual(['insertOne', 'findOne', 'insertOne']);
    const ids = await a
      .collection(LIMIT_COLLECTION)
      .find({}, { projection: { _id: 1 } })
      .toArray();
    expect(ids.map((d) => String(d._id)).filter((id) => id.includes('198.51.100'))).toEqual([]);
  });

  it('sweeps the windows that ended, at most once per period per process, and keeps the current one', async () => {
    let now = Date.UTC(2026, 0, 1, 10, 0, 30);
    const limits = SharedLimits.on(a, { sweepEveryMs: 5 * 60_000, now: () => now });
    const counter = limits.counter('sweep', 60_000, { releases: false });
    await counter.hit('old');
    await counter.hit('old');
    // The window of 10:00 ends at 10:01.
    const stored = () =>
      a.collection(LIMIT_COLLECTION).countDocuments({ windowEnd: new Date(Date.UTC(2026, 0, 1, 10, 1)) });
    expect(await stored()).toBe(2);
    // Two minutes later: the old window ended, but this process swept less than 5 minutes ago.
    now += 2 * 60_000;
    await counter.hit('new');
    await new Promise((res) => setTimeout(res, 200));
    expect(await stored()).toBe(2);
    // Past the period: the next hit sweeps the ended window, not the current one.
    now += 4 * 60_000;
    await counter.hit('newer');
    await eventually(async () => (await stored()) === 0);
    expect((await counter.count('newer')).count).toBe(1);
    expect(await limits.sweep(now)).toBe(0);
    expect(await limits.sweep(now + 60_000)).toBe(1);
  });
});

async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('never became true');
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('two API replicas share every limit that protects', () => {
  const servers: Server[] = [];
  let other: Connection | null = null;
  const { stack, merchant } = useStack({
    config: {
      DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: '6',
      DASHBOARD_LOCKOUT_AFTER: '3',
      DASHBOARD_SIGN_IN_FAILURES_PER_ACCOUNT: '4',
      DASHBOARD_RESET_MAILS_PER_ADDRESS: '3',
      DASHBOARD_INVITATIONS_PER_HOUR: '3',
      CHECKOUT_REQUESTS_PER_MINUTE: '8',
      CHECKOUT_ANSWERS_PER_MINUTE: '3',
      RECIPIENT_CHECKS_PER_MINUTE: '3',
    },
    beforeStop: async () => {
      // A successful sign-in un-counts itself after its answer: let that land before closing.
      await new Promise((res) => setTimeout(res, 300));
      await Promise.all(servers.map((s) => new Promise<void>((res) => s.close(() => res()))));
      await other?.close();
    },
  });
  /** The stack's API and a second one: its own connection, its own everything, the same database. */
  let bases: [string, string];
  beforeAll(async () => {
    other = await connectMongo(`${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`);
    const app = await buildApi({
      config: stack.config,
      mongo: other,
      temporal: stack.env.client,
      logger: createLogger('silent'),
    });
    const server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    servers.push(server);
    const addr = server.address();
    bases = [stack.baseUrl, `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`];
  });

  let nextAddress = 1;
  /** A browser of a fresh client address whose requests alternate between the two replicas. */
  const alternating = () => {
    const address = `192.0.2.${nextAddress++}`;
    const browsers = bases.map((b) => new DashboardBrowser(b, address));
    let i = 0;
    return () => browsers[i++ % 2]!;
  };
  const statusesOf = async (n: number, call: (i: number) => Promise<{ status: number; body: any }>) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call(i);
      out.push(res.status >= 400 ? `${res.status} ${res.body?.code}` : String(res.status));
    }
    return out;
  };

  it('sign-in per client address: 6 failures, then 429, across both replicas', async () => {
    await awayFromWindowEnd(60_000);
    const next = alternating();
    const answers = await statusesOf(8, (i) =>
      next().signIn(`nobody-${i}-${randomUUID().slice(0, 6)}@example.test`, 'guess'),
    );
    expect(answers).toEqual([...Array(6).fill('401 SIGN_IN_FAILED'), '429 RATE_LIMITED', '429 RATE_LIMITED']);
  });

  it('sign-in per account and client address, and per account from everywhere, across both replicas', async () => {
    await awayFromWindowEnd(stack.config.DASHBOARD_LOCKOUT);
    const { email } = await signedInMember(stack, merchant.merchantId, 'viewer');
    const here = alternating();
    expect(await statusesOf(5, () => here().signIn(email, 'wrong password'))).toEqual([
      ...Array(3).fill('401 SIGN_IN_FAILED'),
      '429 SIGN_IN_LOCKED',
      '429 SIGN_IN_LOCKED',
    ]);
    // From elsewhere, one failure each: the account's fourth failure is the last one answered.
    expect(await statusesOf(3, () => alternating()().signIn(email, 'wrong password'))).toEqual([
      '401 SIGN_IN_FAILED',
      '429 SIGN_IN_LOCKED',
      '429 SIGN_IN_LOCKED',
    ]);
    // The member's own place (where the invitation was accepted and it signed in) is spared.
  });

  it('password-reset mail per client address: 3, then 429, across both replicas', async () => {
    await awayFromWindowEnd(60_000);
    const next = alternating();
    const answers = await statusesOf(5, (i) =>
      next().post('/dashboard/api/auth/password-reset', { email: `someone-${i}@example.test` }),
    );
    expect(answers).toEqual(['202', '202', '202', '429 RATE_LIMITED', '429 RATE_LIMITED']);
  });

  it('invitations per merchant: 3 an hour, then 429, across both replicas', async () => {
    await awayFromWindowEnd(3_600_000);
    const { browser } = await signedInMember(stack, merchant.merchantId, 'owner');
    const other = new DashboardBrowser(bases[1], browser.address);
    other.cookie = browser.cookie;
    other.csrf = browser.csrf;
    const answers = await statusesOf(5, (i) =>
      (i % 2 ? other : browser).post('/dashboard/api/team/invitations', {
        email: `invited-${i}-${randomUUID().slice(0, 6)}@example.test`,
        role: 'viewer',
      }),
    );
    expect(answers).toEqual(['201', '201', '201', '429 RATE_LIMITED', '429 RATE_LIMITED']);
  });

  it('checkout per client address and per session, across both replicas', async () => {
    await awayFromWindowEnd(60_000);
    const next = alternating();
    const answers = await statusesOf(4, () =>
      next().request('POST', '/checkout/ps_unknown/confirm', { provider: 'MTN', msisdn: 'x' }),
    );
    expect(answers.slice(0, 3).every((a) => a !== '429 RATE_LIMITED')).toBe(true);
    expect(answers[3]).toBe('429 RATE_LIMITED');
    const reads = alternating();
    const polls = await statusesOf(10, () => reads().get('/checkout/ps_unknown/status'));
    expect(polls.slice(0, 8).every((a) => a !== '429 RATE_LIMITED')).toBe(true);
    expect(polls.slice(8)).toEqual(['429 RATE_LIMITED', '429 RATE_LIMITED']);
  });

  it('recipient checks per merchant and mode: 3, then 429, across both replicas', async () => {
    await awayFromWindowEnd(60_000);
    const clients = bases.map((b) => new ApiClient(b, merchant.credentials));
    const answers = await statusesOf(5, (i) =>
      clients[i % 2]!.get(`/v1/providers/recipient?msisdn=%2B225050000000${i + 1}&country=CI`),
    );
    expect(answers).toEqual(['200', '200', '200', '429 RATE_LIMITED', '429 RATE_LIMITED']);
  });

  it('the sign-in of a member is still served, by either replica, from an address not refused', async () => {
    const { email } = await signedInMember(stack, merchant.merchantId, 'viewer');
    const next = alternating();
    expect((await next().signIn(email, PASSWORD)).status).toBe(200);
    expect((await next().signIn(email, PASSWORD)).status).toBe(200);
  });
});
