import { existsSync, readFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { Connection } from 'mongoose';
import type { Divergence } from './books';

// What the fault suite prints beside a divergence, so that a failure seen once in CI can be
// understood from CI's output alone: the transaction's workflow as Temporal holds it (status, its
// last events, a failing workflow task's message) and the API's and worker's log lines naming it.

/** Events shown, the last ones when there are more. */
const MAX_EVENTS = 60;
const LOG_LINES = 40;

export async function diagnose(
  d: Divergence,
  deps: { mongo: Connection; temporal: Client; logFiles: string[] },
): Promise<string> {
  if (d.id === null) return '  (never created: no workflow)';
  const stored = await deps.mongo
    .collection(d.kind === 'refund' ? 'refunds' : 'transactions')
    .findOne({ _id: d.id } as never, { projection: { workflowId: 1 } });
  const workflowId = typeof stored?.workflowId === 'string' ? stored.workflowId : null;
  const lines: string[] = [];
  const needles = [d.id];
  if (workflowId) {
    const workflow = await workflowLines(deps.temporal, workflowId);
    lines.push(...workflow.lines);
    // The SDK's own lines (a failing workflow task) name the run, not our ids.
    needles.push(workflowId, ...workflow.runIds);
  } else lines.push('  workflow: (no stored workflow id)');
  for (const file of deps.logFiles) {
    if (!existsSync(file)) continue;
    const hits = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => needles.some((n) => l.includes(n)) && !routineRead(l));
    lines.push(
      `  ${file.split('/').pop()}: ${hits.length} lines${hits.length > LOG_LINES ? ' (last shown)' : ''}`,
    );
    for (const h of hits.slice(-LOG_LINES)) lines.push(`    ${h.slice(0, 600)}`);
  }
  return lines.join('\n');
}

/** A local activity marker's activity type and attempt (Core writes them as JSON). */
function markerActivity(data: Uint8Array | null | undefined): string {
  if (!data) return '';
  try {
    const d = JSON.parse(Buffer.from(data).toString()) as {
      activity_type?: string;
      attempt?: number;
      seq?: number;
    };
    return `${d.activity_type ?? '?'} seq ${d.seq ?? '?'} attempt ${d.attempt ?? '?'}`;
  } catch {
    return '';
  }
}

/** The suite's own polling of a status (a GET answered 200): dozens per transaction, nothing to see. */
const routineRead = (line: string) =>
  line.includes('"method":"GET"') && line.includes('"statusCode":200') && line.includes('"level":30');

async function workflowLines(
  temporal: Client,
  workflowId: string,
): Promise<{ lines: string[]; runIds: string[] }> {
  try {
    const handle = temporal.workflow.getHandle(workflowId);
    const description = await handle.describe();
    const raw = description.raw;
    const lines = [
      `  workflow ${workflowId}: ${description.status.name}, ${description.historyLength} events, run ${description.runId}`,
    ];
    for (const a of raw.pendingActivities ?? [])
      lines.push(
        `    pending activity ${a.activityType?.name ?? '?'}: attempt ${a.attempt}, ${a.lastFailure?.message ?? 'no failure'}`,
      );
    const task = raw.pendingWorkflowTask;
    if (task) lines.push(`    pending workflow task: attempt ${task.attempt}, state ${task.state}`);
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    for (const e of events.length > MAX_EVENTS ? events.slice(-MAX_EVENTS) : events) lines.push(eventLine(e));
    return { lines, runIds: [description.runId] };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { lines: [`  workflow ${workflowId}: not described (${why})`], runIds: [] };
  }
}

/** One event, with what tells it apart: its activity, Update, failure cause and message. */
function eventLine(e: proto.api.history.v1.IHistoryEvent): string {
  const taskFailed = e.workflowTaskFailedEventAttributes;
  const cause = taskFailed
    ? proto.api.enums.v1.WorkflowTaskFailedCause[taskFailed.cause ?? 0]?.replace(
        'WORKFLOW_TASK_FAILED_CAUSE_',
        '',
      )
    : undefined;
  const marker = e.markerRecordedEventAttributes;
  const markerFailure = marker?.failure
    ? `${marker.failure.cause?.applicationFailureInfo?.type ?? marker.failure.applicationFailureInfo?.type ?? ''} ${marker.failure.message ?? ''}`
    : undefined;
  const failure =
    taskFailed?.failure?.message ??
    e.activityTaskFailedEventAttributes?.failure?.message ??
    e.activityTaskTimedOutEventAttributes?.failure?.message ??
    markerFailure;
  const update =
    e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
    e.workflowExecutionUpdateAdmittedEventAttributes?.request?.input?.name;
  const activity =
    e.activityTaskScheduledEventAttributes?.activityType?.name ??
    (marker
      ? `${marker.markerName ?? ''} ${markerActivity(marker.details?.data?.payloads?.[0]?.data)}`
      : undefined);
  const extra = [activity, update, cause, failure?.slice(0, 300)].filter(Boolean).join(' ');
  const type = proto.api.enums.v1.EventType[e.eventType ?? 0]?.replace('EVENT_TYPE_', '');
  return `    #${String(e.eventId)} ${type}${extra ? ` ${extra}` : ''}`;
}
