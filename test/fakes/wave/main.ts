import { startWaveFake } from './server';

// Runs the Wave fake as its own process: PORT, FAKE_WAVE_API_KEY, FAKE_WAVE_WEBHOOK_SECRET,
// FAKE_CALLBACK_URL (optional), FAKE_SETTLE_MS (optional). Prints `listening <url>` when ready.
async function main(): Promise<void> {
  const fake = await startWaveFake({
    port: Number(process.env.PORT ?? 0),
    apiKey: process.env.FAKE_WAVE_API_KEY ?? 'wave_ci_prod_fake_key',
    webhookSecret: process.env.FAKE_WAVE_WEBHOOK_SECRET ?? 'wave_ci_WHS_fake_secret',
    callbackUrl: process.env.FAKE_CALLBACK_URL || null,
    ...(process.env.FAKE_SETTLE_MS ? { settleMs: Number(process.env.FAKE_SETTLE_MS) } : {}),
  });
  process.stdout.write(`listening ${fake.url}\n`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
