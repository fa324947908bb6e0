import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../../activities';
import { repoRoot } from '../../infra/tools';
import { join } from 'node:path';
import { permanentErrorAlert } from './permanent-error-alert';
import type { KeyRing } from '../../security/key-ring';
import { dataConverter } from '../../temporal/codec';
import { existsSync } from 'node:fs';
import type { Context as ActivityContext } from '@temporalio/activity';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import { tracing, tracedBundlePath, tracedWorkflowInterceptors } from '../../infra/tracing';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** PAYLOAD_CODEC_KEYS: payloads and failure messages are sealed with them (src/temporal/codec.ts). */
  payloadKeys: KeyRing;
  /** A pre-built bundle (production, tests); without it the workflows are bundled at start. */
  workflowBundlePath?: string;
  options?: Partial<WorkerOptions>;
}

export async function createWorker(setup: WorkerSetup): Promise<Worker> {
  const traced = tracing();
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: createActivities(setup.deps),
    dataConverter: dataConverter(setup.payloadKeys),
    interceptors: {
      activity: [
        (ctx) => ({ inbound: permanentErrorAlert(ctx) }),
        ...(traced
          ? [
              (ctx: ActivityContext) => ({
                inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
                // An activity's log lines carry its trace and span ids.
                outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
              }),
            ]
          : []),
      ],
      ...(traced && !setup.workflowBundlePath ? { workflowModules: [tracedWorkflowInterceptors] } : {}),
    },
    ...(traced ? { sinks: { exporter: makeWorkflowExporter(traced.processor, traced.resource) } } : {}),
    ...workflowCode(setup.workflowBundlePath, traced !== null),
    ...setup.options,
  });
}

/**
 * The workflows' code: the pre-built bundle (its traced twin when tracing is on, as a bundle
 * carries its interceptors), or bundled at start.
 */
function workflowCode(bundlePath: string | undefined, traced: boolean) {
  if (!bundlePath) return { workflowsPath: join(repoRoot, 'workflows/index.ts') };
  const twin = tracedBundlePath(bundlePath);
  if (traced && !existsSync(twin))
    throw new Error(`tracing is on but ${twin} is missing: npm run build writes it beside ${bundlePath}`);
  return { workflowBundle: { codePath: traced ? twin : bundlePath } };
}
