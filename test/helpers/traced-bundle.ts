import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { repoRoot } from '../../src/infra/tools';
import { failureConverterPath } from '../../src/temporal/codec';
import { tracedBundlePath, tracedWorkflowInterceptors } from '../../src/infra/tracing';
import { stackBundle, uncancelledTimers } from './workflow-bundles';

/**
 * The traced twin of a workflow bundle of the run (docs/decisions/temporal/tracing-bundle-twin.md),
 * built by the first file that needs it (a rename makes it appear whole to the others): of the
 * plain bundle (golden histories), or of the integration stack's (`stack`: its timers never
 * cancelled, docs/decisions/testing/time-skipping-uncancelled-timers.md).
 */
export async function tracedTestBundle(of: 'plain' | 'stack' = 'plain'): Promise<string> {
  const base = of === 'stack' ? stackBundle() : process.env.TEST_WORKFLOW_BUNDLE!;
  const path = tracedBundlePath(base);
  if (existsSync(path)) return path;
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(repoRoot, 'workflows/index.ts'),
    failureConverterPath,
    workflowInterceptorModules: [
      ...(base === process.env.TEST_WORKFLOW_BUNDLE ? [] : [uncancelledTimers]),
      tracedWorkflowInterceptors,
    ],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, code);
  renameSync(partial, path);
  return path;
}
