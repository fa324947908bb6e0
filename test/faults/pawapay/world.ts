import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { freePort } from '../../../src/infra/local-servers';
import { toProviderUuid } from '../../../src/operators/provider-ids';
import { signPawapayCallback } from '../../fakes/pawapay/server';
import { spawnFake, type FakeProcess } from '../../fakes/spawn';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy';
import type { OperatorView } from '../books';
import type { EnvironmentExtra } from '../environment';
import type { OperatorBooks } from '../evaluate';
import type { Plan } from '../schedule';
import { pawapayKindOf, type PawapayKind } from './rules';

// The pawaPay side of the live fault suite (test/faults/pawapay-faults.test.ts): the pawaPay fake
// as its own process, a fault proxy between the worker's connector and the fake, and another
// between the fake's signed callbacks and the API:
//   worker ── PAWAPAY_BASE_URL ──> providerProxy ──> pawaPay fake
//   API /provider-callbacks/pawapay <── callbackProxy (Host kept: @authority is signed) <── fake
// Plugged into FaultEnvironment (its settings before the API starts, the rest once it listens).
// The books are pawaPay's own status API, read from the fake directly, not through the proxy.

const TOKEN = 'fault-suite-pawapay-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PawapayWorld implements EnvironmentExtra {
  fake: FakeProcess | undefined;
  providerProxy!: FaultProxy;
  callbackProxy!: FaultProxy;
  private providerPort = 0;
  private apiUrl = '';
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  /** Live mode routed to pawaPay, its connector pointed at the proxy's port (reserved now). */
  settings = async (): Promise<Record<string, string>> => {
    this.providerPort = await freePort();
    return {
      OPERATOR_ROUTES: JSON.stringify({ '*': 'pawapay' }),
      PAWAPAY_BASE_URL: `http://127.0.0.1:${this.providerPort}`,
      PAWAPAY_API_TOKEN: TOKEN,
      PAWAPAY_CALLBACK_PUBLIC_KEY: this.keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      // The plan leaves many requests and reads unanswered on purpose: measured provider states
      // would close a pair (half unanswered) and refuse its later payins with 503
      // PROVIDER_UNAVAILABLE for the whole window. That refusal is tested in provider-health.test.ts;
      // here every planned transaction must reach pawaPay, so no verdict is ever measured.
      PROVIDER_HEALTH_MIN_ATTEMPTS: String(Number.MAX_SAFE_INTEGER),
    };
  };

  afterApi = async (apiUrl: string): Promise<void> => {
    this.apiUrl = apiUrl;
    this.callbackProxy = await startFaultProxy({ target: apiUrl, keepHost: true });
    this.fake = await spawnFake(join(__dirname, '..', '..', 'fakes', 'pawapay', 'main.ts'), {
      FAKE_PAWAPAY_API_TOKEN: TOKEN,
      FAKE_PAWAPAY_SIGNING_KEY: this.keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      FAKE_CALLBACK_URL: `${this.callbackProxy.url}/provider-callbacks/pawapay`,
    });
    this.providerProxy = await startFaultProxy({ target: this.fake.url, port: this.providerPort });
  };

  async stop(): Promise<void> {
    await this.providerProxy?.stop();
    await this.callbackProxy?.stop();
    await this.fake?.stop();
  }

  /** GET /v2/{kind}s/{uuid} straight from the fake: its data when FOUND, null when NOT_FOUND. */
  async read(kind: PawapayKind, uuid: string): Promise<Record<string, any> | null> {
    const res = await fetch(`${this.fake!.url}/v2/${kind}s/${uuid}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) throw new Error(`pawaPay fake: GET ${kind} answered ${res.status}`);
    const body = (await res.json()) as { status: string; data?: Record<string, any> };
    return body.status === 'FOUND' ? body.data! : null;
  }

  /** pawaPay's own late word on a payment in flight (/__fake/settle). */
  async settle(p: Plan, status: 'COMPLETED' | 'FAILED', failureCode?: string): Promise<string> {
    if (!p.id) return 'never created: nothing to settle';
    const res = await fetch(`${this.fake!.url}/__fake/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: pawapayKindOf(p),
        id: toProviderUuid(p.id),
        status,
        ...(failureCode ? { failureCode } : {}),
      }),
    });
    if (res.status === 200) return `pawaPay settled ${status}`;
    const now = await this.read(pawapayKindOf(p), toProviderUuid(p.id));
    return now ? `too late to settle: ${String(now.status)}` : 'unknown to pawaPay: nothing to settle';
  }

  /** Waits until pawaPay holds the plan's payment in flight (its request may be faulted for a while). */
  async inFlight(p: Plan, until: number): Promise<boolean> {
    while (Date.now() < until) {
      const data = p.id ? await this.read(pawapayKindOf(p), toProviderUuid(p.id)).catch(() => null) : null;
      if (data && data.status !== 'COMPLETED' && data.status !== 'FAILED') return true;
      if (data) return false;
      await sleep(500);
    }
    return false;
  }

  /**
   * pawaPay's "resend callback" (offered by its API and Dashboard), as ops would use it for a
   * flagged transaction: the payment as pawaPay holds it now, freshly signed, straight to the API.
   */
  async resendCallback(p: Plan): Promise<number | null> {
    const data = p.id ? await this.read(pawapayKindOf(p), toProviderUuid(p.id)) : null;
    if (!data) return null;
    const url = `${this.apiUrl}/provider-callbacks/pawapay`;
    const body = JSON.stringify(data);
    const pem = this.keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const res = await fetch(url, {
      method: 'POST',
      headers: signPawapayCallback(url, body, pem, 'PAWAPAY_FAKE_KEY'),
      body,
    });
    return res.status;
  }

  /** pawaPay's books for every plan: its status API, one read per payment. */
  books(plans: Plan[]): () => Promise<OperatorBooks> {
    return async () => {
      const views = new Map<Plan, OperatorView>();
      for (const p of plans) {
        const data = p.id ? await this.read(pawapayKindOf(p), toProviderUuid(p.id)) : null;
        const status: OperatorView['status'] = !data
          ? 'unknown'
          : data.status === 'COMPLETED'
            ? 'completed'
            : data.status === 'FAILED'
              ? 'failed'
              : 'pending';
        views.set(p, {
          status,
          amount: data ? Number(data.amount) : null,
          failureCode: (data?.failureReason?.failureCode as string | undefined) ?? null,
          source: 'books',
        });
      }
      return {
        source: 'pawaPay status API (GET /v2/{deposits|payouts|refunds}/{id}, from the fake directly)',
        view: (_kind, p) =>
          views.get(p) ?? { status: 'unknown', amount: null, failureCode: null, source: 'books' },
      };
    };
  }
}
