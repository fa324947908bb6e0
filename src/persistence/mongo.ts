import mongoose, { type Connection } from 'mongoose';

/** One mongoose connection per process (API or worker); models are bound to it, not to the global. */
export async function connectMongo(
  uri: string,
  opts: { serverSelectionTimeoutMS?: number } = {},
): Promise<Connection> {
  const conn = mongoose.createConnection(uri, {
    serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5_000,
    // FerretDB speaks the wire protocol but has no retryable-write support worth relying on;
    // our writes are idempotent by unique indexes instead.
    retryWrites: false,
  });
  await conn.asPromise();
  return conn;
}

export async function pingMongo(conn: Connection): Promise<boolean> {
  try {
    await conn.db?.admin().ping();
    return true;
  } catch {
    return false;
  }
}
