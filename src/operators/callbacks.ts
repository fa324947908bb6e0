import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { MemoryStore, type Options, type Store } from 'express-rate-limit';
import type { z } from 'zod';
import { operatorCodes } from '../domain/operators';
import type { Transaction } from '../domain/transaction';
import type { Refund } from '../domain/refund';
import type { Language } from '../contract/i18n';
import { zodErrorMap } from '../contract/zod-messages';
import type { CallbackReceiptStore, SignedCallback } from '../persistence/callback-receipts';
import { refundWorkflowId, transactionWorkflowId } from '../temporal/workflow-ids';
import { operatorCallbackSignal } from './callback-signal';
import type { IncomingCallback, VerifiedCallback } from './connectors/connector';
import { signatureHeader, signatureToleranceSec, verifiedCallbackTimestamp } from './signature';
import { operatorCallbackBody, type CallbackKind } from './wire';

// The one door of every operator callback, whichever way it is signed: a real provider's, checked
// by its connector (pawaPay, MTN MoMo, Wave), or the sandbox simulator's HMAC. In order:
//   1. verify it (the connector's own check, or the simulator's HMAC, then its body);
//   2. rate-limit it, per signer and transaction;
//   3. deduplicate it by what was signed (a receipt shared by every API process): an exact replay
//      is acknowledged without a second signal, while the same transaction with a new status is
//      another signed callback and goes through;
//   4. find the workflow it concerns (src/temporal/workflow-ids.ts) and
//   5. signal it (src/operators/callback-signal.ts). The workflow re-reads the status from the provider: a
//      callback is a trigger, never an answer, so an id we do not know is answered like any other.

/** Which door a callback knocked at: a connector by name, or the simulator's protocol by operator code. */
export type CallbackSource = { via: 'connector'; name: string } | { via: 'simulator'; operator: string };

/** What the HTTP layer hands over: the request untouched (signatures cover the raw bytes). */
export interface CallbackRequest extends IncomingCallback {
  source: CallbackSource;
  /** For the validation messages of a malformed simulator callback. */
  language: Language;
}

/** What became of a callback; the routes map each to a status. */
export type CallbackOutcome =
  /** No such connector or operator. */
  | { outcome: 'unknown-source' }
  /** Forged, tampered, stale, or not ours. */
  | { outcome: 'unverified' }
  /** Signed, but not JSON (simulator). */
  | { outcome: 'malformed-json' }
  /** Signed, but not a callback body (simulator); messages in the request's language. */
  | { outcome: 'invalid'; errors: { path: string; message: string }[] }
  /** Beyond the per-transaction limit; the window ends in `retryAfterSec`. */
  | { outcome: 'rate-limited'; retryAfterSec: number }
  /** Already received, here or on another API process: the workflow has had its trigger. */
  | { outcome: 'replay' }
  /** Accepted: the workflow it concerns, if any, was signalled. */
  | { outcome: 'accepted' };

export interface CallbackServiceDeps {
  /** The configured connectors by name (`pawapay`, `mtn`, `wave`, `hub2`): each verifies its own callbacks. */
  connectors: ReadonlyMap<string, { verifyCallback(cb: IncomingCallback): Promise<VerifiedCallback | null> }>;
  /** The simulator's HMAC secret of each operator code. */
  simulatorSecrets: Readonly<Record<string, string>>;
  receipts: Pick<CallbackReceiptStore, 'firstReceipt' | 'forget'>;
  transactions: {
    findById(id: string): Promise<Transaction | null>;
    /** The fields a callback routes by, from the document alone (one read); findById without it. */
    identityOf?(
      id: string,
    ): Promise<Pick<Transaction, 'kind' | 'merchantId' | 'reference' | 'provider'> | null>;
  };
  refunds: { findById(id: string): Promise<Refund | null>; merchantOf?(id: string): Promise<string | null> };
  temporal: Pick<Client, 'workflow'>;
  /** Callbacks per signer and transaction per minute (rate-limited beyond); 0 disables. */
  perTransactionPerMinute: number;
  /** Where they are counted: a store every API replica shares; omitted, this process's memory. */
  limiterStore?: Store;
}

/** A verified callback, from either door. */
interface Verified {
  signed: SignedCallback;
  kind: CallbackKind;
  id: string;
  /** Simulator callbacks only: the operator that signed must be the transaction's. */
  operator?: string;
  /** Simulator refund callbacks name their payin too. */
  transactionId?: string | undefined;
}

export class CallbackService {
  // In the shared store when wired (every API replica counts together), else in memory. Keyed on
  // the signer and the transaction the callback names, so one noisy transaction limits only itself.
  // express-rate-limit's fixed-window counter, without its HTTP middleware.
  private readonly limiter: Store | null;

  constructor(private readonly deps: CallbackServiceDeps) {
    if (deps.perTransactionPerMinute > 0) {
      this.limiter = deps.limiterStore ?? new MemoryStore();
      void this.limiter.init?.({ windowMs: 60_000 } as Options);
    } else this.limiter = null;
  }

  async receive(req: CallbackRequest): Promise<CallbackOutcome> {
    const checked = await this.verify(req);
    if ('outcome' in checked) return checked;
    if (this.limiter) {
      const { totalHits, resetTime } = await this.limiter.increment(`${checked.signed.signer}:${checked.id}`);
      if (totalHits > this.deps.perTransactionPerMinute) {
        const retryAfterSec = Math.max(1, Math.ceil(((resetTime?.getTime() ?? 0) - Date.now()) / 1000));
        return { outcome: 'rate-limited', retryAfterSec };
      }
    }
    if (!(await this.deps.receipts.firstReceipt(checked.signed))) return { outcome: 'replay' };
    try {
      const workflowId = await this.workflowOf(checked);
      if (workflowId) await this.signal(workflowId, { kind: checked.kind, id: checked.id });
    } catch (err) {
      // Not delivered: the provider's retry of this same callback must not count as a replay.
      await this.deps.receipts.forget(checked.signed).catch(() => undefined);
      throw err;
    }
    return { outcome: 'accepted' };
  }

  /** Stops the limiter's timer (tests, shutdown). */
  close(): void {
    void this.limiter?.shutdown?.();
  }

  private async verify(req: CallbackRequest): Promise<Verified | CallbackOutcome> {
    const { source } = req;
    if (source.via === 'connector') {
      const connector = this.deps.connectors.get(source.name);
      if (!connector) return { outcome: 'unknown-source' };
      const verified = await connector.verifyCallback(req);
      if (!verified) return { outcome: 'unverified' };
      const { kind, id, signed } = verified;
      return { kind, id, signed: { signer: source.name, ...signed } };
    }
    const operator = operatorCodes.find((c) => c === source.operator);
    const secret = operator ? this.deps.simulatorSecrets[operator] : undefined;
    if (!operator || !secret) return { outcome: 'unknown-source' };
    const timestamp = verifiedCallbackTimestamp(secret, req.rawBody, req.headers[signatureHeader]);
    if (timestamp === null) return { outcome: 'unverified' };
    let json: unknown;
    try {
      json = JSON.parse(req.rawBody.toString('utf8'));
    } catch {
      return { outcome: 'malformed-json' };
    }
    const parsed = operatorCallbackBody.safeParse(json, { error: zodErrorMap(req.language) });
    if (!parsed.success) return { outcome: 'invalid', errors: issues(parsed.error) };
    const { kind, id, transactionId } = parsed.data;
    // The HMAC covers `<timestamp>.<body>`: together they are one signed callback.
    const content = Buffer.concat([Buffer.from(`${timestamp}.`), req.rawBody]);
    const signed = { signer: operator, content, acceptedUntil: timestamp + signatureToleranceSec };
    return { signed, kind, id, transactionId, operator };
  }

  /**
   * The workflow a callback wakes: a refund's own (not its payin's), a payin's or payout's
   * otherwise; null when we know of no such transaction, or (simulator) it is another operator's.
   */
  private async workflowOf(cb: Verified): Promise<string | null> {
    const identity = (id: string) =>
      this.deps.transactions.identityOf?.(id) ?? this.deps.transactions.findById(id);
    if (cb.operator !== undefined) {
      // The simulator's operator must be the payin's (a refund's: the payin it reverses).
      const owner = cb.kind === 'refund' ? cb.transactionId : cb.id;
      const tx = owner ? await identity(owner) : null;
      if (!tx || tx.provider?.split('_')[0] !== cb.operator) return null;
      if (cb.kind !== 'refund') return transactionWorkflowId(tx.kind, tx.merchantId, tx.reference);
    }
    if (cb.kind === 'refund') {
      // Its merchant alone names the workflow: fixed at creation, no version probe needed.
      const merchantId = this.deps.refunds.merchantOf
        ? await this.deps.refunds.merchantOf(cb.id)
        : ((await this.deps.refunds.findById(cb.id))?.merchantId ?? null);
      return merchantId ? refundWorkflowId(merchantId, cb.id) : null;
    }
    const tx = await identity(cb.id);
    return tx ? transactionWorkflowId(tx.kind, tx.merchantId, tx.reference) : null;
  }

  private async signal(workflowId: string, payload: { kind: CallbackKind; id: string }): Promise<void> {
    try {
      await this.deps.temporal.workflow.getHandle(workflowId).signal(operatorCallbackSignal, payload);
    } catch (err) {
      // A closed workflow has nothing left to learn from the operator.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
}

function issues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
}
