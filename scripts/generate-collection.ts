// npm run generate:collection: the Postman collection (v2.1) from the OpenAPI document, for merchants
// to import (docs/postman/). test/unit/postman-collection.test.ts fails when the committed one is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { collectionPath, postmanCollection } from '../src/client/postman';

postmanCollection()
  .then((collection) => {
    const file = join(__dirname, '..', collectionPath);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(collection, null, 2)}\n`);
  })
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
