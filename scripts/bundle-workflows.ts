// Pre-builds the workflow bundle for production workers (npm run build -> dist/workflow-bundle.js).
import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { failureConverterPath } from '../src/temporal/codec';
import { tracedBundlePath, tracedWorkflowInterceptors } from '../src/infra/tracing';

async function main(): Promise<void> {
  const root = resolve(__dirname, '..');
  await mkdir(join(root, 'dist'), { recursive: true });
  // The plain bundle, and its twin with the tracing interceptors for OTEL_TRACES_EXPORTER (a
  // bundle carries its workflow interceptors; the plain one pays nothing for tracing).
  const path = join(root, 'dist/workflow-bundle.js');
  for (const [file, workflowInterceptorModules] of [
    [path, []],
    [tracedBundlePath(path), [tracedWorkflowInterceptors]],
  ] as const) {
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(root, 'workflows/index.ts'),
      failureConverterPath,
      workflowInterceptorModules: [...workflowInterceptorModules],
    });
    await writeFile(file, code);
    console.log(`workflow bundle: ${file} (${(code.length / 1024).toFixed(0)} KiB)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
