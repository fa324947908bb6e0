import type { Mode } from '../../domain/modes';
import type { Country, OperatorCode } from '../../domain/operators';
import {
  OperatorRejectedError,
  OperatorUnavailableError,
  type CollectionRequest,
  type DisbursementRequest,
  type OperatorGateway,
  type OperatorKind,
  type OperatorStatus,
  type RefundRequest,
} from '../gateway';
import type { HealthOperation, MeasuredOutcome } from './state';

// Measures every request and status read of one mode's gateway, per provider and operation, for
// the provider states (src/operators/health/state.ts). Errors pass through unchanged; partner
// checks, cancels and statements are not what customers wait on, so they are not measured.

export interface HealthRecorder {
  record(
    mode: Mode,
    operator: OperatorCode,
    country: Country,
    operation: HealthOperation,
    outcome: MeasuredOutcome,
  ): void;
}

export class MeasuringGateway implements OperatorGateway {
  constructor(
    private readonly inner: OperatorGateway,
    private readonly mode: Mode,
    private readonly recorder: HealthRecorder,
  ) {}

  private async measure(
    operator: OperatorCode,
    country: Country,
    operation: HealthOperation,
    call: () => Promise<OperatorStatus>,
  ): Promise<OperatorStatus> {
    try {
      const status = await call();
      this.note(operator, country, operation, 'ok');
      return status;
    } catch (err) {
      if (err instanceof OperatorUnavailableError) this.note(operator, country, operation, 'unavailable');
      else if (err instanceof OperatorRejectedError) this.note(operator, country, operation, 'refused');
      throw err;
    }
  }

  private note(
    operator: OperatorCode,
    country: Country,
    operation: HealthOperation,
    outcome: MeasuredOutcome,
  ) {
    try {
      this.recorder.record(this.mode, operator, country, operation, outcome);
    } catch {
      // Measuring must never change what the activity sees.
    }
  }

  requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    return this.measure(req.operator, req.country, 'payin', () => this.inner.requestCollection(req));
  }
  collectionStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.measure(operator, country, 'payin', () => this.inner.collectionStatus(id, operator, country));
  }
  disburse(req: DisbursementRequest): Promise<OperatorStatus> {
    return this.measure(req.operator, req.country, 'payout', () => this.inner.disburse(req));
  }
  disbursementStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.measure(operator, country, 'payout', () =>
      this.inner.disbursementStatus(id, operator, country),
    );
  }
  refund(req: RefundRequest): Promise<OperatorStatus> {
    return this.measure(req.operator, req.country, 'refund', () => this.inner.refund(req));
  }
  refundStatus(id: string, operator: OperatorCode, country: Country): Promise<OperatorStatus> {
    return this.measure(operator, country, 'refund', () => this.inner.refundStatus(id, operator, country));
  }
  partnerCheck(id: string, operator: OperatorCode, country: Country) {
    return this.inner.partnerCheck(id, operator, country);
  }
  cancel(kind: OperatorKind, id: string, operator: OperatorCode, country: Country) {
    return this.inner.cancel(kind, id, operator, country);
  }
  statement(operator: OperatorCode, date: string) {
    return this.inner.statement(operator, date);
  }
}
