import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Country, OperatorCode } from '../domain/operators';
import type { SandboxScenario } from '../domain/transaction';
import type { CallbackKind } from '../operators/wire';
import type { MagicBehaviour } from './magic-numbers';

// The sandbox operator's books: every transaction it holds, by kind and our id. With a data
// directory they are durable: each change appends the whole record to a JSON-lines journal, and a
// start replays it (last line of a key wins), then rewrites it compacted. Appends are synchronous,
// so an answer is only sent once its change is in the file: a killed simulator forgets nothing it
// said. Node 20 has no built-in database (node:sqlite is 22.5+), and the sandbox needs no server.

export interface SimTransaction {
  kind: CallbackKind;
  id: string;
  operator: OperatorCode;
  country: Country;
  msisdn: string;
  amount: number;
  currency: string;
  /** What the operator charged on it (integer minor units); 0 in the sandbox unless a test sets it. */
  fee: number;
  scenario: SandboxScenario;
  magic: MagicBehaviour | null;
  outcome: 'pending' | 'completed' | 'failed';
  failure: { code: string; message: string } | null;
  operatorReference: string;
  paymentUrl: string | null;
  ussdCode: string | null;
  callbackUrl: string | null;
  /** Refunds: the collection they reverse. */
  originalId: string | null;
  /** Requests received for this id; one transaction whatever the count. */
  requests: number;
  partnerChecks: number;
  partnerCollected: boolean;
  /**
   * A cancellation of an id the operator had never seen: it holds the id so that a request arriving
   * later is answered cancelled and never executed. Not money: never on a statement.
   */
  tombstone: boolean;
  createdAt: string;
  /** When the outcome became final (or the partner found the funds); null while pending. */
  finalizedAt: string | null;
}

type JournalLine = { op: 'put'; tx: SimTransaction } | { op: 'del'; key: string };

export const bookKey = (kind: CallbackKind, id: string) => `${kind}:${id}`;

export class Books {
  private readonly txs = new Map<string, SimTransaction>();
  private readonly journal: string | null;

  /** Without a data directory the books live in memory only (a restart forgets them). */
  constructor(dataDir?: string | null) {
    this.journal = dataDir ? join(dataDir, 'books.jsonl') : null;
    if (!dataDir || !this.journal) return;
    mkdirSync(dataDir, { recursive: true });
    this.replay(this.journal);
  }

  get map(): ReadonlyMap<string, SimTransaction> {
    return this.txs;
  }

  get(kind: CallbackKind, id: string): SimTransaction | undefined {
    return this.txs.get(bookKey(kind, id));
  }

  all(): IterableIterator<SimTransaction> {
    return this.txs.values();
  }

  /** Records a new or changed transaction (the caller mutates the object it got, then saves it). */
  save(tx: SimTransaction): void {
    this.txs.set(bookKey(tx.kind, tx.id), tx);
    this.append({ op: 'put', tx });
  }

  delete(kind: CallbackKind, id: string): boolean {
    const key = bookKey(kind, id);
    if (!this.txs.delete(key)) return false;
    this.append({ op: 'del', key });
    return true;
  }

  private append(line: JournalLine): void {
    if (this.journal) appendFileSync(this.journal, `${JSON.stringify(line)}\n`);
  }

  private replay(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      let line: JournalLine;
      try {
        line = JSON.parse(raw) as JournalLine;
      } catch {
        continue; // a line cut short by a kill mid-append: its change was never answered
      }
      if (line.op === 'put') this.txs.set(bookKey(line.tx.kind, line.tx.id), withDefaults(line.tx));
      else if (line.op === 'del') this.txs.delete(line.key);
    }
    // Compacted: one line per transaction, written aside then renamed over (never half a journal).
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, [...this.txs.values()].map((tx) => `${JSON.stringify({ op: 'put', tx })}\n`).join(''));
    renameSync(tmp, file);
  }
}

/** Journals written before a field existed. */
function withDefaults(tx: SimTransaction): SimTransaction {
  return {
    ...tx,
    fee: tx.fee ?? 0,
    tombstone: tx.tombstone ?? false,
    finalizedAt: tx.finalizedAt ?? null,
  };
}
