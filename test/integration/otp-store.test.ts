import { MockActivityEnvironment } from '@temporalio/testing';
import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { OtpStore } from '../../src/persistence/otp-store';
import { parseKeyRing } from '../../src/security/key-ring';
import { createPayinActivities, type PayinCollection } from '../../activities/payin/payin-activities';
import type { CollectionRequest, OperatorGateway, OperatorStatus } from '../../src/operators/gateway';
import type { TransactionStore } from '../../src/persistence/transactions';
import type { Ledger } from '../../src/ledger';

// The OTP store on FerretDB (sealed at rest, bound to its id, expired reads as absent, deleted on
// forget, expired documents swept), and the collection activity's reading of it: what it sends the
// operator when the OTP is there, and when it is gone before or after the operator was asked.

const OTP = '73914682';
const keys = parseKeyRing(`k1:${'1'.repeat(64)}`);

describe('OTP store', () => {
  let mongo: Connection;
  let otps: OtpStore;
  const raw = () => mongo.db!.collection<{ _id: string; sealed: string; expiresAt: Date }>('otps');

  beforeAll(async () => {
    mongo = await connectTestMongo();
    otps = OtpStore.on(mongo, keys, 5 * 60_000);
    await otps.init();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it('stores the OTP sealed under a fresh id, for its lifetime, and reads it back by id', async () => {
    const now = new Date();
    const a = await otps.put(OTP, now);
    const b = await otps.put(OTP, now);
    expect(a.id).toMatch(/^otp_[0-9a-f]{32}$/);
    expect(b.id).not.toBe(a.id);
    expect(a.expiresAt.getTime()).toBe(now.getTime() + 5 * 60_000);
    const doc = await raw().findOne({ _id: a.id });
    expect(JSON.stringify(doc)).not.toContain(OTP);
    expect(doc!.sealed).toMatch(/^v1\.k1\./);
    expect(await otps.read(a.id)).toBe(OTP);
    // Read, not consumed: a retried operator call sends it again.
    expect(await otps.read(a.id)).toBe(OTP);
  });

  it('a sealed OTP copied onto another id does not open (its id is the AAD)', async () => {
    const a = await otps.put(OTP);
    const b = await otps.put('11112222');
    const sealedA = (await raw().findOne({ _id: a.id }))!.sealed;
    await raw().replaceOne({ _id: b.id }, { sealed: sealedA, expiresAt: new Date(Date.now() + 60_000) });
    await expect(otps.read(b.id)).rejects.toThrow(/authentication/);
  });

  it('an expired OTP reads as absent before its deletion; forget deletes; a put sweeps expired ones', async () => {
    const past = new Date(Date.now() - 10 * 60_000);
    const old = await otps.put(OTP, past);
    expect(await raw().countDocuments({ _id: old.id })).toBe(1);
    expect(await otps.read(old.id)).toBeNull();

    const fresh = await otps.put(OTP);
    expect(await raw().countDocuments({ _id: old.id })).toBe(0);
    await otps.forget(fresh.id);
    expect(await otps.read(fresh.id)).toBeNull();
    await otps.forget(fresh.id); // already gone: fine
    expect(await otps.read('pr_0123')).toBeNull();
  });

  describe('the collection activity', () => {
    const sent: CollectionRequest[] = [];
    const operators = {
      requestCollection: (req: CollectionRequest): Promise<OperatorStatus> => {
        sent.push(req);
        return Promise.resolve({ outcome: 'pending', operatorReference: `orange_${req.transactionId}` });
      },
    } as unknown as OperatorGateway;
    const acts = () =>
      createPayinActivities({
        otps,
        operators,
        transactions: {} as TransactionStore,
        ledger: {} as Ledger,
      });
    type Request = ReturnType<typeof acts>['requestCollection'];
    const request = (...args: Parameters<Request>) => acts().requestCollection(...args);
    const forgetOtp = (id: string) => acts().forgetOtp(id);
    const collection = (otpId: string): PayinCollection => ({
      transactionId: 'pr_0000000000000000000000aa',
      operator: 'ORANGE',
      country: 'CI',
      msisdn: '+2250700000001',
      amount: 1000,
      currency: 'XOF',
      sandboxScenario: 'completed',
      otpId,
    });
    beforeEach(() => {
      sent.length = 0;
    });

    it('sends the stored OTP, never its id', async () => {
      const { id } = await otps.put(OTP);
      const answer: OperatorStatus = await new MockActivityEnvironment({ attempt: 1 }).run(
        request,
        collection(id),
      );
      expect(answer.outcome).toBe('pending');
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ otp: OTP });
      expect(sent[0]).not.toHaveProperty('otpId');
    });

    it('gone before the operator was ever asked: OTP_EXPIRED, and the operator is not called', async () => {
      const { id } = await otps.put(OTP);
      await otps.forget(id);
      const answer = await new MockActivityEnvironment({ attempt: 1 }).run(request, collection(id));
      expect(answer).toMatchObject({ outcome: 'failed', failure: { code: 'OTP_EXPIRED' } });
      expect(sent).toHaveLength(0);
    });

    it('gone on a retry, or after an earlier send: asks the operator again without it (same id)', async () => {
      const { id } = await otps.put(OTP);
      await otps.forget(id);
      await new MockActivityEnvironment({ attempt: 2 }).run(request, collection(id));
      await new MockActivityEnvironment({ attempt: 1 }).run(request, collection(id), {
        sentBefore: true,
      });
      expect(sent).toHaveLength(2);
      for (const req of sent) {
        expect(req).not.toHaveProperty('otp');
        expect(req.transactionId).toBe('pr_0000000000000000000000aa');
      }
    });

    it('forgetOtp deletes it', async () => {
      const { id } = await otps.put(OTP);
      await new MockActivityEnvironment().run(forgetOtp, id);
      expect(await raw().countDocuments({ _id: id })).toBe(0);
    });
  });
});
