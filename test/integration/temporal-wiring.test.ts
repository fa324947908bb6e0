import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/http';
import { useStack } from '../helpers/use-stack';
import { auditQueries, describeScans } from '../helpers/query-audit';
import { TransactionStore } from '../../src/persistence/transactions';
import { startTransactionWorkflow } from '../../src/temporal/start-workflow';
import { payinWorkflowId, payoutWorkflowId, parseWorkflowId } from '../../src/temporal/workflow-ids';
import {
  saKind,
  saMerchantId,
  saProvider,
  saReference,
  saStatus,
} from '../../workflows/shared/search-attributes';
import { transactionTimeline } from '../../src/cli/timeline';

// Issue 17, Temporal wiring: a transaction's workflow starts one way (src/temporal/start-workflow.ts,
// by function reference, REJECT_DUPLICATE, its search attributes and memo), under the id
// src/temporal/workflow-ids.ts builds; the CLI timeline reads through the stores by `_id`.
describe('Temporal wiring', () => {
  const { stack, api, merchant } = useStack({ fund: 100_000 });

  const payin = (reference: string, sandboxScenario: string) =>
    api.post('/v1/direct/payin', {
      reference,
      sandboxScenario,
      payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    });

  it('starts a payin and a payout by reference, with their search attributes, memo and a never-reused id', async () => {
    const reference = `tw-${randomUUID().slice(0, 8)}`;
    expect((await payin(reference, 'completed')).status).toBe(201);
    const stored = await eventually(
      () => TransactionStore.on(stack.mongo).find(merchant.merchantId, 'payin', reference),
      (tx) => tx?.status === 'success',
    );
    const tx = stored!;
    expect(tx.workflowId).toBe(payinWorkflowId(merchant.merchantId, reference));
    expect(parseWorkflowId(tx.workflowId)).toEqual({
      kind: 'payin',
      merchantId: merchant.merchantId,
      reference,
    });

    const handle = stack.env.client.workflow.getHandle(tx.workflowId);
    const described = await handle.describe();
    expect(described.type).toBe('payinWorkflow');
    expect(described.memo).toEqual({ amount: 5000, currency: 'XOF' });
    const sa = described.typedSearchAttributes;
    expect([sa.get(saMerchantId), sa.get(saKind), sa.get(saReference), sa.get(saProvider)]).toEqual([
      merchant.merchantId,
      'payin',
      reference,
      'MTN_CI',
    ]);
    expect(sa.get(saStatus)).toBeDefined();
    // Started by the helper again (a retry, the sweep) once its run closed (a payin closes at its
    // final status): REJECT_DUPLICATE keeps the id taken for good (the default policy would start a
    // second run).
    await handle.result();
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    expect(
      await startTransactionWorkflow(stack.env.client, stack.taskQueue, tx, {
        kind: 'payin',
        input: {} as never,
      }),
    ).toBe('exists');

    const payoutRef = `tw-po-${randomUUID().slice(0, 8)}`;
    const created = await api.post('/v1/payout', {
      reference: payoutRef,
      sandboxScenario: 'completed',
      amount: 1000,
      msisdn: '+2250500000002',
      country: 'CI',
    });
    expect(created.status).toBe(201);
    const payoutHandle = stack.env.client.workflow.getHandle(
      payoutWorkflowId(merchant.merchantId, payoutRef),
    );
    const payoutDescribed = await payoutHandle.describe();
    expect(payoutDescribed.type).toBe('payoutWorkflow');
    expect(payoutDescribed.memo).toMatchObject({ amount: 1000, currency: 'XOF' });
    expect(payoutDescribed.typedSearchAttributes.get(saKind)).toBe('payout');
  });

  it('`payments transactions show` reads the transaction by _id and the ledger only where money moved', async () => {
    const collected = `tw-tl-${randomUUID().slice(0, 8)}`;
    const failed = `tw-tf-${randomUUID().slice(0, 8)}`;
    expect((await payin(collected, 'completed')).status).toBe(201);
    expect((await payin(failed, 'failed')).status).toBe(201);
    for (const [reference, status] of [
      [collected, 'success'],
      [failed, 'failed'],
    ])
      await eventually(
        () => api.get(`/v1/payin/${reference}`),
        (r) => r.body.status === status,
      );
    const show = (reference: string) =>
      auditQueries(stack.mongo, () =>
        transactionTimeline({
          temporal: stack.env.client,
          mongo: stack.mongo,
          merchantId: merchant.merchantId,
          reference,
          kind: 'payin',
        }),
      );

    // A payin that moved no money: every read an `_id` lookup.
    const none = await show(failed);
    expect(none.result.transaction).toMatchObject({ reference: failed, status: 'failed' });
    expect(none.result.ledger).toEqual([]);
    if (none.scans.length) throw new Error(`scans:\n${describeScans(none.scans)}`);

    // A collected payin: its four entries (credit and fee, two legs each), the only read that is not
    // by `_id` one of the ledger's entries by the payin's own sourceRefs.
    const paid = await show(collected);
    expect(paid.result.workflowId).toBe(payinWorkflowId(merchant.merchantId, collected));
    expect(paid.result.ledger).toHaveLength(4);
    expect(paid.result.ledger.map((e) => e.amount).reduce((a, b) => a + b, 0)).toBe(0);
    expect(paid.scans).toHaveLength(1);
    expect(paid.scans[0]).toMatchObject({ collection: 'ledger_entries' });
    expect(Object.keys(paid.scans[0]!.filter as object)).toEqual(['sourceRef']);
  });
});
