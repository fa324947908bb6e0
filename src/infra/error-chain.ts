// Temporal wraps a gRPC error in a ServiceError, our stores wrap driver errors, mongoose wraps the
// driver's: what an error means is often a few causes down. Bounded, so a cycle of causes cannot
// spin a request forever.
const MAX_DEPTH = 5;

/** `err` then its causes (`.cause`, each an object), at most five deep. */
export function* errorChain(err: unknown): Generator<Record<string, unknown>> {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_DEPTH && current !== null && typeof current === 'object'; depth++) {
    const e = current as Record<string, unknown>;
    yield e;
    current = e.cause;
  }
}
