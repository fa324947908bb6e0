import { languages } from '../../src/contract/i18n';
import { problemCatalogue, type ProblemCode } from '../../src/contract/problems';
import { renderProblem } from '../../src/api/problem';

// The catalogue is the one list of error codes: each speaks English and French, and the refund
// errors carry the interface's English titles word for word.
describe('problem catalogue', () => {
  const codes = Object.keys(problemCatalogue) as ProblemCode[];

  it.each(codes)('%s has a 4xx/5xx status and en and fr title and detail', (code) => {
    const entry = problemCatalogue[code];
    expect(entry.status).toBeGreaterThanOrEqual(400);
    expect(entry.status).toBeLessThan(600);
    const detail = (entry as { detail?: Record<string, string> }).detail;
    for (const lang of languages) {
      expect(entry.title[lang].trim()).not.toBe('');
      expect(detail?.[lang]?.trim()).toBeTruthy();
    }
    expect(entry.title.fr).not.toBe(entry.title.en);
  });

  it('uses the interface titles for the refund errors', () => {
    const expected: Partial<Record<ProblemCode, [number, string]>> = {
      INVALID_AMOUNT: [400, 'Invalid amount'],
      UNAUTHORIZED: [401, 'Unauthorized'],
      REFUND_NOT_ALLOWED: [403, 'Refund not allowed'],
      PAYMENT_NOT_FOUND: [404, 'Payment not found'],
      DUPLICATE_REFUND: [409, 'Duplicate refund'],
      INTERNAL_ERROR: [500, 'Internal Server Error'],
      INSUFFICIENT_BALANCE: [403, 'Insufficient balance'],
    };
    for (const [code, [status, title]] of Object.entries(expected)) {
      const entry = problemCatalogue[code as ProblemCode];
      expect({ code, status: entry.status, title: entry.title.en }).toEqual({ code, status, title });
    }
  });

  it('has the idempotency and rate-limit codes with their statuses', () => {
    expect(problemCatalogue.IDEMPOTENCY_KEY_MISSING.status).toBe(400);
    expect(problemCatalogue.IDEMPOTENCY_KEY_INVALID.status).toBe(400);
    expect(problemCatalogue.IDEMPOTENCY_KEY_REUSED.status).toBe(409);
    expect(problemCatalogue.REQUEST_IN_PROGRESS.status).toBe(409);
    expect(problemCatalogue.DUPLICATE_REFERENCE.status).toBe(409);
    expect(problemCatalogue.RATE_LIMITED.status).toBe(429);
  });

  it('renders in the requested language, field messages included', () => {
    const extra = { errors: [{ path: 'payin.msisdn', message: { en: 'Invalid.', fr: 'Invalide.' } }] };
    expect(renderProblem('VALIDATION_ERROR', 'fr', extra)).toEqual({
      type: '/docs/errors#VALIDATION_ERROR',
      title: 'Requête invalide',
      status: 400,
      detail: 'Un ou plusieurs champs sont invalides.',
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'payin.msisdn', message: 'Invalide.' }],
    });
    expect(renderProblem('REFUND_NOT_ALLOWED', 'en')).toMatchObject({
      title: 'Refund not allowed',
      status: 403,
      code: 'REFUND_NOT_ALLOWED',
    });
  });
});
