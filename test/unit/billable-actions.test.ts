import { temporal } from '@temporalio/proto';
import { billableActions } from '../../bench/billable-actions';

// The benchmark's count of Temporal Cloud billable actions (issue 20): the rules that differ from
// "one per event" are each pinned here.

const T = temporal.api.enums.v1.EventType;
type Event = temporal.api.history.v1.IHistoryEvent;
let id = 0;
const ev = (eventType: temporal.api.enums.v1.EventType, attrs: Partial<Event> = {}): Event =>
  ({ eventId: ++id, eventType, ...attrs }) as unknown as Event;
const upsert = (...keys: string[]) =>
  ev(T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, {
    upsertWorkflowSearchAttributesEventAttributes: {
      searchAttributes: { indexedFields: Object.fromEntries(keys.map((k) => [k, {}])) },
    },
  });
const marker = (task: number) =>
  ev(T.EVENT_TYPE_MARKER_RECORDED, {
    markerRecordedEventAttributes: { workflowTaskCompletedEventId: task as never },
  });

test('markers once per workflow task, the SDK change-version upsert exempt, a child start 2, retries counted', () => {
  const count = billableActions([
    ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
    ev(T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
    marker(3),
    marker(3),
    upsert('TemporalChangeVersion'),
    upsert('TemporalChangeVersion', 'PaymentStatus'),
    ev(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
    ev(T.EVENT_TYPE_ACTIVITY_TASK_STARTED, { activityTaskStartedEventAttributes: { attempt: 3 } }),
    ev(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
    marker(10),
    ev(T.EVENT_TYPE_TIMER_STARTED),
    ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
    ev(T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED),
    ev(T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
    ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
    ev(T.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED),
    ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
  ]);
  expect(count).toEqual({
    starts: 1,
    activities: 1,
    activityRetries: 2,
    timers: 1,
    signals: 2,
    childStarts: 2,
    updatesAccepted: 1,
    markerTasks: 2,
    upserts: 2,
    total: 14,
  });
});
