// Checks that jest cannot run in-process (these packages are ES modules only): the OpenAPI document
// validates as OpenAPI 3.1, and src/client/schema.d.ts is what `npm run generate:client` writes.
// Prints one JSON object; the unit test test/unit/openapi.test.ts runs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { format, resolveConfig } from 'prettier';
import { openApiDocument } from '../src/api/openapi/document';
import { clientTypes } from '../src/client/generate';

async function main(): Promise<void> {
  const doc = JSON.parse(JSON.stringify(openApiDocument())) as Parameters<Validator['validate']>[0];
  const validation = await new Validator().validate(doc);
  const file = join(__dirname, '../src/client/schema.d.ts');
  const fresh = await format(await clientTypes(), { ...(await resolveConfig(file)), parser: 'typescript' });
  process.stdout.write(
    JSON.stringify({
      valid: validation.valid,
      errors: validation.errors ?? [],
      clientCurrent: readFileSync(file, 'utf8') === fresh,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
