// npm run generate:client: TypeScript types of the API from its OpenAPI document (src/client/schema.d.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientTypes } from '../src/client/generate';

clientTypes()
  .then((text) => {
    writeFileSync(join(__dirname, '../src/client/schema.d.ts'), text);
  })
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
