// The latency phase's yardstick (bench/phases/latency.ts), in its own process like the API: an
// Express route that does what a creation cannot do without (one insert into the same FerretDB, one
// workflow start on the same Temporal) and nothing else: no validation, idempotency, ledger or events.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Client, Connection } from '@temporalio/client';
import { connectMongo } from '../src/persistence/mongo';

async function main(): Promise<void> {
  const mongo = await connectMongo(process.env.MONGODB_URI!);
  const temporal = new Client({
    connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
  });
  const rows = mongo.db!.collection<{ _id: string; at: Date }>('bare_route');
  const app = express();
  app.use(express.json());
  app.post('/bare', async (_req, res) => {
    const id = randomUUID();
    await rows.insertOne({ _id: id, at: new Date() });
    await temporal.workflow.start('bareWorkflow', {
      taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
      workflowId: `bare-route-${id}`,
      args: [1],
    });
    res.status(201).json({ id });
  });
  const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bare route up'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
