import { readFileSync } from 'node:fs';
import { startPawapayFake } from './server';

// Runs the pawaPay fake as its own process. Env: PORT, FAKE_PAWAPAY_API_TOKEN,
// FAKE_PAWAPAY_SIGNING_KEY (PEM private key signing callbacks, or FAKE_PAWAPAY_SIGNING_KEY_FILE;
// generated when both are unset), FAKE_PAWAPAY_KEY_ID, FAKE_CALLBACK_URL (optional),
// FAKE_SETTLE_MS (optional), FAKE_PAWAPAY_MERCHANT_PUBLIC_KEY (optional: require signed requests).
// Prints `listening <url>` when ready.
async function main(): Promise<void> {
  const keyFile = process.env.FAKE_PAWAPAY_SIGNING_KEY_FILE;
  const signingKey =
    process.env.FAKE_PAWAPAY_SIGNING_KEY || (keyFile ? readFileSync(keyFile, 'utf8') : undefined);
  const fake = await startPawapayFake({
    port: Number(process.env.PORT ?? 0),
    apiToken: process.env.FAKE_PAWAPAY_API_TOKEN ?? 'pawapay-fake-token',
    ...(signingKey ? { signingPrivateKeyPem: signingKey.replace(/\\n/g, '\n') } : {}),
    ...(process.env.FAKE_PAWAPAY_KEY_ID ? { keyId: process.env.FAKE_PAWAPAY_KEY_ID } : {}),
    callbackUrl: process.env.FAKE_CALLBACK_URL || null,
    ...(process.env.FAKE_SETTLE_MS ? { settleMs: Number(process.env.FAKE_SETTLE_MS) } : {}),
    merchantPublicKeyPem: process.env.FAKE_PAWAPAY_MERCHANT_PUBLIC_KEY?.replace(/\\n/g, '\n') || null,
  });
  process.stdout.write(`listening ${fake.url}\n`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
