import { timingSafeEqual } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Ledger } from '../ledger';
import type { KeyRing } from '../security/key-ring';
import type { Statement, StatementStore } from '../statements/store';
import type { CreateStatementRequest } from '../contract/schemas/statements';
import { ApiProblem } from '../contract/problems';
import { idOfKey, newId } from '../domain/ids';
import { statementWorkflowId } from '../temporal/workflow-ids';
import { startOnce } from '../temporal/start-once';
import { statementWorkflow } from '../../workflows/operations/statement';

// Statements as a story: check the account is the caller's, store the statement `pending` under an
// id its idempotency key names, start its workflow (which generates it and says `statement.ready`);
// reads give a download link signed for a short time, usable without credentials (docs/statements.md).

export interface StatementServiceDeps {
  statements: StatementStore;
  ledger: Ledger;
  temporal: Client;
  taskQueue: string;
  /** Signs download links (DATA_ENCRYPTION_KEYS, a purpose of its own). */
  keys: KeyRing;
  /** How long a download link works. */
  linkTtlMs: number;
  publicBaseUrl?: string | undefined;
}

const PURPOSE = 'statement-download';

export class StatementService {
  constructor(private readonly deps: StatementServiceDeps) {}

  async create(
    merchantId: string,
    body: CreateStatementRequest,
    idempotencyKey?: string,
  ): Promise<{ created: boolean; statement: Statement }> {
    const account = await this.deps.ledger.getAccount(body.accountId);
    if (!account || account.merchantId !== merchantId) throw new ApiProblem('ACCOUNT_NOT_FOUND');
    const draft: Statement = {
      id: idempotencyKey ? idOfKey('st', merchantId, idempotencyKey) : newId('st'),
      merchantId,
      accountId: account.id,
      currency: account.currency,
      from: new Date(body.from),
      to: new Date(body.to),
      format: body.format,
      status: 'pending',
      createdAt: new Date(),
      readyAt: null,
      openingBalance: null,
      closingBalance: null,
      entryCount: null,
      chunks: null,
      failure: null,
    };
    const stored = await this.deps.statements.insertOrGet(draft);
    // Started on every attempt: a crash after the insert is completed by the client's retry.
    await startOnce(this.deps.temporal, statementWorkflow, {
      taskQueue: this.deps.taskQueue,
      workflowId: statementWorkflowId(merchantId, stored.statement.id),
      args: [{ statementId: stored.statement.id }],
    });
    return stored;
  }

  list(
    merchantId: string,
    opts: { limit: number; accountId?: string; before?: { createdAt: Date; id: string } },
  ): Promise<{ statements: Statement[]; more: boolean }> {
    return this.deps.statements.list(merchantId, opts);
  }

  async get(merchantId: string, id: string): Promise<Statement> {
    const st = await this.deps.statements.find(merchantId, id);
    if (!st) throw new ApiProblem('STATEMENT_NOT_FOUND');
    return st;
  }

  /** A link to the content, signed over the statement, its merchant and the expiry. */
  downloadLink(st: Statement, requestOrigin: string, now = Date.now()): { url: string; expiresAt: Date } {
    const expires = Math.floor((now + this.deps.linkTtlMs) / 1000);
    const signature = this.sign(st, expires);
    const base = (this.deps.publicBaseUrl ?? requestOrigin).replace(/\/+$/, '');
    return {
      url: `${base}/v1/statements/${st.id}/download?expires=${expires}&signature=${signature}`,
      expiresAt: new Date(expires * 1000),
    };
  }

  /** The statement a link names, if the link is ours and not expired; else 403 (nothing told apart). */
  async open(id: string, expires: number, signature: string, now = Date.now()): Promise<Statement> {
    const st = await this.deps.statements.findById(id);
    const valid =
      st !== null &&
      expires * 1000 > now &&
      this.deps.keys.kids.some((kid) => same(this.sign(st, expires, kid), signature));
    if (!valid) throw new ApiProblem('DOWNLOAD_LINK_INVALID');
    if (st.status !== 'ready') throw new ApiProblem('STATEMENT_NOT_READY');
    return st;
  }

  content(st: Statement): AsyncGenerator<string> {
    return this.deps.statements.content(st);
  }

  private sign(st: Statement, expires: number, kid?: string): string {
    return this.deps.keys.mac(`${st.id}|${st.merchantId}|${expires}`, PURPOSE, kid).hex;
  }
}

function same(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
