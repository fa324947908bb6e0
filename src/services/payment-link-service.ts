import { createHash } from 'node:crypto';
import {
  paymentLinkRecord,
  type CreatePaymentLinkRequest,
  type PaymentLinkRecord,
  type UpdatePaymentLinkRequest,
} from '../contract/schemas/payment-links';
import { ApiProblem } from '../contract/problems';
import { fieldMessages, problemAt } from '../contract/field-messages';
import type { Language, Text } from '../contract/i18n';
import { currencyByCountry, isOffered, operatorsByCountry, type OperatorCode } from '../domain/operators';
import { providerInfo } from '../domain/providers';
import { isLiveScope } from '../domain/modes';
import { toMajor } from '../domain/money';
import type { Transaction } from '../domain/transaction';
import {
  newLinkId,
  type LinkPayin,
  type PaymentLink,
  type PaymentLinkStore,
} from '../persistence/payment-links';
import type { TransactionStore } from '../persistence/transactions';
import type { PayinService } from './payin-service';
import { normalizeTypedMsisdn } from '../domain/msisdn';
import { isFinal } from '../domain/final-status';
import type { Country } from '../domain/operators';

// Payment links: their rules, records and statistics (docs/payment-links.md). Paying through a
// link goes through PayinService.createSession, the API's own session use case.

export interface PaymentLinkServiceDeps {
  links: PaymentLinkStore;
  transactions: TransactionStore;
  /** The API's own session use case: a link's payin meets every payin rule. */
  payins: PayinService;
  /** PUBLIC_BASE_URL: where customers reach the link's page; unset, the request's own origin. */
  publicBaseUrl?: string | undefined;
}

export interface LinkStats {
  opened: number;
  attempted: number;
  paid: number;
  /** Whole units. */
  paidTotal: number;
}

/** A link's payins read for its statistics: the newest this many (docs/payment-links.md). */
const STATS_READ_MAX = 1_000;

export type LinkState = 'active' | 'inactive' | 'expired' | 'spent';

/** The link page's form, as posted (every field a string, or absent). */
export interface LinkForm {
  token?: string | undefined;
  amount?: string | undefined;
  country?: string | undefined;
  msisdn?: string | undefined;
  name?: string | undefined;
  email?: string | undefined;
  answer?: string | undefined;
}

/** A payin opened, or why the link takes none now (`busy`: a single-use link's payin is under way). */
export type PayOutcome = { transaction: Transaction } | { refused: Exclude<LinkState, 'active'> | 'busy' };

export class PaymentLinkService {
  constructor(private readonly deps: PaymentLinkServiceDeps) {}

  /** The operators a link takes and their common bounds (whole units). */
  static bounds(link: Pick<PaymentLink, 'countries' | 'operators'>): { min: number; max: number } {
    const infos = link.countries.flatMap((c) =>
      link.operators.filter((o) => isOffered(o, c)).map((o) => providerInfo(o, c)),
    );
    return {
      min: Math.min(...infos.map((i) => i.minAmount)),
      max: Math.max(...infos.map((i) => i.maxAmount)),
    };
  }

  /** The amounts a customer may pay on the link: its own bounds within its operators'. */
  static amountRange(link: PaymentLink): { min: number; max: number } {
    const ops = PaymentLinkService.bounds(link);
    if (link.amount.type === 'fixed') return { min: link.amount.value, max: link.amount.value };
    return { min: link.amount.min ?? ops.min, max: link.amount.max ?? ops.max };
  }

  async create(merchantId: string, body: CreatePaymentLinkRequest): Promise<PaymentLink> {
    const countries = [...new Set(body.countries)];
    const errors: { path: string; message: Text }[] = [];
    countries.forEach((c, i) => {
      if (currencyByCountry[c] !== body.currency)
        errors.push({
          path: `countries.${i}`,
          message: fieldMessages.currencyOfCountry(c, currencyByCountry[c]),
        });
    });
    const offered = [...new Set(countries.flatMap((c) => operatorsByCountry[c]))];
    const asked = body.operators?.length ? [...new Set(body.operators)] : offered;
    asked.forEach((o, i) => {
      if (!offered.includes(o))
        errors.push({
          path: `operators.${i}`,
          message: fieldMessages.paymentLink.operatorNotOffered(o, countries.join(', '), offered.join(', ')),
        });
    });
    if (errors.length) throw new ApiProblem('VALIDATION_ERROR', { detail: errors[0]!.message, errors });
    const operators = asked.filter((o): o is OperatorCode => offered.includes(o));
    checkAmount(body.amount, body.currency, { countries, operators }, body.cap);
    if (body.expiresAt && Date.parse(body.expiresAt) <= Date.now())
      throw problemAt('VALIDATION_ERROR', 'expiresAt', fieldMessages.paymentLink.notInFuture);
    const now = new Date();
    return this.deps.links.create({
      id: newLinkId(),
      merchantId,
      title: body.title,
      description: body.description || null,
      amount: body.amount,
      currency: body.currency,
      countries,
      operators,
      usage: body.usage,
      expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
      cap: body.cap && Object.keys(body.cap).length ? body.cap : null,
      customerFields: {
        name: body.customerFields?.name ?? true,
        email: body.customerFields?.email ?? false,
        question: body.customerFields?.question ?? null,
      },
      thankYouMessage: body.thankYouMessage || null,
      returnUrl: body.returnUrl ?? null,
      metadata: body.metadata ?? {},
      referencePrefix: body.referencePrefix,
      active: true,
      deactivatedAt: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  async get(merchantId: string, id: string): Promise<PaymentLink> {
    const link = await this.deps.links.get(merchantId, id);
    if (!link) throw new ApiProblem('PAYMENT_LINK_NOT_FOUND');
    return link;
  }

  async update(merchantId: string, id: string, body: UpdatePaymentLinkRequest): Promise<PaymentLink> {
    const link = await this.get(merchantId, id);
    if (body.expiresAt && Date.parse(body.expiresAt) <= Date.now())
      throw problemAt('VALIDATION_ERROR', 'expiresAt', fieldMessages.paymentLink.notInFuture);
    if (body.cap) checkAmount(link.amount, link.currency, link, body.cap);
    const changed: PaymentLink = {
      ...link,
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description || null } : {}),
      ...(body.expiresAt !== undefined
        ? { expiresAt: body.expiresAt ? new Date(body.expiresAt) : null }
        : {}),
      ...(body.cap !== undefined ? { cap: body.cap && Object.keys(body.cap).length ? body.cap : null } : {}),
      ...(body.thankYouMessage !== undefined ? { thankYouMessage: body.thankYouMessage || null } : {}),
      ...(body.returnUrl !== undefined ? { returnUrl: body.returnUrl } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      updatedAt: new Date(),
    };
    await this.deps.links.replace(changed);
    return changed;
  }

  /** Stops the link for good: its page answers 410; payins already opened go on. */
  async deactivate(merchantId: string, id: string): Promise<PaymentLink> {
    const link = await this.get(merchantId, id);
    if (!link.active) return link;
    const now = new Date();
    const changed = { ...link, active: false, deactivatedAt: now, updatedAt: now };
    await this.deps.links.replace(changed);
    return changed;
  }

  async list(merchantId: string, opts: { limit: number; before?: { createdAt: Date; id: string } }) {
    return this.deps.links.list(merchantId, opts);
  }

  /** The payins under a link, each read through the transaction store (its current status). */
  async payments(
    link: PaymentLink,
    opts: { limit: number; before?: { createdAt: Date; id: string } },
  ): Promise<{ payments: { transaction: Transaction; asked: LinkPayin }[]; next: LinkPayin | null }> {
    const { payins, more } = await this.deps.links.payinsOf(link.id, opts);
    const found = await Promise.all(payins.map((p) => this.deps.transactions.findById(p._id)));
    return {
      payments: payins.flatMap((asked, i) => {
        const transaction = found[i];
        return transaction && transaction.merchantId === link.merchantId ? [{ transaction, asked }] : [];
      }),
      next: more ? payins[payins.length - 1]! : null,
    };
  }

  /** How many payins were opened under the link (an export counts them before it starts). */
  async paymentCount(link: PaymentLink): Promise<number> {
    return this.deps.links.payinCount(link.id);
  }

  /** Every payin under the link, newest first, read a page at a time (an export): one page held. */
  async *walkPayments(link: PaymentLink, pageSize = 100): AsyncGenerator<Transaction> {
    let before: { createdAt: Date; id: string } | undefined;
    for (;;) {
      const page = await this.payments(link, { limit: pageSize, ...(before ? { before } : {}) });
      for (const { transaction } of page.payments) yield transaction;
      if (!page.next) return;
      before = { createdAt: page.next.createdAt, id: page.next._id };
    }
  }

  /** Opened, attempted and paid, from the link's newest STATS_READ_MAX payins. */
  async stats(link: PaymentLink): Promise<LinkStats> {
    const [payins, opened] = await Promise.all([
      this.deps.links.allPayinsOf(link.id, STATS_READ_MAX),
      this.deps.links.openedCount(link.id),
    ]);
    const txs = await Promise.all(payins.map((p) => this.deps.transactions.findById(p._id)));
    const paid = txs.filter((t): t is Transaction => t?.status === 'success');
    return {
      opened,
      attempted: payins.length,
      paid: paid.length,
      paidTotal: paid.reduce((sum, t) => sum + toMajor(t.amount, t.currency), 0),
    };
  }

  static state(link: PaymentLink, stats: LinkStats, now = Date.now()): LinkState {
    if (!link.active) return 'inactive';
    if (link.expiresAt && link.expiresAt.getTime() <= now) return 'expired';
    if (link.usage === 'single' && stats.paid > 0) return 'spent';
    if (link.cap?.maxPayments !== undefined && stats.paid >= link.cap.maxPayments) return 'spent';
    if (link.cap?.maxTotal !== undefined && stats.paidTotal >= link.cap.maxTotal) return 'spent';
    return 'active';
  }

  url(link: PaymentLink, requestOrigin: string): string {
    return `${(this.deps.publicBaseUrl ?? requestOrigin).replace(/\/+$/, '')}/l/${link.slug}`;
  }

  async record(link: PaymentLink, requestOrigin: string): Promise<PaymentLinkRecord> {
    const stats = await this.stats(link);
    const url = this.url(link, requestOrigin);
    return paymentLinkRecord.parse({
      id: link.id,
      slug: link.slug,
      url,
      title: link.title,
      description: link.description,
      amount: link.amount,
      currency: link.currency,
      countries: link.countries,
      operators: link.operators,
      usage: link.usage,
      expiresAt: link.expiresAt ? link.expiresAt.toISOString() : null,
      cap: link.cap,
      customerFields: link.customerFields,
      thankYouMessage: link.thankYouMessage,
      returnUrl: link.returnUrl,
      metadata: link.metadata,
      referencePrefix: link.referencePrefix,
      status: PaymentLinkService.state(link, stats),
      share: shareTexts(link, url),
      stats,
      livemode: isLiveScope(link.merchantId),
      createdAt: link.createdAt.toISOString(),
      updatedAt: link.updatedAt.toISOString(),
      deactivatedAt: link.deactivatedAt ? link.deactivatedAt.toISOString() : null,
    });
  }

  /** The link behind a page's slug, counted as opened when `view` (best effort). */
  async bySlug(slug: string, view = false): Promise<PaymentLink | null> {
    const link = await this.deps.links.bySlug(slug);
    if (link && view) await this.deps.links.countOpened(link.id).catch(() => undefined);
    return link;
  }

  /**
   * A customer's submission on the link's page: the link still takes payments, the fields and the
   * amount are within bounds (before any push), then a payin session through PayinService. The
   * form's token makes a double tap the same payin: its reference and idempotency key derive from it.
   */
  async pay(
    link: PaymentLink,
    form: LinkForm,
    requestOrigin: string,
    lang: Language = 'en',
  ): Promise<PayOutcome> {
    const state = PaymentLinkService.state(link, await this.stats(link));
    if (state !== 'active') return { refused: state };
    const errors: { path: string; message: Text }[] = [];
    const country: Country | undefined =
      link.countries.length === 1 ? link.countries[0] : link.countries.find((c) => c === form.country);
    if (!country) errors.push({ path: 'country', message: fieldMessages.required });
    const range = PaymentLinkService.amountRange(link);
    const amount =
      link.amount.type === 'fixed' ? link.amount.value : Number(form.amount?.replace(/[\s\u00a0.,]/g, ''));
    if (!Number.isInteger(amount) || amount < range.min || amount > range.max)
      errors.push({
        path: 'amount',
        message: fieldMessages.paymentLink.amountOutOfRange(range.min, range.max, link.currency),
      });
    const msisdn = country ? normalizeTypedMsisdn(form.msisdn ?? '', country) : null;
    if (country && !msisdn) errors.push({ path: 'msisdn', message: fieldMessages.customer.typedNumber });
    const name = form.name?.trim() ?? '';
    if (link.customerFields.name && !name) errors.push({ path: 'name', message: fieldMessages.required });
    if (name.length > 100) errors.push({ path: 'name', message: fieldMessages.paymentLink.tooLong(100) });
    const email = form.email?.trim() ?? '';
    if (link.customerFields.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      errors.push({ path: 'email', message: fieldMessages.paymentLink.email });
    const answer = form.answer?.trim() ?? '';
    if (link.customerFields.question && !answer)
      errors.push({ path: 'answer', message: fieldMessages.required });
    if (answer.length > 500) errors.push({ path: 'answer', message: fieldMessages.paymentLink.tooLong(500) });
    if (!form.token || !/^[A-Za-z0-9_-]{16,64}$/.test(form.token))
      errors.push({ path: 'token', message: fieldMessages.paymentLink.reload });
    if (errors.length || !country || !msisdn) throw new ApiProblem('VALIDATION_ERROR', { errors });

    const reference = PaymentLinkService.referenceOf(link, form.token!);
    if (link.usage === 'single') {
      const busy = await this.claimSingleUse(link, reference);
      if (busy) return busy;
    }
    const base = (this.deps.publicBaseUrl ?? requestOrigin).replace(/\/+$/, '');
    const page = `${base}/l/${link.slug}`;
    const { transaction } = await this.deps.payins.createSession(
      link.merchantId,
      {
        reference,
        amount,
        msisdn,
        ...(name ? { customerName: name } : {}),
        country,
        // The link's own pages stay in the language the customer chose on it (a merchant's
        // returnUrl is left as given).
        action: {
          successUrl: link.returnUrl ?? `${page}/thanks?lang=${lang}`,
          failureUrl: `${page}?lang=${lang}`,
        },
        ...(Object.keys(link.metadata).length ? { metadata: link.metadata } : {}),
      },
      // The idempotency key names the link and the form: another link's form never collides.
      {
        idempotencyKey: `link:${link.id}:${form.token}`,
        requestOrigin,
        paymentLinkId: link.id,
        // The checkout offers the link's operators of this country only.
        operators: link.operators.filter((o) => isOffered(o, country)),
      },
    );
    await this.deps.links.recordPayin({
      _id: transaction.id,
      linkId: link.id,
      merchantId: link.merchantId,
      reference,
      amount,
      email: email || null,
      answer: answer || null,
      createdAt: transaction.createdAt,
    });
    return { transaction };
  }

  /**
   * A single-use link takes one payin at a time: the claim's unique `_id` decides between two
   * customers (docs/decisions/payment-links/single-use-claim.md). A claim whose payin ended
   * without success is released for the next customer; one that succeeded spends the link.
   */
  private async claimSingleUse(link: PaymentLink, reference: string): Promise<PayOutcome | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claim = await this.deps.links.claim(link.id, reference);
      if ('claimed' in claim || claim.heldBy === reference) return null;
      const held = claim.heldBy
        ? await this.deps.transactions.find(link.merchantId, 'payin', claim.heldBy)
        : null;
      if (held?.status === 'success') return { refused: 'spent' };
      if (held && !isFinal('payin', held.status)) return { refused: 'busy' };
      // Not stored yet: its customer may be between the claim and the payin. Only a claim older
      // than any submission takes is one a crash left behind.
      if (!held && claim.claimedAt && Date.now() - claim.claimedAt.getTime() < ABANDONED_CLAIM_MS)
        return { refused: 'busy' };
      // Ended without success, or never stored and abandoned: free it.
      await this.deps.links.release(link.id, claim.heldBy);
    }
    return { refused: 'busy' };
  }

  /** The payin's reference for one form: the prefix and 12 base-36 characters of the form token's hash. */
  static referenceOf(link: PaymentLink, token: string): string {
    const digest = createHash('sha256').update(`${link.id}\u0000${token}`).digest();
    const random = BigInt(`0x${digest.subarray(0, 8).toString('hex')}`)
      .toString(36)
      .padStart(12, '0')
      .slice(-12);
    return `${link.referencePrefix}-${random}`;
  }
}

/**
 * A single-use claim without its payin this long after it was taken was left by a submission that
 * crashed between the two: a submission stores its payin seconds after its claim.
 */
export const ABANDONED_CLAIM_MS = 120_000;

/** "5 000 XOF", as people in CI and CM write amounts (a space between thousands). */
export function formatAmount(amount: number, currency: string): string {
  return `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0')}\u00a0${currency}`;
}

/** Ready-made share texts; the title is the merchant's, the rest ours. */
export function shareTexts(link: PaymentLink, url: string) {
  const amount =
    link.amount.type === 'fixed'
      ? {
          en: formatAmount(link.amount.value, link.currency),
          fr: formatAmount(link.amount.value, link.currency),
        }
      : { en: 'amount of your choice', fr: 'montant au choix' };
  return {
    whatsapp: {
      en: `*${link.title}*\n${amount.en}\nPay by Mobile Money here: ${url}`,
      fr: `*${link.title}*\n${amount.fr}\nPayez par Mobile Money ici : ${url}`,
    },
    sms: {
      en: `${link.title} - ${amount.en}. Pay by Mobile Money: ${url}`,
      fr: `${link.title} - ${amount.fr}. Payez par Mobile Money : ${url}`,
    },
  };
}

/** The amount (and cap) against the link's operators' limits: a clear problem now, not a failure later. */
function checkAmount(
  amount: PaymentLink['amount'],
  currency: string,
  link: Pick<PaymentLink, 'countries' | 'operators'>,
  cap: PaymentLink['cap'] | undefined,
): void {
  const { min, max } = PaymentLinkService.bounds(link);
  const outOf = (path: string) =>
    problemAt('AMOUNT_OUT_OF_RANGE', path, fieldMessages.paymentLink.amountOutOfRange(min, max, currency));
  if (amount.type === 'fixed') {
    if (amount.value < min || amount.value > max) throw outOf('amount.value');
    if (cap?.maxTotal !== undefined && cap.maxTotal < amount.value)
      throw problemAt('VALIDATION_ERROR', 'cap.maxTotal', fieldMessages.paymentLink.capBelowAmount);
    return;
  }
  if (amount.min !== undefined && (amount.min < min || amount.min > max)) throw outOf('amount.min');
  if (amount.max !== undefined && (amount.max < min || amount.max > max)) throw outOf('amount.max');
  if (amount.min !== undefined && amount.max !== undefined && amount.min > amount.max)
    throw problemAt('VALIDATION_ERROR', 'amount.min', fieldMessages.paymentLink.minAboveMax);
}
