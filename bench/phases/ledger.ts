import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { Ledger, type Account } from '../../src/ledger';
import { pool, round } from '../common';

// Phase 5: ledger postings on one hot account and spread over 100 accounts, from the bench's own
// connection (as a worker would).

export async function ledgerBench(mongo: Connection, postings: number, width: number) {
  const ledger = Ledger.on(mongo);
  const owner = `mer_bench_${randomUUID().slice(0, 8)}`;
  const funding = await ledger.systemAccount('sandbox-funding', 'XOF', 'test');
  // Set-up, not measured: one at a time (100 concurrent inserts overrun FerretDB's SQLite writer).
  const accounts: Account[] = [];
  for (let i = 0; i < 100; i++) accounts.push(await ledger.createSubAccount(owner, 'XOF', `a${i}`));
  const hot = await ledger.createSubAccount(owner, 'XOF', 'hot');
  for (const a of [hot, ...accounts])
    await ledger.transfer({
      sourceRef: `fund:${a.id}`,
      fromAccountId: funding.id,
      toAccountId: a.id,
      amount: 1e9,
      reason: 'bench',
    });
  const run = async (label: string, pick: (i: number) => [string, string]) => {
    const ops = Array.from({ length: postings }, (_, i) => i);
    const start = Date.now();
    await pool(ops, width, async (i) => {
      const [from, to] = pick(i);
      await ledger.transfer({
        sourceRef: `${label}:${owner}:${i}`,
        fromAccountId: from,
        toAccountId: to,
        amount: 1,
        reason: 'bench',
      });
    });
    const seconds = (Date.now() - start) / 1000;
    return {
      transfers: postings,
      transfersPerSecond: round(postings / seconds),
      entriesPerSecond: round((2 * postings) / seconds),
    };
  };
  // Hot: every transfer debits the same account. Spread: each account is one of 100.
  const hotFigures = await run('hot', (i) => [hot.id, accounts[i % 100]!.id]);
  const spread = await run('spread', (i) => [accounts[i % 100]!.id, accounts[(i + 37) % 100]!.id]);
  return {
    hotAccount: hotFigures,
    spread100: spread,
    ratio: round(hotFigures.transfersPerSecond / spread.transfersPerSecond),
  };
}
