import type { Ledger } from '../ledger';
import { InsufficientFundsError } from '../ledger';
import { payoutSourceRefs } from '../ledger/postings';
import type { TransactionStore } from '../persistence/transactions';
import type {
  BatchDecision,
  BatchItem,
  BatchHold,
  BatchItemProblem,
  PayoutBatch,
  PayoutBatchStore,
  StoredItemResult,
} from '../persistence/payout-batches';
import type { Transaction } from '../domain/transaction';
import { idOfKey } from '../domain/ids';
import { modeOfScope } from '../domain/modes';
import { ApiProblem, type ProblemCode } from '../contract/problems';
import { duplicateInBatch, duplicateReference } from '../contract/field-messages';
import {
  parseBatchItem,
  type BatchItemInput,
  type CreatePayoutBatchRequest,
} from '../contract/schemas/payout-batch';
import { fingerprintsDiffer } from '../security/request-fingerprint';
import { isFinal } from '../domain/final-status';
import type { PayoutInput, PayoutService } from './payout-service';

// Bulk payouts as a story (docs/bulk-payouts.md): store the batch under the id its idempotency key
// names, start its workflow (which finishes the batch if this request dies, then says when every
// item is final), and process the items, each a normal payout under the item key
// `<batch key>:<index>`. Independent items are paid or refused one by one. An atomic batch is first
// checked whole, then held whole (one ledger movement per account debited, to `payout-holds`), and
// only then paid, each item from the hold; what a refused item leaves is released.

/** Problems that mean "retry the whole request" rather than "this item is refused". */
const retryable = new Set<ProblemCode>(['SERVICE_UNAVAILABLE', 'DECISION_PENDING', 'INTERNAL_ERROR']);

const holdRef = (batchId: string, accountId: string) => `batch:${batchId}:hold:${accountId}`;
const releaseRef = (batchId: string, accountId: string) => `batch:${batchId}:release:${accountId}`;
const itemKey = (batch: PayoutBatch, index: number) => `${batch.idempotencyKey}:${index}`;
const itemFingerprint = (batch: PayoutBatch, index: number) =>
  batch.requestFingerprint ? `${batch.requestFingerprint}#${index}` : undefined;

const refusedBy = (problem: ApiProblem): BatchItemProblem => ({
  code: problem.code,
  ...(problem.extra.detail ? { detail: problem.extra.detail } : {}),
  ...(problem.extra.errors ? { errors: problem.extra.errors } : {}),
});

/** An item checked, before anything is written: its payout input, or why it is refused. */
type Checked =
  | { index: number; reference: string | null; input: PayoutInput; existing: Transaction | null }
  | { index: number; reference: string | null; problem: BatchItemProblem };

export interface PayoutBatchServiceDeps {
  batches: PayoutBatchStore;
  payouts: PayoutService;
  transactions: TransactionStore;
  ledger: Ledger;
  /**
   * Starts the batch's workflow (once per batch id). Absent where batches are only finished (the
   * worker's activities), never created.
   */
  startWorkflow?: (merchantId: string, batchId: string) => Promise<unknown>;
}

export class PayoutBatchService {
  constructor(private readonly deps: PayoutBatchServiceDeps) {}

  async create(
    merchantId: string,
    body: CreatePayoutBatchRequest,
    idempotencyKey: string,
    requestFingerprint?: string,
  ): Promise<{ created: boolean; batch: PayoutBatch }> {
    const draft: PayoutBatch = {
      id: idOfKey('pb', merchantId, idempotencyKey),
      merchantId,
      idempotencyKey,
      requestFingerprint: requestFingerprint ?? null,
      atomic: body.atomic,
      items: checkItems(body.items),
      state: 'open',
      decision: null,
      held: [],
      results: null,
      createdAt: new Date(),
      completedAt: null,
    };
    const stored = await this.deps.batches.insertOrGet(draft);
    // The idempotency record is gone after 24 h: the batch itself still tells another body apart.
    if (fingerprintsDiffer(stored.batch.requestFingerprint, requestFingerprint))
      throw new ApiProblem('IDEMPOTENCY_KEY_REUSED');
    if (!this.deps.startWorkflow) throw new Error('creating a batch needs its workflow starter');
    // Started before the items: should this request die half-way, the workflow finishes the batch.
    await this.deps.startWorkflow(merchantId, draft.id);
    return { created: stored.created, batch: await this.process(draft.id) };
  }

  async get(merchantId: string, id: string): Promise<PayoutBatch> {
    const batch = await this.deps.batches.find(merchantId, id);
    if (!batch) throw new ApiProblem('BATCH_NOT_FOUND');
    return batch;
  }

  /** The payouts of a batch's accepted items, by id. */
  async payoutsOf(batch: PayoutBatch): Promise<Map<string, Transaction>> {
    const ids = (batch.results ?? []).flatMap((r) => (r.transactionId ? [r.transactionId] : []));
    const found = await Promise.all(ids.map((id) => this.deps.transactions.findById(id)));
    return new Map(found.flatMap((tx) => (tx ? [[tx.id, tx] as const] : [])));
  }

  /**
   * Gives every item its result, once: re-entrant (a retry, or the workflow after a crash, resumes
   * where the last attempt stopped), since each step is keyed (item keys, hold and release refs).
   */
  async process(batchId: string): Promise<PayoutBatch> {
    const batch = await this.deps.batches.findById(batchId);
    if (!batch) throw new Error(`no payout batch ${batchId}`);
    if (batch.state === 'done') return batch;
    const results = batch.atomic ? await this.processAtomic(batch) : await this.processEach(batch);
    await this.deps.batches.update(batch.id, { state: 'done', results });
    return (await this.deps.batches.findById(batch.id))!;
  }

  private async processEach(batch: PayoutBatch): Promise<StoredItemResult[]> {
    const results: StoredItemResult[] = [];
    for (const checked of this.parseAll(batch)) {
      if ('problem' in checked) results.push(refused(checked, checked.problem));
      else results.push(await this.pay(batch, checked.index, checked.input));
    }
    return results;
  }

  /**
   * An atomic batch: decided once (held whole, or refused), then every attempt follows the stored
   * decision. Several attempts may run at once (a retry beside a request that outlived its claim,
   * the workflow beside a request that outlived ten minutes), so nothing here trusts one attempt's
   * view: the decision is insert-once, and what is released is read from the ledger.
   */
  private async processAtomic(batch: PayoutBatch): Promise<StoredItemResult[]> {
    const decided = (await this.deps.batches.decisionOf(batch)) ?? (await this.decide(batch));
    if (decided.decision === 'refused') {
      await this.releaseHolds(batch, () => Promise.resolve(0));
      return decided.results ?? [];
    }
    return this.payFromHolds(batch);
  }

  /**
   * A refused batch's holds given back once more, from the ledger: an attempt that held an account
   * and died before releasing it, after another attempt had finished the batch, left it held. Called
   * when the batch completes (its workflow); idempotent, and nothing for any other batch.
   */
  async releaseRefusedHolds(batch: PayoutBatch): Promise<void> {
    if (!batch.atomic) return;
    if ((await this.deps.batches.decisionOf(batch))?.decision !== 'refused') return;
    await this.releaseHolds(batch, () => Promise.resolve(0));
  }

  /** Checks every item, holds every account, and proposes the outcome: the stored decision wins. */
  private async decide(batch: PayoutBatch): Promise<BatchDecision> {
    const propose = async (decision: 'accepted' | 'refused', results: StoredItemResult[] | null) =>
      this.deps.batches.decide({ batchId: batch.id, decision, results, decidedAt: new Date() });

    // 1. Every item checked, nothing written.
    const checked: Checked[] = [];
    for (const item of this.parseAll(batch)) checked.push(await this.check(batch, item));
    if (checked.some((c) => 'problem' in c))
      return propose('refused', await this.refusedResults(batch, checked, new Set()));

    // 2. Held whole: one movement per account, in a fixed order, keyed by the batch and account (an
    // attempt holding an account another attempt held already moves nothing more).
    for (const hold of await this.holdsFor(batch, checked)) {
      try {
        await this.deps.ledger.transfer(await this.holdRequest(batch, hold));
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err;
        return propose('refused', await this.refusedResults(batch, checked, new Set([hold.accountId])));
      }
    }
    // 3. Decided before anything is paid or released; an attempt that loses follows the winner.
    return propose('accepted', null);
  }

  private async holdRequest(batch: PayoutBatch, hold: BatchHold) {
    return {
      sourceRef: holdRef(batch.id, hold.accountId),
      fromAccountId: hold.accountId,
      toAccountId: await this.deps.ledger.systemAccountId(
        'payout-holds',
        hold.currency,
        modeOfScope(batch.merchantId),
      ),
      amount: hold.amount,
      reason: `bulk payout ${batch.id}: hold`,
    };
  }

  /** Each item paid from its account's hold; what was held for items not paid goes back. */
  private async payFromHolds(batch: PayoutBatch): Promise<StoredItemResult[]> {
    const results: StoredItemResult[] = [];
    const paying = new Map<number, string>();
    for (const checked of this.parseAll(batch)) {
      if ('problem' in checked) {
        results.push(refused(checked, checked.problem));
        continue;
      }
      const draft = await this.draftOf(batch, checked.input).catch(() => null);
      const account = draft?.payout?.accountId;
      // Only an account the batch holds funds an item (all of them, once accepted).
      const hold = account ? await this.deps.ledger.findTransfer(holdRef(batch.id, account)) : null;
      const result = hold
        ? await this.pay(batch, checked.index, checked.input, hold.toAccountId)
        : refused(checked, { code: 'BATCH_REFUSED' });
      if (account) paying.set(checked.index, account);
      results.push(result);
    }
    // What an account's items took from its hold, read from the ledger: every attempt finds the
    // same, whatever each of them paid itself.
    await this.releaseHolds(batch, (accountId) => this.paidFromHold(batch, accountId, paying));
    return results;
  }

  /**
   * What this batch's items of `accountId` took from the hold: the debits of the payouts created
   * under the items' keys, as recorded in the ledger (a recorded debit counts: it is applied, or
   * will be by its payout's workflow).
   */
  private async paidFromHold(
    batch: PayoutBatch,
    accountId: string,
    accounts: Map<number, string>,
  ): Promise<number> {
    let paid = 0;
    for (const [index, account] of accounts) {
      if (account !== accountId) continue;
      const item = batch.items[index];
      if (!item || !('input' in item)) continue;
      const tx = await this.deps.transactions.find(batch.merchantId, 'payout', item.input.reference);
      if (!tx || tx.idempotencyKey !== itemKey(batch, index) || !tx.payout?.fundedFrom) continue;
      const debit = await this.deps.ledger.findTransfer(payoutSourceRefs(tx.id).debit);
      if (debit && debit.fromAccountId === tx.payout.fundedFrom) paid += debit.amount;
    }
    return paid;
  }

  /**
   * Gives back, per account the batch holds, what the ledger says was held minus what `paid` says
   * its items took. A hold recorded but not complete (an attempt died half-way) is completed first,
   * so that what comes back is what went in; one that cannot be (the balance never covered it)
   * held nothing. The release is keyed: every attempt computes the same amount and moves it once.
   */
  private async releaseHolds(
    batch: PayoutBatch,
    paid: (accountId: string) => Promise<number>,
  ): Promise<void> {
    for (const accountId of await this.accountsOf(batch)) {
      const recorded = await this.deps.ledger.findTransfer(holdRef(batch.id, accountId));
      if (!recorded) continue;
      try {
        await this.deps.ledger.transfer({
          sourceRef: recorded.sourceRef,
          fromAccountId: recorded.fromAccountId,
          toAccountId: recorded.toAccountId,
          amount: recorded.amount,
          reason: recorded.reason,
        });
      } catch (err) {
        if (err instanceof InsufficientFundsError) continue;
        throw err;
      }
      const amount = recorded.amount - (await paid(accountId));
      if (amount <= 0) continue;
      await this.deps.ledger.transfer({
        sourceRef: releaseRef(batch.id, accountId),
        fromAccountId: recorded.toAccountId,
        toAccountId: accountId,
        amount,
        reason: `bulk payout ${batch.id}: release`,
      });
    }
  }

  /** The accounts the batch's valid items debit (each one's hold, if any, is under the batch). */
  private async accountsOf(batch: PayoutBatch): Promise<string[]> {
    const accounts = new Set<string>();
    for (const c of this.parseAll(batch)) {
      if ('problem' in c) continue;
      const draft = await this.draftOf(batch, c.input).catch(() => null);
      if (draft?.payout) accounts.add(draft.payout.accountId);
    }
    return [...accounts].sort();
  }

  /** Every item refused: its own problem, or `short` accounts' INSUFFICIENT_BALANCE, or BATCH_REFUSED. */
  private async refusedResults(
    batch: PayoutBatch,
    checked: Checked[],
    short: Set<string>,
  ): Promise<StoredItemResult[]> {
    const results: StoredItemResult[] = [];
    for (const c of checked) {
      if ('problem' in c) {
        results.push(refused(c, c.problem));
        continue;
      }
      const draft = await this.draftOf(batch, c.input).catch(() => null);
      const account = draft?.payout?.accountId ?? '';
      results.push(
        refused(c, short.has(account) ? refusedBy(insufficientForBatch()) : { code: 'BATCH_REFUSED' }),
      );
    }
    return results;
  }

  /** What each account must hold: the sum of its items' chargedAmount, the same for every attempt. */
  private async holdsFor(batch: PayoutBatch, checked: Checked[]): Promise<BatchHold[]> {
    const holds = new Map<string, BatchHold>();
    for (const c of checked) {
      if ('problem' in c) continue;
      const tx = await this.draftOf(batch, c.input);
      const accountId = tx.payout!.accountId;
      const hold = holds.get(accountId) ?? { accountId, currency: tx.currency, amount: 0 };
      hold.amount += tx.chargedAmount;
      holds.set(accountId, hold);
    }
    return [...holds.values()].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  }

  /** An item of an atomic batch, checked as its creation would check it, nothing written. */
  private async check(batch: PayoutBatch, item: Checked): Promise<Checked> {
    if ('problem' in item) return item;
    const existing = await this.deps.transactions.find(batch.merchantId, 'payout', item.input.reference);
    if (existing) {
      // This batch's own item (an earlier attempt got this far) is no obstacle; another payout is.
      if (existing.idempotencyKey === itemKey(batch, item.index)) return { ...item, existing };
      return { ...item, problem: refusedBy(duplicateReference('payout')) };
    }
    try {
      await this.draftOf(batch, item.input);
      return item;
    } catch (err) {
      if (err instanceof ApiProblem && !retryable.has(err.code)) return { ...item, problem: refusedBy(err) };
      throw err;
    }
  }

  private async draftOf(batch: PayoutBatch, input: PayoutInput): Promise<Transaction> {
    return (await this.deps.payouts.prepare(batch.merchantId, input)).transaction;
  }

  /** One item as a normal payout under its own key: accepted with its record, or refused. */
  private async pay(
    batch: PayoutBatch,
    index: number,
    input: PayoutInput,
    fundedFrom?: string,
  ): Promise<StoredItemResult> {
    try {
      const { transaction } = await this.deps.payouts.create(
        batch.merchantId,
        input,
        itemKey(batch, index),
        itemFingerprint(batch, index),
        fundedFrom,
      );
      return {
        index,
        reference: input.reference,
        result: 'accepted',
        transactionId: transaction.id,
        problem: null,
      };
    } catch (err) {
      if (err instanceof ApiProblem && !retryable.has(err.code))
        return refused({ index, reference: input.reference }, refusedBy(err));
      throw err;
    }
  }

  /** The stored items as checked items, in order. */
  private parseAll(batch: PayoutBatch): Checked[] {
    return batch.items.map((item, index) =>
      'input' in item
        ? { index, reference: item.input.reference, input: inputOf(item.input), existing: null }
        : { index, reference: item.reference, problem: item.problem },
    );
  }

  /** Whether every accepted item is final (so the batch is complete). */
  async allFinal(batch: PayoutBatch): Promise<boolean> {
    if (batch.state !== 'done') return false;
    const payouts = await this.payoutsOf(batch);
    return (batch.results ?? []).every((r) => {
      const payout = r.result === 'refused' ? null : payouts.get(r.transactionId!);
      return r.result === 'refused' || (!!payout && isFinal('payout', payout.status));
    });
  }
}

function refused(
  item: { index: number; reference: string | null },
  problem: BatchItemProblem,
): StoredItemResult {
  return { index: item.index, reference: item.reference, result: 'refused', transactionId: null, problem };
}

function insufficientForBatch(): ApiProblem {
  return new ApiProblem('INSUFFICIENT_BALANCE', {
    detail: {
      en: "The account's balance does not cover all the items of this atomic batch that it pays (their chargedAmount): none was paid.",
      fr: "Le solde du compte ne couvre pas tous les éléments de ce lot atomique qu'il paie (leur chargedAmount) : aucun n'a été payé.",
    },
  });
}

/**
 * Each item checked as POST /v1/payout checks its body; a reference used by an earlier item of the
 * batch is refused. Only what passed is stored as sent: a refused item keeps its problem (and its
 * reference, if it was text), never its raw body (keys such as `$where` cannot even be stored).
 */
function checkItems(items: Record<string, unknown>[]): BatchItem[] {
  const seen = new Set<string>();
  return items.map((raw) => {
    const parsed = parseBatchItem(raw);
    const reference = typeof raw.reference === 'string' ? raw.reference.slice(0, 100) : null;
    if ('errors' in parsed)
      return { reference, problem: { code: 'VALIDATION_ERROR', errors: parsed.errors } };
    if (seen.has(parsed.item.reference)) return { reference, problem: refusedBy(duplicateInBatch()) };
    seen.add(parsed.item.reference);
    return { input: parsed.item };
  });
}

function inputOf(item: BatchItemInput): PayoutInput {
  return { ...item, pathPrefix: '' };
}
