import type { Ledger } from '../ledger';
import { InsufficientFundsError } from '../ledger';
import type { TransactionStore } from '../persistence/transactions';
import type {
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
import { isFinal } from './transaction-workflows';
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

  private async processAtomic(batch: PayoutBatch): Promise<StoredItemResult[]> {
    if (batch.decision === 'refused') {
      await this.release(batch, batch.held);
      return batch.results ?? [];
    }
    if (batch.decision === 'accepted') return this.payFromHolds(batch);

    // 1. Every item checked, nothing written.
    const checked: Checked[] = [];
    for (const item of this.parseAll(batch)) checked.push(await this.check(batch, item));
    const wrong = checked.filter((c) => 'problem' in c);
    if (wrong.length > 0) return this.refuseAll(batch, checked, new Map());

    // 2. Held whole: one movement per account, in a fixed order, each recorded once applied.
    const holds = await this.holdsFor(batch, checked);
    const held = [...batch.held];
    for (const hold of holds) {
      try {
        await this.deps.ledger.transfer({
          sourceRef: holdRef(batch.id, hold.accountId),
          fromAccountId: hold.accountId,
          toAccountId: await this.deps.ledger.systemAccountId(
            'payout-holds',
            hold.currency,
            modeOfScope(batch.merchantId),
          ),
          amount: hold.amount,
          reason: `bulk payout ${batch.id}: hold`,
        });
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err;
        return this.refuseAll({ ...batch, held }, checked, new Map([[hold.accountId, true]]));
      }
      if (!held.some((h) => h.accountId === hold.accountId)) held.push(hold);
      await this.deps.batches.update(batch.id, { held });
    }

    // 3. Decided before anything is paid: from here on, the batch is paid (never released whole).
    await this.deps.batches.update(batch.id, { decision: 'accepted', held });
    return this.payFromHolds({ ...batch, decision: 'accepted', held });
  }

  /** Each item paid from its account's hold; what was held for items not paid goes back. */
  private async payFromHolds(batch: PayoutBatch): Promise<StoredItemResult[]> {
    const results: StoredItemResult[] = [];
    const funds = new Map<string, string>();
    for (const hold of batch.held)
      funds.set(
        hold.accountId,
        await this.deps.ledger.systemAccountId('payout-holds', hold.currency, modeOfScope(batch.merchantId)),
      );
    const spent = new Map<string, number>();
    for (const checked of this.parseAll(batch)) {
      if ('problem' in checked) {
        results.push(refused(checked, checked.problem));
        continue;
      }
      const draft = await this.draftOf(batch, checked.input).catch(() => null);
      const account = draft?.payout?.accountId;
      const from = account ? funds.get(account) : undefined;
      const result = from
        ? await this.pay(batch, checked.index, checked.input, from)
        : refused(checked, { code: 'BATCH_REFUSED' });
      if (result.result === 'accepted' && account) {
        const tx = await this.deps.transactions.findById(result.transactionId!);
        if (tx?.payout?.fundedFrom) spent.set(account, (spent.get(account) ?? 0) + tx.chargedAmount);
      }
      results.push(result);
    }
    await this.release(
      batch,
      batch.held.map((h) => ({ ...h, amount: h.amount - (spent.get(h.accountId) ?? 0) })),
    );
    return results;
  }

  /** Every item refused: its own problem, or `short` accounts' INSUFFICIENT_BALANCE, or BATCH_REFUSED. */
  private async refuseAll(
    batch: PayoutBatch,
    checked: Checked[],
    short: Map<string, boolean>,
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
    // Written before the holds go back: a later attempt releases, it never pays.
    await this.deps.batches.update(batch.id, { decision: 'refused', held: batch.held, results });
    await this.release(batch, batch.held);
    return results;
  }

  private async release(batch: PayoutBatch, holds: BatchHold[]): Promise<void> {
    for (const hold of holds) {
      if (hold.amount <= 0) continue;
      await this.deps.ledger.transfer({
        sourceRef: releaseRef(batch.id, hold.accountId),
        fromAccountId: await this.deps.ledger.systemAccountId(
          'payout-holds',
          hold.currency,
          modeOfScope(batch.merchantId),
        ),
        toAccountId: hold.accountId,
        amount: hold.amount,
        reason: `bulk payout ${batch.id}: release`,
      });
    }
  }

  /** What each account must hold: the sum of its items' chargedAmount (items already paid aside). */
  private async holdsFor(batch: PayoutBatch, checked: Checked[]): Promise<BatchHold[]> {
    const holds = new Map<string, BatchHold>();
    for (const c of checked) {
      if ('problem' in c || c.existing) continue;
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
    return (batch.results ?? []).every(
      (r) =>
        r.result === 'refused' || (payouts.get(r.transactionId!) && isFinal(payouts.get(r.transactionId!)!)),
    );
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
