import { startMtnFake } from './server';

// The MTN MoMo Open API fake as its own process (test/fakes/spawn.ts). Settings from env:
//   PORT (0 = any), FAKE_MTN_COLLECTION_{SUBSCRIPTION_KEY,API_USER,API_KEY},
//   FAKE_MTN_DISBURSEMENT_{SUBSCRIPTION_KEY,API_USER,API_KEY}, FAKE_CALLBACK_HOST (the registered
//   providerCallbackHost, host:port; unset = any), FAKE_MTN_TOKEN_TTL_SECONDS (3600),
//   FAKE_MTN_COMPLETE_AFTER_MS (100). No FAKE_CALLBACK_URL: as at MTN, each request names its own
//   callback URL (X-Callback-Url), which must be on FAKE_CALLBACK_HOST when that is set.

const env = process.env;
const creds = (product: string) => ({
  subscriptionKey: env[`FAKE_MTN_${product}_SUBSCRIPTION_KEY`] ?? `${product.toLowerCase()}-subscription-key`,
  apiUser: env[`FAKE_MTN_${product}_API_USER`] ?? '5f1c2e43-2f6b-4c1e-9d9a-1a2b3c4d5e6f',
  apiKey: env[`FAKE_MTN_${product}_API_KEY`] ?? `${product.toLowerCase()}-api-key`,
});

startMtnFake({
  port: Number(env.PORT ?? 0),
  credentials: { collection: creds('COLLECTION'), disbursement: creds('DISBURSEMENT') },
  callbackHost: env.FAKE_CALLBACK_HOST ?? null,
  tokenTtlSeconds: Number(env.FAKE_MTN_TOKEN_TTL_SECONDS ?? 3600),
  completeAfterMs: Number(env.FAKE_MTN_COMPLETE_AFTER_MS ?? 100),
})
  .then((fake) => {
    process.stdout.write(`listening ${fake.url}\n`);
    const stop = () => void fake.close().then(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  })
  .catch((err: unknown) => {
    process.stderr.write(`mtn fake failed to start: ${String(err)}\n`);
    process.exit(1);
  });
