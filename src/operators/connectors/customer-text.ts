import type { Country, OperatorCode } from '../../domain/operators';
import type {
  CollectionRequest,
  CustomerText,
  DisbursementRequest,
  OperatorGateway,
  OperatorKind,
  OperatorStatement,
  OperatorStatus,
  PartnerCheckResult,
  RefundRequest,
} from '../gateway';

// What a customer reads of a payment on its phone (the approval prompt, the SMS receipt, the wallet's
// history): the merchant's name and the merchant's own reference, which the customer can recognise,
// never our ids (`pr_…`, `rf_…`). Each provider takes another length and character set: its
// connector states them as TextLimits and fits the text with customerLabel().

export interface TextLimits {
  /** At most this many characters. */
  max: number;
  /** Fewer than this and the text is not sent (the provider's default applies). */
  min?: number;
  /** One character the provider accepts (any other becomes a space). */
  allowed: RegExp;
}

/** Accents off (Côte → Cote), refused characters to spaces, spaces collapsed. */
function clean(text: string, allowed: RegExp): string {
  return [...text.normalize('NFD').replace(/\p{M}+/gu, '')]
    .map((c) => (allowed.test(c) ? c : ' '))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * "<merchant> <reference>" within the provider's limits: the reference is kept whole where it fits
 * (it is what tells two payments to the same merchant apart), the name shortened first. Null when
 * nothing of at least `min` characters is left.
 */
export function customerLabel(text: CustomerText | undefined, limits: TextLimits): string | null {
  if (!text) return null;
  const ref = clean(text.reference, limits.allowed);
  const name = clean(text.merchant ?? '', limits.allowed);
  const full = [name, ref].filter((s) => s.length > 0).join(' ');
  let label: string;
  if (full.length <= limits.max) label = full;
  else if (name && ref.length + 2 <= limits.max)
    label = `${name.slice(0, limits.max - ref.length - 1).trim()} ${ref}`;
  else label = (ref || name).slice(0, limits.max).trim();
  return label.length >= (limits.min ?? 1) ? label : null;
}

/** Who the customer deals with and the reference it knows, for one of our ids; null when unknown. */
export type CustomerTextOf = (kind: OperatorKind, id: string) => Promise<CustomerText | null>;

/**
 * Adds the customer's text to each new request (read from our records by its id) before the
 * connector sends it: the workflows and their histories stay as they are. Reads pass through.
 */
export class CustomerTextGateway implements OperatorGateway {
  constructor(
    private readonly inner: OperatorGateway,
    private readonly textOf: CustomerTextOf,
  ) {}

  private async with<R extends { customerText?: CustomerText }>(
    kind: OperatorKind,
    id: string,
    req: R,
  ): Promise<R> {
    if (req.customerText) return req;
    const customerText = await this.textOf(kind, id);
    return customerText ? { ...req, customerText } : req;
  }

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    return this.inner.requestCollection(await this.with('collection', req.transactionId, req));
  }
  collectionStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.inner.collectionStatus(id, operator, country);
  }
  partnerCheck(id: string, operator: OperatorCode, country: Country): Promise<PartnerCheckResult> {
    return this.inner.partnerCheck(id, operator, country);
  }
  async disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    return this.inner.disburse(await this.with('disbursement', req.transactionId, req));
  }
  disbursementStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.inner.disbursementStatus(id, operator, country);
  }
  async refund(req: RefundRequest): Promise<OperatorStatus> {
    return this.inner.refund(await this.with('refund', req.refundId, req));
  }
  refundStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.inner.refundStatus(id, operator, country);
  }
  cancel(kind: OperatorKind, id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.inner.cancel(kind, id, operator, country);
  }
  statement(operator: OperatorCode, date: string): Promise<OperatorStatement> {
    return this.inner.statement(operator, date);
  }
}
