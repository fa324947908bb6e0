import { rmSync } from 'node:fs';
import type { LocalServer } from '../../src/infra/local-servers';
import { checkProvisioned } from './provisioned-tools';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __ferret?: LocalServer; __testDir?: string };
  await g.__ferret?.stop();
  try {
    // MOMO_PROVISION_TARGET is set by the npm scripts that provision before they run jest.
    if (process.env.MOMO_TOOLS_USED)
      checkProvisioned(process.env.MOMO_PROVISION_TARGET, process.env.MOMO_TOOLS_USED);
  } finally {
    if (g.__testDir) rmSync(g.__testDir, { recursive: true, force: true });
  }
}
