import { Webhook } from 'standardwebhooks';
import type { ApiResponse } from '../helpers/http';
import type { WebhookReceiver } from '../helpers/webhook-receiver';
import type { PatientClient } from './client';

// Which of the merchant's events (as the API lists them) have reached its receiver with a valid
// signature: the chaos suite's "every event delivered" (test/integration/chaos.test.ts).
export class DeliveryCheck {
  private readonly verified = new Set<string>();
  private checked = 0;
  private readonly wh: Webhook;

  constructor(
    private readonly receiver: WebhookReceiver,
    secret: string,
    private readonly client: PatientClient,
  ) {
    this.wh = new Webhook(secret);
  }

  /** The events listed by the API that have not reached the receiver with a valid signature. */
  async undeliveredEvents(): Promise<string[]> {
    for (; this.checked < this.receiver.received.length; this.checked++) {
      const w = this.receiver.received[this.checked]!;
      if (w.status !== 200) continue;
      // The signature as the receiver got it: Standard Webhooks' verify() also refuses a
      // timestamp over 5 minutes old, and this check may run long after the delivery.
      const id = String(w.headers['webhook-id']);
      const sentAt = new Date(Number(w.headers['webhook-timestamp']) * 1000);
      const expected = this.wh.sign(id, sentAt, w.body);
      const given = String(w.headers['webhook-signature'] ?? '').split(' ');
      if (!given.includes(expected)) continue; // forged or broken: not delivered
      const event = JSON.parse(w.body) as { id: string };
      if (event.id === id) this.verified.add(event.id);
    }
    const missing: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse<any> = await this.client.read(
        `/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      if (page.status !== 200) return [`events page answered ${page.status}`];
      for (const e of page.body.data as { id: string; type: string }[])
        if (!this.verified.has(e.id)) missing.push(`${e.type} ${e.id}`);
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
    return missing;
  }
}
