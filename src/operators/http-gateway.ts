import type { z } from 'zod';
import type { Country, OperatorCode } from '../domain/operators';
import {
  OperatorConflictError,
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type DisbursementRequest,
  type OperatorGateway,
  type OperatorKind,
  type OperatorStatement,
  type OperatorStatus,
  type PartnerCheckResult,
  type RefundRequest,
} from './gateway';
import {
  operatorStatementBody,
  operatorStatusBody,
  partnerCheckBody,
  type CollectionRequestBody,
  type DisbursementRequestBody,
  type OperatorStatusBody,
  type RefundRequestBody,
} from './wire';

export interface HttpOperatorGatewayOptions {
  /** Base URL of the operator endpoint (the simulator in the sandbox). */
  baseUrl: string;
  /** A call that has not answered after this long is abandoned and thrown as retryable. */
  timeoutMs: number;
  /** The service's public base URL; operators call back `<it>/operator-callbacks/<CODE>`. */
  callbackBaseUrl?: string | null;
}

const collectionsOf: Record<OperatorKind, string> = {
  collection: 'collections',
  disbursement: 'disbursements',
  refund: 'refunds',
};

/**
 * The OperatorGateway over HTTP. No answer in time, a network error, a 5xx, a 429 or an unreadable
 * answer throw OperatorUnavailableError (the activity retries with the same id, which the operator
 * deduplicates); a 409 throws OperatorConflictError and any other 4xx OperatorRejectedError; a 404
 * on a status read is `unknown`, never a failure. Answers are parsed, never trusted.
 */
export class HttpOperatorGateway implements OperatorGateway {
  private readonly baseUrl: string;

  constructor(private readonly opts: HttpOperatorGatewayOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
  }

  requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    const body: CollectionRequestBody = {
      transactionId: req.transactionId,
      country: req.country,
      msisdn: req.msisdn,
      amount: req.amount,
      currency: req.currency as CollectionRequestBody['currency'],
      ...(req.otp ? { otp: req.otp } : {}),
      sandboxScenario: req.sandboxScenario,
      ...(req.sandboxScope ? { sandboxScope: req.sandboxScope } : {}),
      ...this.callback(req.operator),
    };
    return this.status('POST', `/operators/${req.operator}/collections`, body);
  }

  collectionStatus(transactionId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.status('GET', this.path(operator, 'collections', transactionId, country));
  }

  async partnerCheck(
    transactionId: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<PartnerCheckResult> {
    const res = await this.call(
      'POST',
      `${this.path(operator, 'collections', transactionId, country, '/partner-check')}`,
      {},
      partnerCheckBody,
    );
    if (res === 'not-found') return { collected: false };
    return {
      collected: res.collected,
      ...(res.operatorReference ? { operatorReference: res.operatorReference } : {}),
    };
  }

  disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    const body: DisbursementRequestBody = {
      transactionId: req.transactionId,
      country: req.country,
      msisdn: req.msisdn,
      amount: req.amount,
      currency: req.currency as DisbursementRequestBody['currency'],
      sandboxScenario: req.sandboxScenario,
      ...(req.sandboxScope ? { sandboxScope: req.sandboxScope } : {}),
      ...this.callback(req.operator),
    };
    return this.status('POST', `/operators/${req.operator}/disbursements`, body);
  }

  disbursementStatus(
    transactionId: string,
    operator: OperatorCode,
    country: Country,
  ): Promise<OperatorStatus> {
    return this.status('GET', this.path(operator, 'disbursements', transactionId, country));
  }

  refund(req: RefundRequest): Promise<OperatorStatus> {
    const body: RefundRequestBody = {
      refundId: req.refundId,
      transactionId: req.transactionId,
      country: req.country,
      amount: req.amount,
      currency: req.currency as RefundRequestBody['currency'],
      sandboxScenario: req.sandboxScenario,
      ...this.callback(req.operator),
    };
    return this.status('POST', `/operators/${req.operator}/refunds`, body);
  }

  refundStatus(refundId: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.status('GET', this.path(operator, 'refunds', refundId, country));
  }

  cancel(kind: OperatorKind, id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.status('POST', this.path(operator, collectionsOf[kind], id, country, '/cancel'), {});
  }

  async statement(operator: OperatorCode, date: string): Promise<OperatorStatement> {
    const res = await this.call(
      'GET',
      `/operators/${operator}/statements/${encodeURIComponent(date)}`,
      undefined,
      operatorStatementBody,
    );
    if (res === 'not-found') return { operator, date, generatedAt: new Date().toISOString(), entries: [] };
    return {
      ...res,
      operator,
      entries: res.entries.map((e) => ({ ...e, originalId: e.originalId ?? null })),
    };
  }

  private callback(operator: OperatorCode): { callbackUrl?: string } {
    const base = this.opts.callbackBaseUrl?.replace(/\/+$/, '');
    return base ? { callbackUrl: `${base}/operator-callbacks/${operator}` } : {};
  }

  private path(operator: OperatorCode, what: string, id: string, country: Country, suffix = ''): string {
    return `/operators/${operator}/${what}/${encodeURIComponent(id)}${suffix}?country=${country}`;
  }

  /**
   * A 404 on a status read: the operator does not know the id (yet). Not a failure: the request
   * may still be on its way, or the operator's read side may lag behind its write side.
   */
  private async status(method: 'GET' | 'POST', path: string, body?: unknown): Promise<OperatorStatus> {
    const res = await this.call(method, path, body, operatorStatusBody);
    if (res === 'not-found') return { outcome: 'unknown', operatorReference: '' };
    return toStatus(res);
  }

  private async call<S extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    schema: S,
  ): Promise<z.infer<S> | 'not-found'> {
    const where = `${method} ${path.split('?')[0]}`;
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const reason =
        (err as Error).name === 'TimeoutError' ? `no answer in ${this.opts.timeoutMs} ms` : String(err);
      throw new OperatorUnavailableError(`${where}: ${reason}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new OperatorUnavailableError(`${where}: ${String(err)}`);
    }
    if (res.status === 404 && method === 'GET') return 'not-found';
    if (res.status === 404 && path.includes('/partner-check')) return 'not-found';
    if (res.status >= 500 || res.status === 429)
      throw new OperatorUnavailableError(`${where}: HTTP ${res.status}`);
    // Only the operator's error code travels on: its body may echo the request (phone numbers).
    if (res.status === 409) throw new OperatorConflictError(`${where}: HTTP 409 ${errorCodeOf(text)}`);
    if (!res.ok) throw new OperatorRejectedError(`${where}: HTTP ${res.status} ${errorCodeOf(text)}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OperatorUnavailableError(`${where}: the answer is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new OperatorUnavailableError(`${where}: unexpected answer`);
    return parsed.data;
  }
}

/** The `error` code of an operator's error body, if it has one; never the rest of the body. */
function errorCodeOf(text: string): string {
  try {
    const code = (JSON.parse(text) as { error?: unknown }).error;
    return typeof code === 'string' ? code.slice(0, 60) : '';
  } catch {
    return '';
  }
}

function toStatus(b: OperatorStatusBody): OperatorStatus {
  return {
    outcome: b.outcome,
    operatorReference: b.operatorReference,
    ...(b.failure ? { failure: b.failure } : {}),
    ...(b.paymentUrl ? { paymentUrl: b.paymentUrl } : {}),
    ...(b.ussdCode ? { ussdCode: b.ussdCode } : {}),
  };
}
