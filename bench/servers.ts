import { join } from 'node:path';
import {
  freePort,
  startFerretDB,
  startTemporalDevServer,
  type LocalServer,
} from '../src/infra/local-servers';

/**
 * The embedded topology's servers for a bench: FerretDB (SQLite) and the Temporal dev server on free
 * ports with their data in `dir`, unless MONGODB_URI / TEMPORAL_ADDRESS point at running ones.
 */
export async function embeddedServers(
  dir: string,
  opts: {
    mongoUri?: string;
    temporalAddress?: string;
    ferretDebugAddr?: string;
    dynamicConfig?: string[];
  } = {},
): Promise<{ servers: LocalServer[]; mongoUri: string; temporalAddress: string }> {
  const servers: LocalServer[] = [];
  let { mongoUri, temporalAddress } = opts;
  if (!mongoUri) {
    const port = await freePort();
    servers.push(
      await startFerretDB({
        dataDir: join(dir, 'ferretdb'),
        port,
        ...(opts.ferretDebugAddr ? { debugAddr: opts.ferretDebugAddr } : {}),
      }),
    );
    mongoUri = `mongodb://127.0.0.1:${port}/bench`;
  }
  if (!temporalAddress) {
    const port = await freePort();
    servers.push(
      await startTemporalDevServer({
        dataDir: join(dir, 'temporal'),
        port,
        uiPort: await freePort(),
        namespace: 'default',
        dynamicConfig: opts.dynamicConfig ?? [],
      }),
    );
    temporalAddress = `127.0.0.1:${port}`;
  }
  return { servers, mongoUri, temporalAddress };
}
