import { startHub2Fake } from './server';

// Runs the Hub2 fake as its own process: PORT, FAKE_HUB2_API_KEY, FAKE_HUB2_MERCHANT_ID,
// FAKE_HUB2_WEBHOOK_SECRET, FAKE_HUB2_OLD_WEBHOOK_SECRET (optional: a rotation under way),
// FAKE_CALLBACK_URL (optional), FAKE_SETTLE_MS (optional). Prints `listening <url>` when ready.
async function main(): Promise<void> {
  const fake = await startHub2Fake({
    port: Number(process.env.PORT ?? 0),
    apiKey: process.env.FAKE_HUB2_API_KEY ?? 'hub2_fake_key',
    merchantId: process.env.FAKE_HUB2_MERCHANT_ID ?? 'fake-merchant',
    webhookSecret: process.env.FAKE_HUB2_WEBHOOK_SECRET ?? 'hub2_fake_webhook_secret',
    oldWebhookSecret: process.env.FAKE_HUB2_OLD_WEBHOOK_SECRET || null,
    callbackUrl: process.env.FAKE_CALLBACK_URL || null,
    ...(process.env.FAKE_SETTLE_MS ? { settleMs: Number(process.env.FAKE_SETTLE_MS) } : {}),
  });
  process.stdout.write(`listening ${fake.url}\n`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
