import { ServiceError } from '@temporalio/client';
import { google } from '@temporalio/proto';
import { isDependencyUnavailable } from '../../src/persistence/unavailable';
import { isWorkflowNotReady } from '../../src/temporal/workflow-not-ready';

/** A gRPC error as @grpc/grpc-js hands it to the Temporal client: code, details, trailing metadata. */
function grpcError(code: number, message: string, detailTypeUrl?: string): Error {
  const details = detailTypeUrl ? [{ type_url: detailTypeUrl, value: new Uint8Array() }] : [];
  const bin = Buffer.from(google.rpc.Status.encode({ code, message, details }).finish());
  return Object.assign(new Error(`${code} ${message}`), {
    code,
    details: message,
    metadata: { get: (key: string) => (key === 'grpc-status-details-bin' && detailTypeUrl ? [bin] : []) },
  });
}

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

  it("recognises Temporal's WorkflowNotReady: an Update dropped with its failed workflow task (retry it)", () => {
    const notReady = grpcError(
      9,
      'Unable to perform workflow execution update due to unexpected workflow task failure.',
      'type.googleapis.com/temporal.api.errordetails.v1.WorkflowNotReadyFailure',
    );
    const wrapped = new ServiceError('Workflow Update failed', { cause: notReady });
    expect(isWorkflowNotReady(wrapped)).toBe(true);
    expect(isDependencyUnavailable(wrapped)).toBe(true);
    // Another FAILED_PRECONDITION (the limit on an execution's Updates) is no such cue.
    const limit = new ServiceError('Workflow Update failed', {
      cause: grpcError(
        9,
        'The limit on the total number of distinct updates in this workflow has been reached',
      ),
    });
    expect(isWorkflowNotReady(limit)).toBe(false);
    expect(isDependencyUnavailable(limit)).toBe(false);
  });
});
