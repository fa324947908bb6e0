import { errorChain } from '../infra/error-chain';
import { isWorkflowNotReady } from '../temporal/workflow-not-ready';

// Errors that mean "a dependency cannot be reached right now", not "this request is wrong" or "our
// code is broken": the API answers them 503 with Retry-After (the client retries), never a 500.

/** Seconds a client is told to wait before retrying while a dependency is down. */
export const RETRY_AFTER_SECONDS = 5;

// By name, so the check holds whichever copy of the driver (mongodb, mongoose) threw it.
const unreachableMongo = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoWaitQueueTimeoutError',
  'MongoServerClosedError',
]);

// FerretDB's SQLite backend has one writer per database: under heavy concurrent writes a query
// can wait past its busy timeout and be interrupted (SQLITE_INTERRUPT, 9, or SQLITE_BUSY, 5).
// Nothing was written; a retry succeeds once the writers drain.
const sqliteContention = /\binterrupted \(9\)|database is locked|\(SQLITE_BUSY\)/;

// A socket to a dependency closed under us. The MongoDB driver usually wraps these in a
// MongoNetworkError, but a write on a socket the server just closed throws Node's own EPIPE error
// ("This socket has been ended by the other party"), seen when FerretDB was killed mid-request.
const socketErrors = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT']);

// gRPC UNAVAILABLE (14): the Temporal frontend cannot be reached.
const GRPC_UNAVAILABLE = 14;

export function isDependencyUnavailable(err: unknown): boolean {
  // An Update that Temporal dropped with its failed workflow task: sending it again is the cure.
  if (isWorkflowNotReady(err)) return true;
  // The cause chain: Temporal wraps gRPC errors, our stores may wrap driver errors.
  for (const e of errorChain(err)) {
    if (typeof e.name === 'string' && unreachableMongo.has(e.name)) return true;
    // mongoose queues operations while disconnected and fails them after bufferTimeoutMS.
    if (typeof e.message === 'string' && /buffering timed out after/.test(e.message)) return true;
    if (e.name === 'MongoServerError' && typeof e.message === 'string' && sqliteContention.test(e.message))
      return true;
    if (typeof e.code === 'string' && socketErrors.has(e.code)) return true;
    if (e.code === GRPC_UNAVAILABLE && (e.name === 'ServiceError' || 'details' in e)) return true;
  }
  return false;
}
