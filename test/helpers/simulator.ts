import { createServer, type Server } from 'node:http';
import { configSchema } from '../../src/config';
import { HttpOperatorGateway } from '../../src/operators/http-gateway';
import { signatureHeader } from '../../src/operators/signature';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import type { RefundRequest } from '../../src/operators/gateway';
import { eventually } from './http';
import { standIn } from './use-stack';

// The sandbox operator over real HTTP for the simulator's own tests, with the gateway the activities
// use and a receiver standing in for the service's callback endpoint. No Temporal, no database.

export const callbackSecrets = configSchema.parse({}).OPERATOR_CALLBACK_SECRETS;

export interface ReceivedCallback {
  path: string;
  body: string;
  signature: string | undefined;
}

type CollectionRequest = Parameters<HttpOperatorGateway['requestCollection']>[0];

export interface SimulatorHarness {
  sim: RunningSimulator;
  /** Waits up to 10 s for an answer: a loaded CI machine can take far longer than a quiet one. */
  gateway: HttpOperatorGateway;
  /** Waits 400 ms for an answer, so that the 9904 number's slow answer (800 ms) times out. */
  hastyGateway: HttpOperatorGateway;
  /** Every callback the receiver got, in order. */
  received: ReceivedCallback[];
  /** The receiver answers the next `n` callbacks 503. */
  failCallbacks: (n: number) => void;
  nextId: () => string;
  /** An MTN CI collection request of 5,000 XOF with a fresh id. */
  collection: (over?: Partial<CollectionRequest>) => CollectionRequest;
  callbacksFor: (id: string) => ReceivedCallback[];
  /**
   * An MTN CI collection of `amount` XOF, collected; `refund(id, amount)` builds a refund of it with
   * the given sandbox scenario.
   */
  collectedPayment: (
    amount: number,
    sandboxScenario: RefundRequest['sandboxScenario'],
  ) => Promise<{ paid: CollectionRequest; refund: (refundId: string, amount: number) => RefundRequest }>;
}

/** Registers the hooks that start a simulator and its callback receiver for the calling file or describe. */
export function useSimulator(): SimulatorHarness {
  const current: {
    sim?: RunningSimulator;
    gateway?: HttpOperatorGateway;
    hastyGateway?: HttpOperatorGateway;
    receiver?: Server;
  } = {};
  const received: ReceivedCallback[] = [];
  let failNext = 0;
  let seq = 0;

  beforeAll(async () => {
    const receiver = (current.receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
          signature: req.headers[signatureHeader] as string | undefined,
        });
        res.statusCode = failNext-- > 0 ? 503 : 202;
        res.end();
      });
    }));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const port = (receiver.address() as { port: number }).port;
    current.sim = await startSimulator({
      port: 0,
      callbackSecrets,
      callbackBaseUrl: `http://127.0.0.1:${port}`,
      settleDelayMs: 50,
      slowResponseMs: 800,
      callbackRetryDelaysMs: [0, 100, 100],
    });
    // Only the 9904 test waits briefly: every other call waits long enough for a loaded machine, where
    // an answer took over 400 ms (two suites starting at once).
    current.gateway = new HttpOperatorGateway({ baseUrl: current.sim.url, timeoutMs: 10_000 });
    current.hastyGateway = new HttpOperatorGateway({ baseUrl: current.sim.url, timeoutMs: 400 });
  });
  afterAll(async () => {
    await current.sim?.stop();
    await new Promise<void>((r) => (current.receiver ? current.receiver.close(() => r()) : r()));
  });

  const nextId = () => `pr_sim_${Date.now()}_${seq++}`;
  const collection: SimulatorHarness['collection'] = (over = {}) => ({
    transactionId: nextId(),
    operator: 'MTN',
    country: 'CI',
    msisdn: '+2250500000001',
    amount: 5000,
    currency: 'XOF',
    sandboxScenario: null,
    ...over,
  });
  return {
    sim: standIn('simulator', () => current.sim),
    gateway: standIn('gateway', () => current.gateway),
    hastyGateway: standIn('hastyGateway', () => current.hastyGateway),
    received,
    failCallbacks: (n) => {
      failNext = n;
    },
    nextId,
    collection,
    callbacksFor: (id) => received.filter((r) => r.body.includes(`"id":"${id}"`)),
    collectedPayment: async (amount, sandboxScenario) => {
      const gateway = current.gateway!;
      const paid = collection({ amount });
      await gateway.requestCollection(paid);
      await eventually(
        () => gateway.collectionStatus(paid.transactionId, 'MTN', 'CI'),
        (s) => s.outcome === 'completed',
      );
      const refund = (refundId: string, refundAmount: number): RefundRequest => ({
        refundId,
        transactionId: paid.transactionId,
        operator: 'MTN',
        country: 'CI',
        amount: refundAmount,
        currency: 'XOF',
        sandboxScenario,
      });
      return { paid, refund };
    },
  };
}
