import { isDependencyUnavailable } from '../../src/persistence/unavailable';

// Which errors the API answers 503 + Retry-After (transient) rather than 500.
describe('dependency unavailability', () => {
  const named = (name: string, message = '', extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(message), { name, ...extra });

  it('recognises an unreachable MongoDB and an unreachable Temporal', () => {
    expect(isDependencyUnavailable(named('MongoServerSelectionError'))).toBe(true);
    expect(isDependencyUnavailable(named('ServiceError', 'unavailable', { code: 14, details: 'x' }))).toBe(
      true,
    );
    expect(isDependencyUnavailable(new Error('x', { cause: named('MongoNetworkError') }))).toBe(true);
  });

  it('recognises a socket the server closed under a write (FerretDB killed mid-request)', () => {
    const epipe = Object.assign(new Error('This socket has been ended by the other party'), {
      code: 'EPIPE',
    });
    expect(isDependencyUnavailable(epipe)).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(
      true,
    );
  });

  it("recognises FerretDB's SQLite write contention (observed under the benchmark's load)", () => {
    const interrupted = named(
      'MongoServerError',
      '[msg_find.go:344 handler.handleMaxTimeMSError] [collection.go:94 sqlite.(*collection).Query] interrupted (9)',
    );
    expect(isDependencyUnavailable(interrupted)).toBe(true);
    expect(isDependencyUnavailable(named('MongoServerError', 'database is locked'))).toBe(true);
  });

  it('does not mistake other server errors or bugs for unavailability', () => {
    expect(isDependencyUnavailable(named('MongoServerError', 'E11000 duplicate key error'))).toBe(false);
    expect(isDependencyUnavailable(new TypeError('x is undefined'))).toBe(false);
  });
});
