import type { Country, OperatorCode } from '../../domain/operators';
import type { Mode } from '../../domain/modes';
import type { OperatorGateway, OperatorKind } from '../gateway';

// A connector speaks one provider's published API (pawaPay, MTN MoMo, Wave, Hub2, or the sandbox
// simulator's protocol) behind the OperatorGateway the activities already use, so the workflows do
// not change. The routing gateway (./routing.ts) picks the connector of each operator × country ×
// operation from configuration; each connector maps its provider's statuses and codes to ours:
//   - `completed` / `failed` only on the provider's explicit final answer;
//   - `pending` while the provider says so, `unknown` when it does not know our id (yet);
//   - OperatorUnavailableError for a timeout, a network error, a 5xx, a 429, an unreadable answer;
//   - OperatorRejectedError when the provider refused the request itself (nothing was done);
//   - OperatorConflictError when it holds our id with other terms.

export const connectorNames = ['simulator', 'simulator-2', 'pawapay', 'mtn', 'wave', 'hub2'] as const;
export type ConnectorName = (typeof connectorNames)[number];

/** What a verified provider callback is about: our id, never the provider's word on the outcome. */
export interface VerifiedCallback {
  kind: OperatorKind;
  /** Our id: payin/payout transaction id (`pr_…`) or refund id (`rf_…`). */
  id: string;
  /**
   * What the provider's signature covers, and until when it is accepted: the callback door
   * (src/operators/callbacks.ts) keeps a receipt of it, so a replay is acknowledged, not signalled.
   */
  signed: { content: string | Buffer; acceptedUntil: number };
}

/** A provider callback as it reached us, untouched: signatures cover the raw bytes. */
export interface IncomingCallback {
  method: string;
  /** Path and query as received, e.g. `/provider-callbacks/pawapay`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** What a provider says of a mobile-money account before we pay it or ask it to pay. */
export interface RecipientInfo {
  /** The provider (operator) the number belongs to, as the provider predicts it; null when unknown. */
  operator: OperatorCode | null;
  country: Country;
  /** null when the provider does not say. */
  active: boolean | null;
  /** The account holder's name, where the provider shares it; null otherwise. */
  holderName: string | null;
}

/** A provider's own word on its availability (pawaPay publishes it), per operator × operation. */
export interface PublishedAvailability {
  operator: OperatorCode;
  country: Country;
  operation: 'payin' | 'payout' | 'refund';
  status: 'operational' | 'delayed' | 'closed';
}

/**
 * What a provider refuses that our interface allows, declared by the connector that speaks to it:
 * the API consults the routed connector's rules when a request arrives and refuses it there, so a
 * request we accept (201) is one the provider can take. One place per provider: its connector.
 */
export interface ConnectorRules {
  /** The customer's return addresses (a payin's `action` URLs) must be https (Wave's checkout). */
  httpsReturnUrls?: boolean;
  /** A payin is refunded whole or not at all (Wave's checkout refund takes no amount). */
  fullRefundsOnly?: boolean;
  /**
   * The amounts a refund may have, minor units, inclusive (Hub2 credits the payer by a transfer,
   * with its payout limits and multiple).
   */
  refundAmounts?: { min: number; max: number; multipleOf?: number };
}

/**
 * The rules a new request meets in a mode: live mode's are those of the connector routed for the
 * operator × country × operation; test mode's sandbox simulator imposes none.
 */
export type RulesOf = (
  mode: Mode,
  operator: OperatorCode,
  country: Country,
  operation: 'payin' | 'payout' | 'refund',
) => ConnectorRules;

/**
 * The rules a refund meets: live mode's are those of the connector that collected its payin (a
 * refund goes through the payin's route), the sandbox's none.
 */
export type RefundRulesOf = (
  mode: Mode,
  payinId: string,
  operator: OperatorCode,
  country: Country,
) => Promise<ConnectorRules>;

export interface Connector extends OperatorGateway {
  readonly name: ConnectorName;
  /** The provider's rules a request must meet (none when absent). */
  readonly rules?: ConnectorRules;
  /** The rules of one pair and operation, where they differ by pair (else `rules`). */
  rulesFor?(
    operator: OperatorCode,
    country: Country,
    operation: 'payin' | 'payout' | 'refund',
  ): ConnectorRules;
  /** The operator × country pairs this connector can serve (checked against the routes at start). */
  readonly serves: ReadonlyArray<{ operator: OperatorCode; country: Country }>;
  /**
   * Why a payin session (a payment link's, a hosted checkout's) cannot go through it as configured,
   * checked against the routes at start; absent or null: it can.
   */
  readonly sessionRefusal?: string | null;
  /**
   * Checks a callback's authenticity as the provider documents it (signature, digest, freshness) and
   * answers what it is about and what was signed, or null when it is forged, stale or not ours.
   * Replays are the callback door's (src/operators/callbacks.ts): it keeps receipts shared by every
   * API process. The door only signals the workflow, which re-reads the status: a callback is a
   * trigger, never an answer.
   */
  verifyCallback(cb: IncomingCallback): Promise<VerifiedCallback | null>;
  /** Recipient checks, where the provider offers them. */
  recipient?(msisdn: string, country: Country): Promise<RecipientInfo>;
  /** The provider's published availability, where it publishes one. */
  availability?(): Promise<PublishedAvailability[]>;
}

/**
 * A provider that publishes no statement API: reconciliation against its books is not possible
 * through the connector (docs/operators.md says how such a provider is reconciled).
 */
export class StatementsNotOfferedError extends Error {
  override readonly name = 'StatementsNotOfferedError';
}
