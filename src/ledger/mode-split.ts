import type { Connection } from 'mongoose';
import { modeOfScope, modes, type Mode } from '../domain/modes';
import { currencies, type Currency } from '../domain/money';
import type { Accounts } from './accounts';
import { accountKeys } from './accounts';
import type { Chains } from './chain';
import { InsufficientFundsError } from './errors';
import type { AccountDoc, EntryDoc, LedgerModels } from './models';
import { duplicateKey } from './raw';
import { systemAccountNames, type SystemAccountName, type TransferRequest } from './types';

// System accounts used to be one per name and currency, shared by test and live money. They are now
// one per mode (accountKeys.system), and this split moves what each shared account holds to the
// accounts of the modes its entries belong to, with ordinary transfers: nothing is rewritten,
// nothing created or lost, and the journal of every currency still sums to zero.
//
// Each entry's mode is the mode of the merchant money it moved with: its counterparty's when that is
// a merchant account, else its transaction's owner (the caller's lookup). An entry neither tells
// stays in the shared account (ambiguity never moves money), counted as `unresolved`.
//
// Idempotent and safe under concurrency (docs/decisions/ledger/system-accounts-per-mode.md): a shared
// account is split by segments of its chain, each decided once by an insert-once plan (`_id` =
// `<accountId>:<fromSeq>`) holding what moves, and each move is a transfer under a fixed sourceRef.
// A process that dies anywhere leaves a plan a later start completes; entries an older process
// appended later form the next segment, moved at the next start.

const PLANS = 'ledger_mode_splits';
/** The sourceRef prefix of the split's own movements (never a share of a later segment). */
export const MODE_SPLIT_PREFIX = 'mode-split:';

export interface ModeSplitPlan {
  _id: string;
  accountId: string;
  key: string;
  fromSeq: number;
  toSeq: number;
  /** Sum of the segment's entries per mode (minor units, signed): what moves to that mode's account. */
  shares: Record<Mode, number>;
  /** Sum of the entries whose mode could not be told: they stay. */
  unresolved: number;
  unresolvedEntries: number;
  createdAt: Date;
}

export interface ModeSplitReport {
  /** Shared accounts found (name:currency). */
  accounts: string[];
  /** Money moved per shared account and mode by this call (0 when a replay found it moved). */
  moved: { key: string; mode: Mode; amount: number }[];
  /** Entries left in a shared account because their mode could not be told. */
  unresolvedEntries: number;
  /** Moves refused (a rule of the destination account): retried at the next start. */
  refused: { key: string; mode: Mode; amount: number }[];
}

/** The owner (tenant scope) of a transaction or refund id, or null when unknown. */
export type ScopeOfTransaction = (transactionId: string) => Promise<string | null>;

export interface SplitDeps {
  m: LedgerModels;
  conn: Connection;
  accounts: Accounts;
  chains: Chains;
  transfer: (req: TransferRequest) => Promise<{ applied: boolean }>;
  systemAccountId: (name: SystemAccountName, currency: Currency, mode: Mode) => Promise<string>;
}

export async function splitSharedSystemAccounts(
  deps: SplitDeps,
  scopeOfTransaction: ScopeOfTransaction,
): Promise<ModeSplitReport> {
  const report: ModeSplitReport = { accounts: [], moved: [], unresolvedEntries: 0, refused: [] };
  for (const name of systemAccountNames)
    for (const currency of currencies) {
      const shared = await deps.accounts.findByKey(accountKeys.sharedSystem(name, currency));
      if (!shared) continue;
      report.accounts.push(`${name}:${currency}`);
      await splitAccount(deps, shared, name, currency, scopeOfTransaction, report);
    }
  return report;
}

async function splitAccount(
  deps: SplitDeps,
  shared: AccountDoc,
  name: SystemAccountName,
  currency: Currency,
  scopeOfTransaction: ScopeOfTransaction,
  report: ModeSplitReport,
): Promise<void> {
  const plans = deps.conn.db!.collection<ModeSplitPlan>(PLANS);
  let fromSeq = 1;
  for (;;) {
    let plan = await plans.findOne({ _id: `${shared.id}:${fromSeq}` });
    if (!plan) {
      const head = await deps.chains.head(shared.id);
      if (!head || head.seq < fromSeq) return;
      const drafted = await draftPlan(deps, shared, fromSeq, head.seq, scopeOfTransaction);
      try {
        await plans.insertOne(drafted);
        plan = drafted;
      } catch (err) {
        // Another process decided this segment first: follow its plan.
        if (!duplicateKey(err)) throw err;
        plan = await plans.findOne({ _id: drafted._id });
        if (!plan) throw err;
      }
    }
    report.unresolvedEntries += plan.unresolvedEntries;
    await applyPlan(deps, shared, name, currency, plan, report);
    fromSeq = plan.toSeq + 1;
  }
}

/** What the entries [fromSeq, toSeq] of the shared account hold per mode. */
async function draftPlan(
  deps: SplitDeps,
  shared: AccountDoc,
  fromSeq: number,
  toSeq: number,
  scopeOfTransaction: ScopeOfTransaction,
): Promise<ModeSplitPlan> {
  // One range read of the segment (a scan on FerretDB, once per segment): the split runs off the
  // request path, and reading thousands of positions one `_id` at a time would be far slower.
  const entries = await deps.m.entries
    .find({ accountId: shared.id, seq: { $gte: fromSeq, $lte: toSeq } }, { _id: 0 })
    .lean<EntryDoc[]>()
    .exec();
  if (entries.length !== toSeq - fromSeq + 1)
    throw new Error(`ledger: ${shared.key} has ${entries.length} entries in [${fromSeq}, ${toSeq}]`);
  const shares: Record<Mode, number> = { test: 0, live: 0 };
  let unresolved = 0;
  let unresolvedEntries = 0;
  for (const e of entries) {
    if (e.sourceRef.startsWith(MODE_SPLIT_PREFIX)) continue;
    const mode = await modeOfEntry(deps, e, scopeOfTransaction);
    if (mode) shares[mode] += e.amount;
    else {
      unresolved += e.amount;
      unresolvedEntries++;
    }
  }
  return {
    _id: `${shared.id}:${fromSeq}`,
    accountId: shared.id,
    key: shared.key,
    fromSeq,
    toSeq,
    shares,
    unresolved,
    unresolvedEntries,
    createdAt: new Date(),
  };
}

/** The mode of the money an entry moved: its merchant counterparty's, else its transaction's. */
async function modeOfEntry(
  deps: SplitDeps,
  e: EntryDoc,
  scopeOfTransaction: ScopeOfTransaction,
): Promise<Mode | null> {
  const counterparty = await deps.accounts.accountDoc(e.counterpartyAccountId);
  if (counterparty?.merchantId) return modeOfScope(counterparty.merchantId);
  if (counterparty?.kind === 'system' && counterparty.mode) return counterparty.mode;
  if (e.transactionId) {
    const scope = await scopeOfTransaction(e.transactionId);
    if (scope) return modeOfScope(scope);
  }
  return null;
}

/**
 * The plan's moves, each a transfer under a fixed sourceRef (a replay applies nothing). Money into
 * the shared account first, then out of it, so it does not dip below what it holds on the way.
 */
async function applyPlan(
  deps: SplitDeps,
  shared: AccountDoc,
  name: SystemAccountName,
  currency: Currency,
  plan: ModeSplitPlan,
  report: ModeSplitReport,
): Promise<void> {
  const order = [...modes].sort((a, b) => plan.shares[a] - plan.shares[b]);
  for (const mode of order) {
    const share = plan.shares[mode];
    if (share === 0) continue;
    const target = await deps.systemAccountId(name, currency, mode);
    const move: TransferRequest = {
      sourceRef: `${MODE_SPLIT_PREFIX}${plan._id}:${mode}`,
      fromAccountId: share > 0 ? shared.id : target,
      toAccountId: share > 0 ? target : shared.id,
      amount: Math.abs(share),
      reason: `${name} ${currency}: ${mode} share of the account shared by both modes (entries ${plan.fromSeq}-${plan.toSeq})`,
      metadata: { modeSplit: plan._id, mode },
    };
    try {
      const { applied } = await deps.transfer(move);
      report.moved.push({ key: shared.key, mode, amount: applied ? share : 0 });
    } catch (err) {
      // A rule of the destination (an account that may not go below zero) refused it: the money
      // stays where it is, the plan stays, and the next start tries again.
      if (!(err instanceof InsufficientFundsError)) throw err;
      report.refused.push({ key: shared.key, mode, amount: share });
    }
  }
}
