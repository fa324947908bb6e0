import { isAmbiguousFailure } from '../../src/domain/failures';

describe('failure classification', () => {
  it('treats explicit refusals as definitive (no partner check)', () => {
    for (const code of [
      'PAYER_DECLINED',
      'OTP_INVALID',
      'OTP_REQUIRED',
      'OTP_EXPIRED',
      'DECLINED_BY_CUSTOMER',
      'OPERATOR_REJECTED',
      'CANCELLED',
    ]) {
      expect(isAmbiguousFailure(code)).toBe(false);
    }
  });
  it('treats timeouts, operator errors and unknown codes as ambiguous', () => {
    for (const code of [
      'OPERATOR_TIMEOUT',
      'OPERATOR_UNAVAILABLE',
      'OPERATOR_UNKNOWN_TRANSACTION',
      'SOMETHING_NEW',
    ]) {
      expect(isAmbiguousFailure(code)).toBe(true);
    }
  });
});
