import { readdirSync, rmSync } from 'node:fs';
import type { LocalServer } from '../../src/infra/local-servers';
import { checkProvisioned } from './provisioned-tools';
import { stopSharedServers } from '../helpers/time-skipping-server';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __ferret?: LocalServer; __testDir?: string };
  // The time-skipping servers of the jest workers (one each), then FerretDB.
  if (g.__testDir) stopSharedServers(g.__testDir, readdirSync(g.__testDir));
  await g.__ferret?.stop();
  try {
    // MOMO_PROVISION_TARGET is set by the npm scripts that provision before they run jest.
    if (process.env.MOMO_TOOLS_USED)
      checkProvisioned(process.env.MOMO_PROVISION_TARGET, process.env.MOMO_TOOLS_USED);
  } finally {
    if (g.__testDir) rmSync(g.__testDir, { recursive: true, force: true });
  }
}
