import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../../activities';
import { repoRoot } from '../../infra/tools';
import { join } from 'node:path';
import { permanentErrorAlert } from './permanent-error-alert';
import type { KeyRing } from '../../security/key-ring';
import { dataConverter } from '../../temporal/codec';

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
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: createActivities(setup.deps),
    dataConverter: dataConverter(setup.payloadKeys),
    interceptors: { activity: [(ctx) => ({ inbound: permanentErrorAlert(ctx) })] },
    ...(setup.workflowBundlePath
      ? { workflowBundle: { codePath: setup.workflowBundlePath } }
      : { workflowsPath: join(repoRoot, 'workflows/index.ts') }),
    ...setup.options,
  });
}
