import type { Router } from 'express';
import { toMajor } from '../../domain/money';
import { isLiveScope } from '../../domain/modes';
import type { Account, Ledger, LedgerEntry } from '../../ledger';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../validate';
import { accountEntriesQuery, type AccountRecord, type EntryRecord } from '../../contract/schemas/accounts';
import { newRouter, route } from '../routing';

// The calling merchant's accounts and statements. Another merchant's account answers exactly as an
// unknown one does (404), so ids reveal nothing across tenants.

function toAccountRecord(a: Account): AccountRecord {
  return {
    id: a.id,
    currency: a.currency,
    kind: a.kind === 'sub' ? 'sub' : 'main',
    name: a.name,
    available: toMajor(a.balance, a.currency),
    pending: 0,
    createdAt: a.createdAt.toISOString(),
    livemode: a.merchantId !== null && isLiveScope(a.merchantId),
  };
}

function toEntryRecord(e: LedgerEntry): EntryRecord {
  return {
    id: e.id,
    accountId: e.accountId,
    direction: e.amount < 0 ? 'debit' : 'credit',
    amount: toMajor(e.amount, e.currency),
    balanceAfter: toMajor(e.balanceAfter, e.currency),
    currency: e.currency,
    reason: e.reason,
    transactionId: e.transactionId,
    createdAt: e.createdAt.toISOString(),
  };
}

export function accountRoutes(ledger: Ledger): Router {
  const router = newRouter();

  const ownAccount = async (merchantId: string, id: string): Promise<Account> => {
    const account = await ledger.getAccount(id);
    if (!account || account.merchantId !== merchantId) throw new ApiProblem('ACCOUNT_NOT_FOUND');
    return account;
  };

  route(router, 'GET /v1/accounts', async (req, res) => {
    const accounts = await ledger.listAccounts(req.merchantId!);
    res.json({ data: accounts.map(toAccountRecord) });
  });

  route(router, 'GET /v1/accounts/:id', async (req, res) => {
    res.json(toAccountRecord(await ownAccount(req.merchantId!, req.params.id)));
  });

  route(router, 'GET /v1/accounts/:id/entries', async (req, res) => {
    const query = parseOr400(accountEntriesQuery, req.query, req);
    const account = await ownAccount(req.merchantId!, req.params.id);
    const page = await ledger.entries(account.id, query);
    res.json({
      data: page.entries.map(toEntryRecord),
      nextCursor: page.nextCursor,
      livemode: isLiveScope(req.merchantId!),
    });
  });

  return router;
}
