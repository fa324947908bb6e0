// Pre-builds the workflow bundle for production workers (npm run build -> dist/workflow-bundle.js).
import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { failureConverterPath } from '../src/temporal/codec';

async function main(): Promise<void> {
  const root = resolve(__dirname, '..');
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(root, 'workflows/index.ts'),
    failureConverterPath,
  });
  await mkdir(join(root, 'dist'), { recursive: true });
  await writeFile(join(root, 'dist/workflow-bundle.js'), code);
  console.log(`workflow bundle: dist/workflow-bundle.js (${(code.length / 1024).toFixed(0)} KiB)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
