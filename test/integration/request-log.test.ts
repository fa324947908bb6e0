import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { auditQueries } from '../helpers/query-audit';
import { ReadChains } from '../../src/persistence/read-chains';
import { RequestLogStore, newRequestLogId, type RequestLogEntry } from '../../src/request-log/store';

// The request log's store on the real FerretDB: an append is one insert (read chains without
// position documents), the listing walks day streams newest first with its filters and cursor,
// and retention drops whole months.
describe('request log store', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connectTestMongo();
  });
  afterAll(() => conn.close());

  const entry = (scope: string, at: Date, fields: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
    id: newRequestLogId(),
    scope,
    method: 'POST',
    path: '/v1/direct/payin',
    status: 201,
    problemType: null,
    problemCode: null,
    idempotencyKey: null,
    durationMs: 12,
    requestId: randomUUID(),
    apiKey: 'mk_test_x',
    at,
    requestBody: null,
    responseBody: null,
    truncated: false,
    ...fields,
  });

  it('appends without a position document when the chain is told nobody looks members up', async () => {
    const chains = new ReadChains<{ n: number }>(conn, 'test_no_positions', { positions: false });
    await chains.init();
    const stream = `s-${randomUUID()}`;
    await chains.append(stream, 'm1', new Date(), { n: 1 });
    const { commands } = await auditQueries(conn, () => chains.append(stream, 'm2', new Date(), { n: 2 }));
    expect(commands.map((c) => `${c.name} ${c.collection}`)).toEqual(['insert test_no_positions']);
    expect((await chains.range(stream, 1, 10)).map((e) => e.member)).toEqual(['m1', 'm2']);
    expect(await conn.db!.collection('test_no_positions_positions').countDocuments()).toBe(0);
  });

  it('lists a scope newest first across days, filtered, by pages, and drops months past retention', async () => {
    let now = new Date('2026-11-27T10:00:00.000Z');
    const store = RequestLogStore.on(conn, { now: () => now });
    const scope = `mer_${randomUUID().slice(0, 8)}_test`;
    const days = ['2026-10-20', '2026-11-01', '2026-11-26', '2026-11-27'];
    for (const [i, day] of days.entries()) {
      await store.record(entry(scope, new Date(`${day}T09:00:00.000Z`), { requestId: `r${i}a` }));
      await store.record(
        entry(scope, new Date(`${day}T09:30:00.000Z`), {
          requestId: `r${i}b`,
          status: 409,
          problemCode: 'DUPLICATE_REFERENCE',
          idempotencyKey: `k${i}`,
        }),
      );
    }
    await store.record(entry(`mer_other_test`, now));
    // 2026-10-20 is past the 30 days: not listed.
    const all = await store.list(scope, { limit: 100 });
    expect(all.entries.map((e) => e.requestId)).toEqual(['r3b', 'r3a', 'r2b', 'r2a', 'r1b', 'r1a']);
    const conflicts = await store.list(scope, { limit: 100, statusClass: '4xx' });
    expect(conflicts.entries.map((e) => e.requestId)).toEqual(['r3b', 'r2b', 'r1b']);
    expect(
      (await store.list(scope, { limit: 10, idempotencyKey: 'k2' })).entries.map((e) => e.requestId),
    ).toEqual(['r2b']);
    const seen: string[] = [];
    let cursor;
    do {
      const page = await store.list(scope, { limit: 4 }, cursor);
      seen.push(...page.entries.map((e) => e.requestId!));
      cursor = page.next ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['r3b', 'r3a', 'r2b', 'r2a', 'r1b', 'r1a']);

    // Retention: October goes once every one of its days is older than 30 days; November stays.
    now = new Date('2026-11-30T12:00:00.000Z');
    expect(await store.prune()).toEqual([]);
    now = new Date('2026-12-01T00:00:00.000Z');
    const dropped = await store.prune();
    expect(dropped).toEqual(expect.arrayContaining(['request_log_2026_10']));
    expect(dropped.some((n) => n.startsWith('request_log_2026_11'))).toBe(false);
  });
});
