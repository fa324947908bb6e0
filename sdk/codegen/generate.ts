// npm run generate:sdks (after sdk/openapi.json): the three SDKs' generated code, from sdk/openapi.json
// and the resource manifest sdk/codegen/resources.json. `--check` writes nothing and fails when a
// committed file differs. `-- node php` runs only the SDKs named.
//   node:   sdk/codegen/node.ts        types, operation table, resource classes (sdk/node/src/generated)
//   php:    sdk/codegen/php.ts         models, resources, operation table (sdk/php/src/{Models,Resources,Generated})
//   python: sdk/codegen/python/generate.py, in the SDK's pinned venv (datamodel-code-generator and
//           pydantic are Python tools): models, operation table, resources (sdk/python/src/momo_payments)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { sdks } from './manifest';

const root = join(__dirname, '..', '..');
const check = process.argv.includes('--check');
const named = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const commands: Record<(typeof sdks)[number], [string, string[]]> = {
  node: [process.execPath, ['--import', 'tsx', join(__dirname, 'node.ts')]],
  php: [process.execPath, ['--import', 'tsx', join(__dirname, 'php.ts')]],
  python: ['bash', [join(root, 'sdk', 'python', 'tools', 'regenerate.sh')]],
};
let failed = false;
for (const sdk of sdks) {
  if (named.length && !named.includes(sdk)) continue;
  const [command, args] = commands[sdk];
  const run = spawnSync(command, [...args, ...(check ? ['--check'] : [])], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(
      `generate:sdks: ${sdk} ${check ? 'is stale' : 'failed'} (exit ${run.status ?? run.signal})`,
    );
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
