import { sleep } from '@temporalio/workflow';
import { recordActivities, type PayinActivities } from '../shared/activity-proxies';

const acts = recordActivities<Pick<PayinActivities, 'forgetOtp'>>();

// A stored OTP (src/persistence/otp-store.ts) is deleted by the payin workflow that holds its id,
// since FerretDB has no TTL index: once the operator acknowledged the request, once the collection
// ended, or when its lifetime is over (a durable timer), whichever comes first; once.

export interface OtpKeeper {
  /** Workflow time (ms) at which the timer deletes it; carried across continue-as-new. */
  readonly forgetAt: number;
  /** The deletion completed (one still in flight when the run continues as new is made again). */
  forgotten(): boolean;
  /** Deletes it now (once; later calls wait for the same deletion). */
  forget(): Promise<void>;
}

export function otpKeeper(otpId: string, forgetAt: number): OtpKeeper {
  let deletion: Promise<void> | null = null;
  let done = false;
  const forget = () =>
    (deletion ??= acts.forgetOtp(otpId).then(() => {
      done = true;
    }));
  // Never awaited: the workflow goes on; a timer still pending when the workflow ends is dropped,
  // after the workflow's own forget(). The activity is retried until it applies.
  void sleep(Math.max(forgetAt - Date.now(), 1))
    .then(forget)
    .catch(() => undefined);
  return { forgetAt, forgotten: () => done, forget };
}
