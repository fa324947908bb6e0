import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { storedDirectPayin } from '../helpers/payin-input';
import { buildActivityDeps } from '../../src/main/wiring';
import { configSchema } from '../../src/config';
import { createRefundActivities } from '../../activities/refund/refund-activities';
import type { ActivityDeps } from '../../activities';
import type { OpenRefundInput } from '../../activities/refund/refund-activities';

// A payin lists its refunds' ids, so its status read and its events fetch them by `_id` (the only
// lookup FerretDB 1.24 indexes) instead of searching every refund. Against the real FerretDB.
describe('a payin keeps the list of its refunds', () => {
  let mongo: Connection;
  let deps: ActivityDeps;
  let activities: ReturnType<typeof createRefundActivities>;
  beforeAll(async () => {
    mongo = await connectTestMongo();
    deps = await buildActivityDeps({ mongo, config: configSchema.parse({}) });
    activities = createRefundActivities(deps);
  });
  afterAll(async () => {
    await mongo?.close();
  });

  async function storePayin(extra: { refundIds?: string[] }) {
    const id = `pr_${randomUUID().slice(0, 12)}`;
    const merchantId = `mer_${randomUUID().slice(0, 8)}`;
    const payin = { ...storedDirectPayin({ id, merchantId, reference: id, workflowId: id }), ...extra };
    await deps.transactions.insertOrGet({ ...payin, status: 'success' });
    await deps.ledger.transfer({
      sourceRef: `fund:${id}`,
      fromAccountId: await deps.ledger.systemAccountId('sandbox-funding', 'XOF', 'test'),
      toAccountId: await deps.ledger.mainAccountId(merchantId, 'XOF'),
      amount: 10_000,
      reason: 'test funding',
    });
    return payin;
  }
  const refundOf = (payinId: string, n: number): OpenRefundInput => ({
    refundId: `rf_${payinId}_${n}`,
    transactionRef: `txr_${payinId}_${n}`,
    payinId,
    externalReference: `ext-${n}`,
    reason: 'test',
    amount: 100,
    refundType: 'partial',
    operator: 'MTN',
    country: 'CI',
    sandboxScenario: 'completed',
    idempotencyKey: null,
    apiKey: null,
    requestedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    workflowId: `refund-${payinId}-${n}`,
  });
  const listed = async (payinId: string) => (await deps.transactions.findById(payinId))?.refundIds;
  const read = async (payinId: string) =>
    (await deps.refunds.ofPayin((await deps.transactions.findById(payinId))!)).map((r) => r.id);

  // As the payin's workflow does: open the refund, then write the list of those opened so far.
  const open = async (payinId: string, n: number, opened: number[]) => {
    await activities.openRefund(refundOf(payinId, n));
    await activities.listPayinRefunds(
      payinId,
      opened.map((k) => `rf_${payinId}_${k}`),
    );
  };

  it('lists each refund once, in order, however often a step is retried', async () => {
    const payin = await storePayin({ refundIds: [] });
    await open(payin.id, 1, [1]);
    await open(payin.id, 2, [1, 2]);
    await open(payin.id, 2, [1, 2]); // a retry after a crash
    expect(await listed(payin.id)).toEqual([`rf_${payin.id}_1`, `rf_${payin.id}_2`]);
    expect(await read(payin.id)).toEqual([`rf_${payin.id}_1`, `rf_${payin.id}_2`]);
  });

  it('reads the listed refunds only: it does not search the refunds collection', async () => {
    const payin = await storePayin({ refundIds: [] });
    await open(payin.id, 1, [1]);
    // A refund document the payin does not list (written behind the store's back) is not read.
    const stray = { ...(await deps.refunds.findById(`rf_${payin.id}_1`))!, id: `rf_${payin.id}_x` };
    await deps.refunds.insertOrGet({
      ...stray,
      externalReference: 'stray',
      transactionRef: `txr_stray_${payin.id}`,
    });
    expect(await read(payin.id)).toEqual([`rf_${payin.id}_1`]);
  });

  it('a payin stored before the list existed gets its earlier refunds listed with its next one', async () => {
    const payin = await storePayin({});
    await activities.openRefund(refundOf(payin.id, 1)); // as the earlier version did: no list
    expect(await listed(payin.id)).toBeUndefined();
    expect(await read(payin.id)).toEqual([`rf_${payin.id}_1`]); // found by searching, as before
    await open(payin.id, 2, [2]); // the workflow (patched since) knows only its new refund
    expect(await listed(payin.id)).toEqual([`rf_${payin.id}_1`, `rf_${payin.id}_2`]);
    expect(await read(payin.id)).toEqual([`rf_${payin.id}_1`, `rf_${payin.id}_2`]);
  });
});
