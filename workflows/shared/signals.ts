import { defineSignal } from '@temporalio/workflow';

/**
 * An operator says something changed for one of this workflow's operator calls. Only a trigger:
 * the workflow re-reads the status from the operator before acting, so a forged, late or repeated
 * signal changes nothing. `id` is the transaction id (collection, disbursement) or the refund id.
 */
export const operatorCallbackSignal =
  defineSignal<[{ kind: 'collection' | 'disbursement' | 'refund'; id: string }]>('operatorCallback');
