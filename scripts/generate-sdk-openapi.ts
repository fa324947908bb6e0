// npm run generate:sdk-openapi: sdk/openapi.json, the OpenAPI document the SDKs are generated from
// and checked against (docs/sdks.md), from the same code that serves GET /openapi.json, prettier-
// formatted. With --check it writes nothing and exits 1 when the file is not what it would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { openApiDocument } from '../src/api/openapi/document';

export const sdkOpenApiPath = join(__dirname, '../sdk/openapi.json');

/** The file's content as it should be. */
export async function sdkOpenApiText(): Promise<string> {
  const options = { ...(await resolveConfig(sdkOpenApiPath)), parser: 'json' };
  return format(JSON.stringify(openApiDocument()), options);
}

/** Whether sdk/openapi.json is what `npm run generate:sdk-openapi` would write. */
export async function sdkOpenApiCurrent(): Promise<boolean> {
  let current: string;
  try {
    current = readFileSync(sdkOpenApiPath, 'utf8');
  } catch {
    return false;
  }
  return current === (await sdkOpenApiText());
}

async function main(): Promise<void> {
  if (process.argv.includes('--check')) {
    if (await sdkOpenApiCurrent()) return;
    console.error('sdk/openapi.json is stale: run `npm run generate:sdk-openapi` and commit it.');
    process.exit(1);
  }
  writeFileSync(sdkOpenApiPath, await sdkOpenApiText());
  console.log('wrote sdk/openapi.json');
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
