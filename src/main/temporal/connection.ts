import { Client, Connection } from '@temporalio/client';
import type { KeyRing } from '../../security/key-ring';
import { dataConverter } from '../../temporal/codec';

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
