// Readable, deterministic workflow ids: one workflow per (kind, merchant, reference), so a
// duplicate start is refused by Temporal itself and ops can find a transaction by its reference.
export function transactionWorkflowId(
  kind: 'payin' | 'payout',
  merchantId: string,
  reference: string,
): string {
  return `${kind}:${merchantId}:${reference}`;
}
