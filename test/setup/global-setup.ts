import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort, startFerretDB, type LocalServer } from '../../src/infra/local-servers';
import { repoRoot } from '../../src/infra/tools';
import { failureConverterPath } from '../../src/temporal/codec';
import { uncancelledTimers } from '../helpers/workflow-bundles';

// Once per jest run: one FerretDB (each test file uses its own database) and one workflow bundle
// (bundling per test costs seconds). Each integration file spawns its own time-skipping server.
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'momo-test-'));
  const port = await freePort();
  const ferret = await startFerretDB({ dataDir: join(dir, 'ferretdb'), port });
  (globalThis as { __ferret?: LocalServer; __testDir?: string }).__ferret = ferret;
  (globalThis as { __testDir?: string }).__testDir = dir;

  const bundle = (workflowInterceptorModules: string[]) =>
    bundleWorkflowCode({
      workflowsPath: join(repoRoot, 'workflows/index.ts'),
      failureConverterPath,
      workflowInterceptorModules,
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
    });
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, (await bundle([])).code);
  // The integration stack's twin, on the time-skipping server (test/helpers/uncancelled-timers.ts).
  const timeSkippingBundlePath = join(dir, 'workflow-bundle.time-skipping.js');
  writeFileSync(timeSkippingBundlePath, (await bundle([uncancelledTimers])).code);

  // Inherited by jest's worker processes, started after this.
  process.env.TEST_MONGODB_URL = `mongodb://127.0.0.1:${port}`;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.TEST_TIME_SKIPPING_BUNDLE = timeSkippingBundlePath;
  process.env.MOMO_TOOLS_USED = join(dir, 'tools-used.log');
}
