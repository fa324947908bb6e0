import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { repoRoot } from '../../src/infra/tools';
import { failureConverterPath } from '../../src/temporal/codec';
import { tracedBundlePath, tracedWorkflowInterceptors } from '../../src/infra/tracing';

/**
 * The traced twin of the run's workflow bundle (docs/decisions/temporal/tracing-bundle-twin.md),
 * built by the first file that needs it (a rename makes it appear whole to the others).
 */
export async function tracedTestBundle(): Promise<string> {
  const path = tracedBundlePath(process.env.TEST_WORKFLOW_BUNDLE!);
  if (existsSync(path)) return path;
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(repoRoot, 'workflows/index.ts'),
    failureConverterPath,
    workflowInterceptorModules: [tracedWorkflowInterceptors],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, code);
  renameSync(partial, path);
  return path;
}
