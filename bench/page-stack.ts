import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MerchantService } from '../src/merchants';
import { waitForPort, type LocalServer } from '../src/infra/local-servers';
import { ApiClient } from '../test/helpers/http';
import { nodeProcess, stopProcess, waitForPoller } from './processes';
import { benchService, embeddedServers } from './servers';

// The stack a page bench opens in a browser (bench/checkout-page.ts, bench/dashboard-page.ts): the
// embedded servers, one worker and one API as their own processes (the API serves the pages as in
// production), the operator simulator, and a merchant with its test key.

export async function startPageStack(queue: string) {
  const dir = mkdtempSync(join(tmpdir(), `bench-${queue}-`));
  const servers: LocalServer[] = [];
  const children: ReturnType<typeof nodeProcess>[] = [];
  const stopAll = async () => {
    for (const child of children) await stopProcess(child);
    for (const server of servers.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const embedded = await embeddedServers(dir);
    servers.push(...embedded.servers);
    const stack = await benchService({
      mongoUri: embedded.mongoUri,
      temporalAddress: embedded.temporalAddress,
      queue,
      logLevel: 'warn',
    });
    children.push(nodeProcess('src/main/worker.ts', stack.env, 'worker'));
    children.push(
      nodeProcess('src/main/api.ts', { ...stack.env, PORT: String(stack.apiPort), HOST: '127.0.0.1' }, 'api'),
    );
    await waitForPort(stack.apiPort, 60_000);
    await waitForPoller(stack.client, stack.taskQueue);
    const merchants = MerchantService.on(stack.mongo);
    await merchants.init();
    const merchant = await merchants.createMerchant('Boutique Akwaba');
    const api = new ApiClient(stack.apiUrl, { apiKey: merchant.apiKey, apiClient: merchant.apiClient });
    return {
      stack,
      merchant,
      api,
      stop: async () => {
        await stack.simulator.stop();
        await stack.mongo.close();
        await stack.temporalConn.close();
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
