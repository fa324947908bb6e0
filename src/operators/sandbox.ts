import type { CollectionRequest, OperatorGateway, OperatorStatus } from './gateway';

/**
 * In-process sandbox operator: the outcome is the request's sandboxScenario (completed when absent).
 * Keyed by transaction id, so a retried request returns the first answer.
 */
export class InProcessSandboxOperator implements OperatorGateway {
  private readonly collections = new Map<string, OperatorStatus>();

  async requestCollection(req: CollectionRequest): Promise<OperatorStatus> {
    const known = this.collections.get(req.transactionId);
    if (known) return known;
    const outcome = req.sandboxScenario ?? 'completed';
    const status: OperatorStatus = {
      outcome,
      operatorReference: `sbx_${req.transactionId}`,
      ...(outcome === 'failed'
        ? { failure: { code: 'PAYER_DECLINED', message: 'The customer declined the payment' } }
        : {}),
    };
    this.collections.set(req.transactionId, status);
    return status;
  }

  async collectionStatus(transactionId: string): Promise<OperatorStatus> {
    const known = this.collections.get(transactionId);
    if (!known)
      return {
        outcome: 'failed',
        operatorReference: '',
        failure: { code: 'NOT_FOUND', message: 'Unknown collection' },
      };
    return known;
  }
}
