import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { spawnFake, type FakeProcess } from '../fakes/spawn';

// The pawaPay and MTN MoMo fakes as live-mode tests start them (each its own process), and the
// stack settings that point the connectors at them with the same credentials.

const fakes = join(__dirname, '..', 'fakes');

/** MTN MoMo's two products, as the fake accepts them and the connector sends them. */
export const mtnCredentials = {
  COLLECTION: {
    SUBSCRIPTION_KEY: 'col-sub-key',
    API_USER: '5f1c2e43-2f6b-4c1e-9d9a-1a2b3c4d5e6f',
    API_KEY: 'col-key',
  },
  DISBURSEMENT: {
    SUBSCRIPTION_KEY: 'dis-sub-key',
    API_USER: '6a2d3f54-3a7c-4d2f-8e0b-2b3c4d5e6f70',
    API_KEY: 'dis-key',
  },
};

const mtnVariables = (prefix: string) =>
  Object.fromEntries(
    Object.entries(mtnCredentials).flatMap(([product, c]) =>
      Object.entries(c).map(([k, v]) => [`${prefix}${product}_${k}`, v]),
    ),
  );

export interface LiveFakes {
  pawapay: FakeProcess;
  mtn: FakeProcess;
  /** The stack's settings for both connectors; pawaPay's base URL may be a proxy in front of it. */
  settings(pawapayUrl?: string): Record<string, string>;
  stop(): Promise<void>;
}

/** Starts both fakes; their callbacks go to `apiBase` (the stack's address, known before it starts). */
export async function startLiveFakes(apiBase: string): Promise<LiveFakes> {
  const token = 'live-fakes-pawapay-token';
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const [pawapay, mtn] = await Promise.all([
    spawnFake(join(fakes, 'pawapay', 'main.ts'), {
      FAKE_PAWAPAY_API_TOKEN: token,
      FAKE_PAWAPAY_SIGNING_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      FAKE_CALLBACK_URL: `${apiBase}/provider-callbacks/pawapay`,
    }),
    spawnFake(join(fakes, 'mtn', 'main.ts'), mtnVariables('FAKE_MTN_')),
  ]);
  return {
    pawapay,
    mtn,
    settings: (pawapayUrl = pawapay.url) => ({
      OPERATOR_CALLBACK_BASE_URL: apiBase,
      PAWAPAY_BASE_URL: pawapayUrl,
      PAWAPAY_API_TOKEN: token,
      PAWAPAY_CALLBACK_PUBLIC_KEY: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      MTN_BASE_URL: mtn.url,
      MTN_CALLBACK_SECRET: 'mtn-callback-secret-0123456789abcdef',
      ...mtnVariables('MTN_CI_'),
    }),
    stop: async () => {
      await Promise.all([pawapay.stop(), mtn.stop()]);
    },
  };
}
