import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import ExcelJS from 'exceljs';
import express from 'express';
import { useStack } from '../helpers/use-stack';
import { ApiClient, eventually } from '../helpers/http';
import { createTestMerchant, fundMerchant, type TestMerchant } from '../helpers/merchants';
import { dashboardDataRoutes } from '../../src/dashboard/routes/data';
import type { Role } from '../../src/dashboard/access/roles';
import { errorHandler } from '../../src/api/problem';
import { jsonBody } from '../../src/api/json-body';
import { MerchantService } from '../../src/merchants';
import { Ledger } from '../../src/ledger';
import { TransactionStore } from '../../src/persistence/transactions';
import { RefundStore } from '../../src/persistence/refunds';
import { EventStore } from '../../src/events/event-store';
import { EndpointStore } from '../../src/webhooks/endpoint-store';
import { DeliveryLog } from '../../src/webhooks/delivery-log';
import { RequestLogStore } from '../../src/request-log/store';
import { merchantOfScope } from '../../src/domain/modes';
import { ReadChains } from '../../src/persistence/read-chains';
import { streamOf, type IndexMember } from '../../src/persistence/transaction-index';
import { auditQueries } from '../helpers/query-audit';
import { seedHistory } from '../helpers/seed-history';

// The dashboard's data routes (src/dashboard/routes/data.ts) over the real stack: a tiny app stands
// for the access part's session (it sets req.member and req.merchantId from two test headers), then
// mounts the router and the API's error handler, as /dashboard/api does.

describe('dashboard data routes', () => {
  const { stack, merchant: alice, api } = useStack({ fund: 1_000_000 });
  let bob: TestMerchant;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    bob = await createTestMerchant(stack, 'Bob');
    await fundMerchant(stack, bob.merchantId, 10_000);
    const app = express();
    app.use(jsonBody());
    app.use('/dashboard/api', (req, _res, next) => {
      const scope = req.get('x-test-scope');
      const role = req.get('x-test-role') as Role | undefined;
      if (scope && role) {
        req.merchantId = scope;
        req.member = {
          id: 'mem_test',
          email: 'dev@merchant.example',
          name: 'Dev',
          role,
          merchantId: merchantOfScope(scope),
          totpEnabled: false,
        };
      }
      next();
    });
    app.use(
      '/dashboard/api',
      dashboardDataRoutes({
        mongo: stack.mongo,
        merchants: MerchantService.on(stack.mongo),
        ledger: Ledger.on(stack.mongo),
        transactions: TransactionStore.on(stack.mongo),
        refunds: RefundStore.on(stack.mongo),
        events: EventStore.on(stack.mongo),
        endpoints: EndpointStore.on(stack.mongo, stack.config.DATA_ENCRYPTION_KEYS),
        deliveries: DeliveryLog.on(stack.mongo),
        requestLog: RequestLogStore.on(stack.mongo),
      }),
    );
    app.use(errorHandler(() => undefined));
    server = await new Promise<Server>((res) => {
      const s = app.listen(0, '127.0.0.1', () => res(s));
    });
    const addr = server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/dashboard/api`;
  });
  afterAll(async () => {
    await new Promise<void>((res) => server?.close(() => res()));
  });

  /** A dashboard call as a member of `scope` with `role`. */
  const as = async (
    role: Role,
    scope: string,
    method: string,
    path: string,
    body?: string | Buffer,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-test-role': role, 'x-test-scope': scope, ...headers },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };

  const payinRef = `dash-${randomUUID()}`;
  const idemKey = randomUUID();
  let payinId: string;

  it('records API requests, masked, and lists them newest first with filters and a cursor', async () => {
    const created = await api.post(
      '/v1/direct/payin',
      {
        reference: payinRef,
        sandboxScenario: 'completed',
        customerName: 'Kouassi Yao',
        payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
        action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
      },
      { 'x-idempotency-key': idemKey },
    );
    expect(created.status).toBe(201);
    payinId = (created.body as { id: string }).id;
    const refused = await api.post('/v1/direct/payin', { reference: 'x' });
    expect(refused.status).toBe(400);
    await api.get('/v1/accounts?reference=+2250500000001');

    const listed = await eventually(
      () => as('developer', alice.merchantId, 'GET', '/requests'),
      (r) => r.status === 200 && r.body.data.length >= 3,
    );
    const [last, , first] = listed.body.data;
    expect(last).toMatchObject({ method: 'GET', status: 200, apiKey: alice.credentials.apiKey });
    expect(first).toMatchObject({
      method: 'POST',
      path: '/v1/direct/payin',
      status: 201,
      idempotencyKey: idemKey,
      problemCode: null,
    });
    expect(first.durationMs).toEqual(expect.any(Number));
    expect(first.requestBody).toContain(payinRef);
    // No phone number nor name in clear, in any body or path.
    expect(listed.text).not.toContain('2250500000001');
    expect(listed.text).not.toContain('Kouassi Yao');
    expect(first.requestBody).toContain('+225******0001');

    const errors = await as('developer', alice.merchantId, 'GET', '/requests?statusClass=4xx&method=post');
    expect(errors.body.data).toEqual([
      expect.objectContaining({
        status: 400,
        problemCode: 'VALIDATION_ERROR',
        problemType: '/docs/errors#VALIDATION_ERROR',
      }),
    ]);
    const byKey = await as('developer', alice.merchantId, 'GET', `/requests?idempotencyKey=${idemKey}`);
    expect(byKey.body.data.map((e: { status: number }) => e.status)).toEqual([201]);
    const byPath = await as('developer', alice.merchantId, 'GET', '/requests?pathPrefix=/v1/accounts');
    expect(byPath.body.data).toHaveLength(1);

    const page1 = await as('developer', alice.merchantId, 'GET', '/requests?limit=2');
    expect(page1.body.data).toHaveLength(2);
    const page2 = await as(
      'developer',
      alice.merchantId,
      'GET',
      `/requests?limit=2&cursor=${page1.body.nextCursor}`,
    );
    expect(page2.body.data[0].id).toBe(first.id);

    // Roles and tenants: a viewer is refused, another merchant sees none of it.
    expect((await as('viewer', alice.merchantId, 'GET', '/requests')).body.code).toBe('ROLE_FORBIDDEN');
    expect((await as('developer', bob.merchantId, 'GET', '/requests')).body.data).toEqual([]);
    expect((await as('developer', alice.live.merchantId, 'GET', '/requests')).body.data).toEqual([]);
    expect((await as('developer', alice.merchantId, 'GET', '/requests?cursor=nope')).status).toBe(400);
  });

  it('answers the home figures: balances, today, month, rates per operator and 30 days', async () => {
    await eventually(
      () => api.get(`/v1/payin/${payinRef}`),
      (r) => (r.body as { status: string }).status === 'success',
    );
    const home = await as('viewer', alice.merchantId, 'GET', '/home');
    expect([home.status, home.body.ready]).toEqual([200, true]);
    expect(home.body.balances).toEqual([expect.objectContaining({ currency: 'XOF' })]);
    expect(home.body.today).toMatchObject({ payins: 1, payouts: 0, refunds: 0 });
    expect(home.body.today.volumes).toEqual([{ currency: 'XOF', payins: 5000, payouts: 0, refunds: 0 }]);
    expect(home.body.month.payins).toBe(1);
    expect(home.body.successRates).toEqual([{ provider: 'MTN_CI', final: 1, success: 1, rate: 1 }]);
    expect(home.body.series).toHaveLength(30);
    expect(home.body.series[29]).toMatchObject({ payins: 1 });
    // Folded once: a second visit reads what was appended since (nothing) and answers the same.
    const again = await as('viewer', alice.merchantId, 'GET', '/home');
    expect(again.body.today).toEqual(home.body.today);
    // Bob's home shows nothing of Alice's.
    const bobs = await as('viewer', bob.merchantId, 'GET', '/home');
    expect(bobs.body.today.payins).toBe(0);
    expect(bobs.body.successRates).toEqual([]);
    expect(
      (await as('viewer', alice.merchantId, 'GET', '/home', undefined, { 'x-test-role': '' })).body.code,
    ).toBe('SESSION_REQUIRED');
  });

  it("answers a scope's figures on its first visit from a scan of its records, bounded, and no member twice", async () => {
    // 800 transactions over 40 days (9 in 10 in the window: more than the fold walks by `_id`), the
    // last 3 pending, the newest a minute old (folded from the chain, not the scan).
    const scope = `mer_${randomUUID().replace(/-/g, '').slice(0, 24)}_test`;
    const DAY = 86_400_000;
    const now = Date.now();
    const count = 800;
    const step = (40 * DAY) / count;
    const seeded = await seedHistory(stack.mongo, {
      merchantId: scope,
      count,
      from: now - 60_000 - (count - 1) * step,
      to: now - 60_000 + step,
      tag: `h${randomUUID().slice(0, 8)}`,
      pending: 3,
    });
    // The figures, computed here from what was seeded (UTC days; XOF has no minor unit).
    const dayOf = (d: Date | number) => new Date(d).toISOString().slice(0, 10);
    const series = Array.from({ length: 30 }, (_, k) => dayOf(now - (29 - k) * DAY));
    const figures = (days: string[], rs = seeded) => {
      const of = rs.filter((r) => days.includes(dayOf(r.createdAt)));
      const won = of.filter((r) => r.status === 'success' || r.status === 'completed');
      const sum = (kind: string) => won.filter((r) => r.kind === kind).reduce((a, r) => a + r.amount, 0);
      return {
        payins: of.filter((r) => r.kind === 'payin').length,
        payouts: of.filter((r) => r.kind === 'payout').length,
        refunds: 0,
        volumes: won.length
          ? [{ currency: 'XOF', payins: sum('payin'), payouts: sum('payout'), refunds: 0 }]
          : [],
      };
    };
    const expected = (rs = seeded) => ({
      today: figures([dayOf(now)], rs),
      month: figures(
        Array.from({ length: 31 }, (_, k) => dayOf(now - k * DAY)).filter((d) =>
          d.startsWith(dayOf(now).slice(0, 7)),
        ),
        rs,
      ),
      series: series.map((day) => ({ day, ...figures([day], rs) })),
      pending: rs.filter((r) => r.status === 'pending').length,
    });

    const first = await auditQueries(stack.mongo, () => as('viewer', scope, 'GET', '/home'));
    const home = first.result.body;
    expect(home.ready).toBe(true);
    expect({ today: home.today, month: home.month, series: home.series, pending: home.pending }).toEqual(
      expected(),
    );
    const rates = new Map<string, { final: number; success: number }>();
    for (const r of seeded.filter((r) => series.includes(dayOf(r.createdAt)) && r.status !== 'pending')) {
      const o = rates.get(r.provider) ?? { final: 0, success: 0 };
      rates.set(r.provider, { final: o.final + 1, success: o.success + (r.status === 'failed' ? 0 : 1) });
    }
    expect(home.successRates).toEqual(
      [...rates]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([provider, o]) => ({ provider, ...o, rate: expect.any(Number) })),
    );
    // Bounded: a walk by `_id` reads three documents per transaction (its entry, its record, a
    // version probe); the scan reads each collection in a few batches.
    const reads = first.commands.filter((c) =>
      ['transaction_index', 'transactions', 'transaction_states', 'refunds'].includes(c.collection ?? ''),
    );
    expect(reads.length).toBeLessThan(100);

    // A pending one finishes late: folded at the next visit. And a retry that lists a scanned member
    // again (under its own time, at the head) does not count it twice.
    const late = seeded.find((r) => r.status === 'pending')!;
    await stack.mongo
      .db!.collection<{ _id: string }>('transactions')
      .updateOne({ _id: late.id }, { $set: { status: 'success' } });
    const old = seeded[count - 100]!;
    await new ReadChains<IndexMember>(stack.mongo, 'transaction_index').append(
      streamOf(scope, { by: 'all' }),
      `${old.kind}:${old.id}@${old.createdAt.getTime()}`,
      old.createdAt,
      { kind: old.kind, id: old.id },
    );
    const after = seeded.map((r) => (r === late ? { ...r, status: 'success' as const } : r));
    const again = (await as('viewer', scope, 'GET', '/home')).body;
    expect({ today: again.today, month: again.month, series: again.series, pending: again.pending }).toEqual(
      expected(after),
    );
  });

  it('finds transactions by a part of their reference or the last digits of the number', async () => {
    const part = payinRef.slice(8, 20).toUpperCase();
    const byRef = await as('viewer', alice.merchantId, 'GET', `/transactions/search?q=${part}`);
    expect(byRef.body.data.map((r: { reference: string }) => r.reference)).toEqual([payinRef]);
    const byPhone = await as('viewer', alice.merchantId, 'GET', '/transactions/search?phone=0001');
    expect(byPhone.body.data.map((r: { reference: string }) => r.reference)).toEqual([payinRef]);
    expect(
      (await as('viewer', alice.merchantId, 'GET', '/transactions/search?phone=9999')).body.data,
    ).toEqual([]);
    expect((await as('viewer', bob.merchantId, 'GET', `/transactions/search?q=${part}`)).body.data).toEqual(
      [],
    );
    expect(
      (await as('viewer', alice.live.merchantId, 'GET', '/transactions/search?phone=0001')).body.data,
    ).toEqual([]);
    const neither = await as('viewer', alice.merchantId, 'GET', '/transactions/search');
    expect([neither.status, neither.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await as('viewer', alice.merchantId, 'GET', '/transactions/search?phone=12a4')).status).toBe(400);
  });

  it("tells a transaction's timeline from its records, and 404 for another merchant's", async () => {
    const t = await as('viewer', alice.merchantId, 'GET', `/transactions/${payinId}/timeline`);
    expect(t.status).toBe(200);
    expect(t.body.kind).toBe('payin');
    // It starts with what the create's 201 said (issue 44 §1: it said `pending`).
    expect(t.body.statuses.map((s: { status: string }) => s.status)).toEqual(['processing', 'success']);
    expect(t.body.events.map((e: { type: string }) => e.type)).toEqual(['payin.completed']);
    expect(t.body.ledger.map((e: { reason: string }) => e.reason)).toEqual(
      expect.arrayContaining([expect.any(String)]),
    );
    expect(t.body.ledger.length).toBeGreaterThan(0);
    expect(t.text).not.toContain('2250500000001');
    const other = await as('viewer', bob.merchantId, 'GET', `/transactions/${payinId}/timeline`, undefined, {
      'accept-language': 'fr',
    });
    expect([other.status, other.body.code, other.body.title]).toEqual([
      404,
      'TRANSACTION_NOT_FOUND',
      'Transaction introuvable',
    ]);
    expect((await as('viewer', alice.merchantId, 'GET', '/transactions/nope/timeline')).status).toBe(404);
  });

  it('lists, creates and revokes API keys, never the last active one of a mode', async () => {
    const listed = await as('developer', alice.merchantId, 'GET', '/keys');
    expect(listed.body.data.map((k: { mode: string }) => k.mode).sort()).toEqual(['live', 'test']);
    expect(listed.text).not.toMatch(/secretHash|apiClient/);
    expect((await as('support', alice.merchantId, 'GET', '/keys')).status).toBe(403);

    const created = await as(
      'developer',
      alice.merchantId,
      'POST',
      '/keys',
      JSON.stringify({ mode: 'test' }),
      {
        'content-type': 'application/json',
      },
    );
    expect(created.status).toBe(201);
    const fresh = new ApiClient(stack.baseUrl, {
      apiKey: created.body.apiKey,
      apiClient: created.body.apiClient,
    });
    expect((await fresh.get('/v1/accounts')).status).toBe(200);
    expect((await as('developer', alice.merchantId, 'GET', '/keys')).text).not.toContain(
      created.body.apiClient,
    );

    const revoked = await as('developer', alice.merchantId, 'DELETE', `/keys/${created.body.apiKey}`);
    expect(revoked.body).toMatchObject({ apiKey: created.body.apiKey, status: 'revoked' });
    // Refused at once by a process that never saw the key (the API's own cache keeps it a few seconds).
    expect(
      await MerchantService.on(stack.mongo).authenticate(created.body.apiKey, created.body.apiClient),
    ).toBeNull();
    const last = await as('developer', alice.merchantId, 'DELETE', `/keys/${alice.credentials.apiKey}`);
    expect([last.status, last.body.code]).toEqual([409, 'LAST_ACTIVE_KEY']);
    // A developer manages test keys only: the live key production uses is not theirs to revoke.
    const live = await as('developer', alice.merchantId, 'DELETE', `/keys/${alice.live.credentials.apiKey}`);
    expect([live.status, live.body.code]).toEqual([403, 'ROLE_FORBIDDEN']);
    const bobs = await as('developer', alice.merchantId, 'DELETE', `/keys/${bob.credentials.apiKey}`);
    expect([bobs.status, bobs.body.code]).toEqual([404, 'API_KEY_NOT_FOUND']);
    const bad = await as('developer', alice.merchantId, 'POST', '/keys', JSON.stringify({ mode: 'prod' }), {
      'content-type': 'application/json',
    });
    expect(bad.status).toBe(400);
  });

  it('previews a CSV or XLSX of payouts row by row with the bulk check, sending nothing', async () => {
    const sample = readFileSync('docs/examples/bulk-payouts.csv');
    const ok = await as('admin', alice.merchantId, 'POST', '/payouts/bulk/preview', sample, {
      'content-type': 'text/csv',
    });
    expect(ok.status).toBe(200);
    expect([ok.body.valid, ok.body.invalid, ok.body.rows.length]).toEqual([50, 0, 50]);
    expect(ok.body.totals).toEqual([
      { currency: 'XOF', count: 50, amount: 50 * 5000 + 100 * ((50 * 51) / 2) },
    ]);
    expect(ok.body.rows[0]).toMatchObject({
      line: 2,
      errors: [],
      item: { reference: 'salary-2026-11-001', metadata: { employee: 'E-001' } },
    });
    // The item is what POST /v1/payouts/bulk takes, posted as is by the page: no parser's tag in it.
    expect(ok.body.rows[0].item).not.toHaveProperty('shape');

    const csv =
      'reference;amount;msisdn;country\nr-1;1 000;+2250500020001;ci\nr-2;-5;0500;CI\nr-1;10;+2250500020001;CI\n';
    const mixed = await as('admin', alice.merchantId, 'POST', '/payouts/bulk/preview', csv, {
      'content-type': 'text/csv; charset=utf-8',
      'accept-language': 'fr',
    });
    expect([mixed.body.valid, mixed.body.invalid]).toEqual([1, 2]);
    expect(mixed.body.rows[1].errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'amount',
      'msisdn',
    ]);
    expect(mixed.body.rows[2].errors[0].message).toMatch(/déjà utilisée/);

    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Payouts');
    sheet.addRow(['reference', 'amount', 'msisdn', 'country']);
    sheet.addRow(['x-1', 2500, 2250500020001, 'CI']);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    const fromXlsx = await as('owner', alice.merchantId, 'POST', '/payouts/bulk/preview', xlsx, {
      'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    expect(fromXlsx.body.rows).toEqual([
      {
        line: 2,
        errors: [],
        item: expect.objectContaining({ reference: 'x-1', amount: 2500, msisdn: '+2250500020001' }),
      },
    ]);

    const broken = await as(
      'owner',
      alice.merchantId,
      'POST',
      '/payouts/bulk/preview',
      Buffer.from('PK\u0003\u0004nope'),
      {
        'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    );
    expect([broken.status, broken.body.code]).toEqual([400, 'UPLOAD_UNREADABLE']);
    const pdf = await as('owner', alice.merchantId, 'POST', '/payouts/bulk/preview', 'x', {
      'content-type': 'application/pdf',
    });
    expect(pdf.status).toBe(415);
    expect(
      (
        await as('support', alice.merchantId, 'POST', '/payouts/bulk/preview', sample, {
          'content-type': 'text/csv',
        })
      ).status,
    ).toBe(403);
    // Nothing was sent.
    expect((await api.get('/v1/payout/salary-2026-11-001')).status).toBe(404);
  });
});
