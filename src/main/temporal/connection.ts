import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { tracing } from '../../infra/tracing';
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
  return new Client({
    connection,
    namespace,
    dataConverter: dataConverter(keys),
    ...clientInterceptors(),
  });
}

export async function pingTemporal(client: Client): Promise<boolean> {
  try {
    await client.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  }
}

/** With tracing on, a workflow started, signalled, updated or queried continues the request's trace. */
export function clientInterceptors(): {
  interceptors?: { workflow: OpenTelemetryWorkflowClientInterceptor[] };
} {
  return tracing() ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {};
}
