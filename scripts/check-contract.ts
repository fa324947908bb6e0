// Checks that jest cannot run in-process (these packages are ES modules only): the OpenAPI document
// validates as OpenAPI 3.1, and the typed client's types (sdk/openapi.json and the Node SDK's
// generated files, which src/client re-exports) are what `npm run generate:client` writes.
// Prints one JSON object; the unit test test/unit/openapi.test.ts runs it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiDocument } from '../src/api/openapi/document';
import { sdkOpenApiCurrent } from './generate-sdk-openapi';

async function main(): Promise<void> {
  const doc = JSON.parse(JSON.stringify(openApiDocument())) as Parameters<Validator['validate']>[0];
  const validation = await new Validator().validate(doc);
  const sdkTypes = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '../sdk/codegen/node.ts'), '--check'],
    { encoding: 'utf8' },
  );
  process.stdout.write(
    JSON.stringify({
      valid: validation.valid,
      errors: validation.errors ?? [],
      clientCurrent: (await sdkOpenApiCurrent()) && sdkTypes.status === 0,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
