import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { KeyRing } from '../security/key-ring';
import { dataConverter } from './codec';
import { searchAttributes } from '../../workflows/shared/search-attributes';

/** A client whose payloads are sealed with `keys` (PAYLOAD_CODEC_KEYS; src/temporal/codec.ts). */
export async function connectTemporalClient(
  address: string,
  namespace: string,
  keys: KeyRing,
  /** How long to wait for the server (the SDK's default otherwise: 10 s). */
  connectTimeoutMs?: number,
): Promise<Client> {
  const connection = await Connection.connect({
    address,
    ...(connectTimeoutMs !== undefined ? { connectTimeout: connectTimeoutMs } : {}),
  });
  return new Client({ connection, namespace, dataConverter: dataConverter(keys) });
}

export async function pingTemporal(client: Client): Promise<boolean> {
  try {
    await client.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers the project's search attributes where the server lacks them (the time-skipping test
 * server has no flag for it; the dev server gets them from its start flags).
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  const existing = await connection.operatorService.listSearchAttributes({ namespace }).catch(() => null);
  const missing = Object.keys(searchAttributes).filter((name) => !existing?.customAttributes?.[name]);
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])),
  });
}
