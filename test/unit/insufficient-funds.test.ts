import { ApplicationFailure } from '@temporalio/common';
import { INSUFFICIENT_FUNDS, InsufficientFundsError, LedgerError } from '../../src/ledger';
import { debitOrRefuse } from '../../activities/shared/ledger-refusals';

// The one insufficient-funds type. Its name is recorded in histories (activity failures, the
// activities' non-retryable list in workflows/shared/activity-proxies.ts), so it must not change.

describe('insufficient funds: one type, non-retryable for activities', () => {
  it('is named InsufficientFundsError, by its name and by its class (Temporal reads either)', () => {
    const err = new InsufficientFundsError('acc_1', 10, 20);
    expect(INSUFFICIENT_FUNDS).toBe('InsufficientFundsError');
    expect(err.name).toBe(INSUFFICIENT_FUNDS);
    expect(err.constructor.name).toBe(INSUFFICIENT_FUNDS);
    expect(err).toBeInstanceOf(LedgerError);
  });

  it('fails a debit activity non-retryable under that type', async () => {
    const refused = await debitOrRefuse(() =>
      Promise.reject(new InsufficientFundsError('acc_1', 10, 20)),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: INSUFFICIENT_FUNDS, nonRetryable: true });
  });

  it('lets any other error through as it is (retried)', async () => {
    const other = new Error('database down');
    await expect(debitOrRefuse(() => Promise.reject(other))).rejects.toBe(other);
    await expect(debitOrRefuse(() => Promise.resolve(7))).resolves.toBe(7);
  });
});
