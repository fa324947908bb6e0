import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { decodeHistoryPayloads } from '../../src/temporal/codec';

/** The operatorCallback signals a payin's workflow has received, decoded, in history order. */
export async function callbackSignals(
  client: Client,
  merchantId: string,
  reference: string,
): Promise<{ kind: string; id: string }[]> {
  const history = await client.workflow.getHandle(`payin:${merchantId}:${reference}`).fetchHistory();
  await decodeHistoryPayloads(history, client.options.loadedDataConverter.payloadCodecs);
  return (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'operatorCallback')
    .map((a) => defaultPayloadConverter.fromPayload(a!.input!.payloads![0]!));
}
