import { temporal } from '@temporalio/proto';

// Billable actions as Temporal Cloud counts them (docs.temporal.io/cloud/actions), read from a
// workflow's history: what a transaction costs on the managed service, and the unit issue 20 cuts.
// Not in a history, so counted apart by whoever makes them: Queries and rejected Updates.

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = temporal.api.enums.v1.EventType;

/** The search attribute `patched()` upserts: exempt, the SDK's own bookkeeping. */
const CHANGE_VERSION = 'TemporalChangeVersion';

export interface ActionCount {
  /** The workflow's start (a continue-as-new run is a start of its own). */
  starts: number;
  /** Each activity scheduled, and each of its retries (an attempt after the first). */
  activities: number;
  activityRetries: number;
  timers: number;
  /** Signals received, and signals sent to another workflow. */
  signals: number;
  /** A child workflow's start counts 2 (its initiation and the child's own start). */
  childStarts: number;
  updatesAccepted: number;
  /** Local activities and side effects: once per workflow task that recorded any marker. */
  markerTasks: number;
  /** Search-attribute upserts, except the SDK's TemporalChangeVersion alone; memo changes. */
  upserts: number;
  total: number;
}

export function billableActions(events: HistoryEvent[]): ActionCount {
  const c = {
    starts: 0,
    activities: 0,
    activityRetries: 0,
    timers: 0,
    signals: 0,
    childStarts: 0,
    updatesAccepted: 0,
    markerTasks: 0,
    upserts: 0,
  };
  const markerTasks = new Set<string>();
  for (const e of events) {
    switch (e.eventType) {
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        c.starts++;
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        c.activities++;
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        c.activityRetries += Math.max(0, (e.activityTaskStartedEventAttributes?.attempt ?? 1) - 1);
        break;
      case T.EVENT_TYPE_TIMER_STARTED:
        c.timers++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
      case T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
        c.signals++;
        break;
      case T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        c.childStarts += 2;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        c.updatesAccepted++;
        break;
      case T.EVENT_TYPE_MARKER_RECORDED:
        markerTasks.add(String(e.markerRecordedEventAttributes?.workflowTaskCompletedEventId ?? e.eventId));
        break;
      case T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const keys = Object.keys(
          e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {},
        );
        if (keys.some((k) => k !== CHANGE_VERSION)) c.upserts++;
        break;
      }
      case T.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
        c.upserts++;
        break;
    }
  }
  c.markerTasks = markerTasks.size;
  const total = Object.values(c).reduce((a, b) => a + b, 0);
  return { ...c, total };
}
