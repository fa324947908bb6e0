import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { RefundDeskFacts } from '../../activities/refund/refund-activities';
import { recordActivities, type RefundActivities } from '../shared/activity-proxies';
import { payinRefunds } from './payin-refunds';

// A payin whose workflow closed at its final status has its refunds decided here. The API starts
// the desk (one per payin at a time) and sends the refund's Update (src/services/start-workflow.ts);
// the desk reads the payin and its stored refunds, answers every Update that reaches it one at a
// time (the remainder is reserved atomically, as the payin's own workflow did), and closes once its
// refunds reached their end and no Update is left, or after a minute without any (a start whose
// Update never came). The next refund starts a new desk, which reads the refunds again: one reversed meanwhile is
// free again. The refunds themselves run in their own workflows, which outlive the desk.

export interface RefundDeskInput {
  merchantId: string;
  payinId: string;
}

const acts = recordActivities<Pick<RefundActivities, 'listPayinRefunds' | 'openRefundDesk'>>();

/** How long a desk waits for its first Update. */
const FIRST_UPDATE_WAIT = '1 minute';

export async function payinRefundDeskWorkflow(input: RefundDeskInput): Promise<void> {
  let facts: RefundDeskFacts | null = null;
  let seq = 0;
  let lastWrite: Promise<unknown> = Promise.resolve();
  const payin = { status: 'processing' as 'processing' | 'success' };
  const subject = {
    merchantId: input.merchantId,
    transactionId: input.payinId,
    amount: 0,
    currency: '',
    reference: '',
  };
  // Registered before the first await: the Update that started the desk is in its first task.
  const refunds = payinRefunds(
    subject,
    payin,
    (ids) => {
      // The payin record's state writes go on numbered from where its own workflow left them.
      const next = lastWrite.then(() => acts.listPayinRefunds(input.payinId, ids, ++seq));
      lastWrite = next.catch(() => undefined);
      return next;
    },
    // Time left as the activity read it (the wall clock the API checks), on this desk's own clock.
    () =>
      facts && {
        known: facts.refunds,
        windowEndsAt: facts.payin.refundableForMs === null ? null : opened + facts.payin.refundableForMs,
      },
  );
  const read = await acts.openRefundDesk(input.payinId);
  const opened = Date.now();
  Object.assign(subject, {
    amount: read.payin.amount,
    currency: read.payin.currency,
    reference: read.payin.reference,
  });
  payin.status = read.payin.success ? 'success' : 'processing';
  seq = read.seq;
  refunds.open({
    transactionId: input.payinId,
    operator: read.payin.operator,
    country: read.payin.country,
    msisdn: '',
    amount: read.payin.amount,
    currency: read.payin.currency,
    sandboxScenario: null,
  });
  facts = read;
  await condition(() => refunds.asked() > 0 && allHandlersFinished(), FIRST_UPDATE_WAIT);
  // Open while its refunds run (their outcome frees or keeps their amount), as the payin's own
  // workflow was for the refunds it accepted; then closed once no Update is left.
  await refunds.settled();
  await condition(allHandlersFinished);
}
