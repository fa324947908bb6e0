import { createRequire } from 'node:module';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

// Workflow histories to and from the proto JSON that Temporal's tools write (golden histories).
// Not @temporalio/common's historyToJSON/historyFromJSON: in this install each @temporalio package
// has its own nested protobufjs copy (the root one is grpc's 7.x), and protojson of common's copy
// refuses the types of proto's ("type must be a Type"). The protojson of the copy that
// @temporalio/proto itself loads does the same conversion.
type History = proto.temporal.api.history.v1.IHistory;

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): History | null;
}
const protoRequire = createRequire(require.resolve('@temporalio/proto'));
const protojson = protoRequire('protobufjs/ext/protojson') as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);

/** Proto JSON, one event a line: compact, and a diff shows which events changed. */
export function historyToJson(history: History): string {
  const message = proto.temporal.api.history.v1.History.fromObject(history);
  const { events } = protojson.toJson(historyType, message) as { events: unknown[] };
  return `{"events":[\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]}\n`;
}

/** A History message (int64 ids as Long), which Worker.runReplayHistories takes as it is. */
export function historyFromJson(json: unknown): History {
  // Fields a newer server adds are ignored, as the SDK's own reader does.
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a workflow history');
  return history;
}
