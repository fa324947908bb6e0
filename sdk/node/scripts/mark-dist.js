// Each output directory says its module system, so Node reads dist/esm as ESM and dist/cjs as
// CommonJS whatever the package's own "type" is.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

for (const [dir, type] of [
  ['cjs', 'commonjs'],
  ['esm', 'module'],
])
  writeFileSync(join(__dirname, '..', 'dist', dir, 'package.json'), `${JSON.stringify({ type })}\n`);
