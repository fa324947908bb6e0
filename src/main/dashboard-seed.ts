import { Schema, type Connection, type Model } from 'mongoose';
import type { KeyRing } from '../security/key-ring';
import { MerchantService } from '../merchants';
import { DashboardIdentity, invitationLink } from '../dashboard/identity';
import { isDuplicateKey } from '../persistence/insert-once';

// `npm start`'s first sign-in: a sandbox merchant made once (its test keys printed that once), and
// while it has no owner, a one-time invitation link for one at every start (README, Dashboard).

interface SeedDoc {
  _id: string;
  merchantId: string;
}
const seedSchema = new Schema<SeedDoc>(
  { _id: String, merchantId: String },
  { versionKey: false, collection: 'embedded_seed' },
);

export const SANDBOX_OWNER_EMAIL = 'owner@sandbox.test';

export async function seedDashboard(
  conn: Connection,
  keys: KeyRing,
  baseUrl: string,
): Promise<{
  merchantId: string;
  link: string | null;
  credentials: { apiKey: string; apiClient: string } | null;
}> {
  const seeds =
    (conn.models.EmbeddedSeed as Model<SeedDoc> | undefined) ??
    conn.model<SeedDoc>('EmbeddedSeed', seedSchema);
  let seed = await seeds.findById('sandbox-merchant').lean<SeedDoc>();
  let credentials: { apiKey: string; apiClient: string } | null = null;
  if (!seed) {
    const merchants = MerchantService.on(conn, { keyMode: 'test' });
    await merchants.init();
    const issued = await merchants.createMerchant('Sandbox merchant');
    try {
      await seeds.create({ _id: 'sandbox-merchant', merchantId: issued.merchantId });
      credentials = { apiKey: issued.apiKey, apiClient: issued.apiClient };
      seed = { _id: 'sandbox-merchant', merchantId: issued.merchantId };
    } catch (err) {
      // Another start seeded it first: that one is the sandbox merchant.
      if (!isDuplicateKey(err)) throw err;
      seed = (await seeds.findById('sandbox-merchant').lean<SeedDoc>())!;
    }
  }
  const identity = DashboardIdentity.on(conn, keys);
  await identity.init();
  const hasOwner = (await identity.members.ofMerchant(seed.merchantId)).some((m) => m.role === 'owner');
  if (hasOwner || !(await identity.members.emailFree(SANDBOX_OWNER_EMAIL)))
    return { merchantId: seed.merchantId, link: null, credentials };
  const { token } = await identity.invitations.create({
    merchantId: seed.merchantId,
    email: SANDBOX_OWNER_EMAIL,
    role: 'owner',
    invitedBy: 'operator',
  });
  return { merchantId: seed.merchantId, link: invitationLink(baseUrl, token), credentials };
}
