import { rmSync } from 'node:fs';
import type { LocalServer } from '../../src/infra/local-servers';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __ferret?: LocalServer; __testDir?: string };
  await g.__ferret?.stop();
  if (g.__testDir) rmSync(g.__testDir, { recursive: true, force: true });
}
