import { z } from 'zod';
import { configDocs } from '../infra/config-docs';
import type { Mode } from '../domain/modes';
import { operatorCodes, operatorsByCountry, type Country, type OperatorCode } from '../domain/operators';
import { predictCarrier } from '../domain/operator-prefixes';
import { OperatorRejectedError } from '../operators/gateway';
import type { RecipientInfo } from '../operators/connectors/connector';

// GET /v1/providers/recipient: who a number belongs to, whether its account is active and, where the
// provider shares it, the holder's name. Test mode asks the sandbox simulator, live mode the routed
// connector (MTN account holder, pawaPay predict-provider). The holder's name is personal data: it
// lives in this process's memory only (a short, bounded cache), never in the database, Temporal or a
// log line; errors name the mode and country, never the number.

/**
 * Asks the provider of the number (sandbox in test mode, the routed connector in live mode). null:
 * no provider offers a recipient check for this number (the prefix prediction is all we have).
 * Throws OperatorUnavailableError when the provider did not answer.
 */
export type RecipientSource = (mode: Mode, msisdn: string, country: Country) => Promise<RecipientInfo | null>;

export interface RecipientAnswer {
  /** E.164. */
  msisdn: string;
  country: Country;
  /** The operator the number belongs to, when we offer it there; null when unknown. */
  operator: OperatorCode | null;
  /** `<OPERATOR>_<COUNTRY>`, or null. */
  provider: string | null;
  /** Who said which operator it is: the provider's own check, or our prefix table. */
  predictedBy: 'provider' | 'prefix' | null;
  /** Whether a provider was asked and answered (false: no check offered, or the provider is down). */
  checked: boolean;
  /** null when the provider does not say (or was not asked). */
  active: boolean | null;
  /** The account holder's name, where the provider shares it; null otherwise. */
  holderName: string | null;
  /** When the provider answered (a cached answer keeps its time); null when not checked. */
  checkedAt: string | null;
}

export interface RecipientServiceOptions {
  source: RecipientSource;
  /** How long a provider's answer is reused (RECIPIENT_CACHE_TTL); 0: never. */
  cacheTtlMs?: number;
  /** At most this many answers are kept (RECIPIENT_CACHE_SIZE); the oldest go first. */
  cacheSize?: number;
  /** Reports a failed provider check (mode, country and error kind only: no number, no name). */
  onSourceError?: (info: { mode: Mode; country: Country; error: string }) => void;
  now?: () => number;
}

interface Cached {
  info: RecipientInfo | null;
  at: number;
}

const asOffered = (code: string | null, country: Country): OperatorCode | null => {
  const op = operatorCodes.find((o) => o === code) ?? null;
  return op && operatorsByCountry[country].includes(op) ? op : null;
};

export class RecipientService {
  /** Keyed by mode, country and number; Map order is insertion order, so the first key is the oldest. */
  private readonly cache = new Map<string, Cached>();
  /** Concurrent checks of one number share the provider's answer (one call, not N). */
  private readonly inFlight = new Map<string, Promise<Cached>>();
  private readonly ttlMs: number;
  private readonly size: number;
  private readonly now: () => number;

  constructor(private readonly opts: RecipientServiceOptions) {
    this.ttlMs = opts.cacheTtlMs ?? 60_000;
    this.size = opts.cacheSize ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** `msisdn` must already be valid E.164 of `country` (the route checks it). */
  async check(mode: Mode, msisdn: string, country: Country): Promise<RecipientAnswer> {
    const key = `${mode}:${country}:${msisdn}`;
    const entry = this.fresh(key) ?? (await this.ask(key, mode, msisdn, country));
    return this.answer(msisdn, country, entry);
  }

  /** Answers cached now (tests and metrics; no content). */
  get cachedCount(): number {
    return this.cache.size;
  }

  private fresh(key: string): Cached | null {
    const hit = this.cache.get(key);
    if (!hit) return null;
    if (this.now() - hit.at >= this.ttlMs) {
      this.cache.delete(key);
      return null;
    }
    return hit;
  }

  /** The provider's answer, cached; null when it could not answer (not cached: asked again next time). */
  private async ask(key: string, mode: Mode, msisdn: string, country: Country): Promise<Cached | null> {
    let pending = this.inFlight.get(key);
    if (!pending) {
      // The answer's time is stamped once: every caller, and the cache, see the same checkedAt.
      pending = this.opts.source(mode, msisdn, country).then((info) => ({ info, at: this.now() }));
      this.inFlight.set(key, pending);
      void pending.then(
        (entry) => {
          this.inFlight.delete(key);
          this.remember(key, entry);
        },
        () => this.inFlight.delete(key),
      );
    }
    try {
      return await pending;
    } catch (err) {
      // A provider that refuses the check itself (no route, not configured) has nothing to say;
      // one that is down is reported. Either way the prefix prediction still answers.
      if (!(err instanceof OperatorRejectedError))
        this.opts.onSourceError?.({ mode, country, error: (err as Error).name || 'Error' });
      return null;
    }
  }

  private remember(key: string, entry: Cached): void {
    if (this.ttlMs <= 0 || this.size <= 0) return;
    this.cache.delete(key);
    while (this.cache.size >= this.size) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, entry);
  }

  private answer(msisdn: string, country: Country, entry: Cached | null): RecipientAnswer {
    const info = entry?.info ?? null;
    const fromProvider = info ? asOffered(info.operator, country) : null;
    const fromPrefix = asOffered(predictCarrier(msisdn)?.carrier ?? null, country);
    const operator = fromProvider ?? fromPrefix;
    return {
      msisdn,
      country,
      operator,
      provider: operator ? `${operator}_${country}` : null,
      predictedBy: fromProvider ? 'provider' : fromPrefix ? 'prefix' : null,
      checked: entry !== null && info !== null,
      active: info?.active ?? null,
      holderName: info?.holderName ?? null,
      checkedAt: entry && info ? new Date(entry.at).toISOString() : null,
    };
  }
}

/** What a live recipient check needs from the operators: the connector routed for a provider. */
export interface RecipientConnectors {
  /** Test mode's: the sandbox simulator. */
  sandbox: { recipient?(msisdn: string, country: Country): Promise<RecipientInfo> };
  /** Live mode's connector for an operator × country × operation (RoutedGateway.connectorFor). */
  connectorFor(
    operator: OperatorCode,
    country: Country,
    operation: 'payin' | 'payout' | 'refund',
  ): { recipient?(msisdn: string, country: Country): Promise<RecipientInfo> } | null;
}

/**
 * The RecipientSource over the operators: test mode asks the sandbox; live mode asks the connector
 * routed for the number's network (by prefix), payouts' route first (a check usually precedes a
 * payout), then payins'. Only that network's connector: another operator's account check (MTN's)
 * would call any number not its own "inactive". null when the network is unknown or its connector
 * offers no check.
 */
export function recipientSourceOf(ops: RecipientConnectors): RecipientSource {
  return async (mode, msisdn, country) => {
    if (mode === 'test') return ops.sandbox.recipient ? ops.sandbox.recipient(msisdn, country) : null;
    const network = asOffered(predictCarrier(msisdn)?.carrier ?? null, country);
    if (!network) return null;
    for (const operation of ['payout', 'payin'] as const) {
      const c = ops.connectorFor(network, country, operation);
      if (c?.recipient) return c.recipient(msisdn, country);
    }
    return null;
  };
}

/** The recipient check's settings (merged into src/config.ts). */
export const recipientConfigShape = {
  RECIPIENT_CHECKS_PER_MINUTE: z.coerce.number().int().min(0).default(30).register(configDocs, {
    group: 'recipient',
    description:
      '`GET /v1/providers/recipient` checks per merchant and mode per minute, cached answers included, shared by every API replica (429 beyond); `0`: only the general limit.',
  }),
  RECIPIENT_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).default(60).register(configDocs, {
    group: 'recipient',
    description:
      "How long a provider's recipient answer (it may hold the holder's name) is reused, in seconds, in the API process's memory only; `0`: never.",
  }),
  RECIPIENT_CACHE_SIZE: z.coerce.number().int().min(0).default(10_000).register(configDocs, {
    group: 'recipient',
    description: 'At most this many recipient answers are kept in memory (the oldest go first).',
  }),
};

/** The route's dependencies from the settings and the operators (the composition root calls it). */
export function recipientApi(
  settings: { [K in keyof typeof recipientConfigShape]: number },
  operators: RecipientConnectors,
  log?: (info: { mode: Mode; country: Country; error: string }) => void,
): { service: RecipientService; perMinute: number } {
  return {
    perMinute: settings.RECIPIENT_CHECKS_PER_MINUTE,
    service: new RecipientService({
      source: recipientSourceOf(operators),
      cacheTtlMs: settings.RECIPIENT_CACHE_TTL_SECONDS * 1000,
      cacheSize: settings.RECIPIENT_CACHE_SIZE,
      ...(log ? { onSourceError: log } : {}),
    }),
  };
}
