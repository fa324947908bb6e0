import { CancellationScope, allHandlersFinished, condition, continueAsNew } from '@temporalio/workflow';
import type { PayinState, PayinWorkflowInput } from './payin-api';
import type { AskState } from '../shared/ask-operator';
import type { OtpKeeper } from './otp-keeper';
import { startPayinRun, type PayinRun } from './payin-run';
import { collect, finish, keepOtp, sessionWait } from './payin-steps';
import type { PayinCollection } from '../../activities/payin/payin-activities';

export type { PayinWorkflowInput } from './payin-api';

/**
 * One payin, direct or session: session wait -> collect -> finish.
 * Session: nothing happens until the customer confirms on the hosted page (Update). Collect: the
 * operator is asked until it answers (workflows/shared/ask-operator.ts); at the customer's deadline it is
 * asked to cancel, and only a confirmed cancellation makes the payin `expired`. Finish: success
 * credits the merchant and writes the end of the refund window; an ambiguous failure is re-checked
 * with the operator's partner for 48 hours. The workflow ends at the final status: refunds are
 * decided by the payin's refund desk (workflows/refund/payin-refund-desk.ts). The steps are in
 * workflows/payin/payin-steps.ts, what they share in workflows/payin/payin-run.ts.
 */
export async function payinWorkflow(input: PayinWorkflowInput): Promise<PayinState> {
  const run = startPayinRun(input);
  return CancellationScope.nonCancellable(async () => {
    const collection = input.resume?.collection ?? input.collection ?? (await sessionWait(run));
    if (!collection) return run.state;
    const otp = keepOtp(run, collection);
    const deadline = input.resume?.deadline ?? Date.now() + input.timing.expiryMs;
    const answer = await collect(run, collection, deadline, otp);
    if (answer.outcome === 'continue')
      return continueAsking(run, answer.state, { deadline, collection, otp });
    // The operator answered for good: the OTP will not be sent again.
    await otp?.forget();
    await finish(run, answer, collection);
    return run.state;
  });
}

/** A long wait for the operator: the next run goes on asking where this one stood. */
async function continueAsking(
  run: PayinRun,
  ask: AskState,
  at: { deadline: number; collection: PayinCollection; otp: OtpKeeper | null },
): Promise<never> {
  await condition(allHandlersFinished);
  const { otp } = at;
  return continueAsNew<typeof payinWorkflow>({
    ...run.input,
    resume: {
      ask,
      deadline: at.deadline,
      seq: run.seq(),
      collection: at.collection,
      state: run.state,
      ...(otp && !otp.forgotten() ? { otpForgetAt: otp.forgetAt } : {}),
    },
  });
}
