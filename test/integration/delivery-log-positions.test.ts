import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { DeliveryLog, type DeliveryAttempt } from '../../src/webhooks/delivery-log';

// Issue 45: a dispatcher's successful attempt keeps its position in the endpoint's delivery chain in
// the event's outcome (written anyway), not in a position document of its own. The dashboard's
// timeline still finds every attempt by its id: a failed one by its position document, the
// successful one by the outcome, and a successful one whose outcome another delivery recorded first
// by a position document written then. On the real FerretDB.
describe('the delivery log of a dispatcher', () => {
  let conn: Connection;
  let log: DeliveryLog;
  beforeAll(async () => {
    conn = await connectTestMongo();
    log = DeliveryLog.on(conn);
    await log.init();
  });
  afterAll(() => conn.close());

  const attempt = (eventId: string, endpointId: string, n: number, succeeded: boolean): DeliveryAttempt => ({
    deliveryId: `webhook:${eventId}:${endpointId}`,
    attempt: n,
    merchantId: 'mer_1',
    endpointId,
    eventId,
    eventType: 'payin.completed',
    trigger: 'event',
    url: 'https://merchant.example/hook',
    attemptedAt: new Date(),
    succeeded,
    statusCode: succeeded ? 200 : 500,
    latencyMs: 3,
    error: null,
    retryAfterMs: null,
  });

  it('finds a failed attempt and the successful one after it by their ids', async () => {
    const [eventId, endpointId] = [`evt_${randomUUID()}`, `we_${randomUUID()}`];
    const failed = attempt(eventId, endpointId, 1, false);
    const delivered = attempt(eventId, endpointId, 2, true);
    await log.recordListed(failed);
    await log.recordListed(delivered);
    expect(await log.findOf(endpointId, failed.deliveryId, 1, eventId)).toMatchObject({ succeeded: false });
    expect(await log.findOf(endpointId, failed.deliveryId, 2, eventId)).toMatchObject({
      attempt: 2,
      succeeded: true,
    });
    expect(await log.findOf(endpointId, failed.deliveryId, 3, eventId)).toBeNull();
    expect(await log.delivered(eventId, endpointId)).toBe(true);
    expect((await log.list('mer_1', endpointId, { limit: 10 })).attempts.map((a) => a.attempt)).toEqual([
      2, 1,
    ]);
  });

  it('gives a successful attempt a position document when another delivery recorded the outcome first', async () => {
    const [eventId, endpointId] = [`evt_${randomUUID()}`, `we_${randomUUID()}`];
    // A manual redelivery delivered it first (its own delivery id, logged as a document).
    await log.record({ ...attempt(eventId, endpointId, 1, true), deliveryId: `redelivery-${randomUUID()}` });
    const late = attempt(eventId, endpointId, 1, true);
    await log.recordListed(late);
    expect(await log.findOf(endpointId, late.deliveryId, 1, eventId)).toMatchObject({ succeeded: true });
  });
});
