import { setTimeout as sleep } from 'node:timers/promises';

// FerretDB's SQLite backend runs in WAL mode: a write whose statement started reading before another
// connection committed fails at once with SQLITE_BUSY_SNAPSHOT ("database is locked (517)"); the busy
// timeout does not apply to it. Nothing was written, so the same write can simply run again. Seen by
// the API fuzz on the idempotency claim every POST begins with, while workflows wrote in the background.

const busySnapshot = /database is locked \(517\)/;

export function isWriteConflict(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown } | null;
  return e?.name === 'MongoServerError' && typeof e.message === 'string' && busySnapshot.test(e.message);
}

/** Runs `write`, again after a short jittered pause while it meets a write conflict (5 tries in all). */
export async function retryOnWriteConflict<T>(write: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= attempts || !isWriteConflict(err)) throw err;
      // 5, 10, 20, 40 ms and a random part, so contenders do not collide again in step.
      await sleep(5 * 2 ** (attempt - 1) + Math.random() * 5);
    }
  }
}
