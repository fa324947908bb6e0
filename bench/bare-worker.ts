// A worker for the bench's bare workflow, in its own process like the service's worker.
import { NativeConnection, Worker } from '@temporalio/worker';
import { join } from 'node:path';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
    workflowsPath: join(__dirname, 'bare-workflow.ts'),
    activities: { noop: async () => undefined },
  });
  console.log('worker running');
  process.on('SIGTERM', () => worker.shutdown());
  await worker.run();
  await connection.close();
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
