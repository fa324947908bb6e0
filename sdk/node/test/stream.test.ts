import { EventStream, type WebhookEvent } from '../src/index';
import { action, client, eventually, msisdn, ref, stackAvailable } from './helpers';

// The WebSocket event stream (docs/events.md) against the running stack: events of payins made
// while it is open, a resume from the last event after a closed connection, and an automatic
// reconnection that resumes after a dropped one.

const momo = client();
const describeStack = stackAvailable ? describe : describe.skip;

describeStack('the event stream', () => {
  const opened: EventStream[] = [];
  afterAll(() => opened.forEach((s) => s.close()));
  test('the event stream, resumed after a closed and after a dropped connection', async () => {
    const payin = (reference: string) =>
      momo.payins.createDirect({
        reference,
        sandboxScenario: 'completed',
        payin: { amount: 1500, msisdn, provider: 'MTN', country: 'CI' },
        action,
      });
    const eventFor = (stream: EventStream, reference: string) =>
      new Promise<WebhookEvent>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no payin.completed event for ${reference} in 30 s`)),
          30_000,
        );
        const onEvent = (e: WebhookEvent) => {
          if (e.type === 'payin.completed' && e.data.reference === reference) {
            clearTimeout(timer);
            stream.off('event', onEvent);
            resolve(e);
          }
        };
        stream.on('event', onEvent);
      });

    const first = await momo.events.stream();
    opened.push(first);
    const one = ref('ws1');
    const seenOne = eventFor(first, one);
    await payin(one);
    await seenOne;
    // The stack is shared with the other suites and the fuzz, so the last event this stream saw
    // may be another payin's: the resume is from whatever it saw last, not from `one`'s event.
    expect(first.lastEventId).toBeDefined();
    const resumeFrom = first.lastEventId as string;
    first.close();

    // While no stream is open: a payin whose event the resume must bring.
    const two = ref('ws2');
    await payin(two);
    await eventually('the second payin', async () =>
      (await momo.payins.get(two)).status === 'success' ? true : undefined,
    );
    await eventually('its event', async () =>
      (await momo.events.list({ reference: two, type: 'payin.completed' })).data[0] ? true : undefined,
    );

    const second = new EventStream(momo.core, { lastEventId: resumeFrom });
    opened.push(second);
    const seenTwo = eventFor(second, two);
    const subscribed = await second.connect();
    expect(subscribed.resumedAfter).toBe(resumeFrom);
    expect(subscribed.replayed).toBeGreaterThan(0);
    await seenTwo;

    // A dropped connection: the stream reconnects by itself and resumes after its last event.
    const reconnected = new Promise<number>((resolve) => second.once('reconnecting', resolve));
    const resubscribed = new Promise((resolve) => second.once('subscribed', resolve));
    second.dropConnection();
    expect(await reconnected).toBe(1);
    await resubscribed;
    const three = ref('ws3');
    const seenThree = eventFor(second, three);
    await payin(three);
    await seenThree;
    second.close();
  });
});
