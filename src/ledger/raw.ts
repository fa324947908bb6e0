import type { Connection, Model, mongo } from 'mongoose';

// Small helpers shared by the ledger's parts.

/** The driver's insert, for documents built here in full: the hot path skips mongoose's casting. */
export async function insertRaw<T extends { _id: string }>(model: Model<T>, doc: T): Promise<void> {
  await (model.collection as unknown as mongo.Collection<T>).insertOne(
    doc as mongo.OptionalUnlessRequiredId<T>,
  );
}

export { duplicateKey } from '../persistence/append-at-head';

/** The map of one connection: every Ledger on one connection shares it (API and worker wiring). */
export function perConnection<V>(map: WeakMap<Connection, Map<string, V>>, conn: Connection): Map<string, V> {
  let m = map.get(conn);
  if (!m) map.set(conn, (m = new Map<string, V>()));
  return m;
}
