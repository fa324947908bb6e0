#!/usr/bin/env bash
# The Node SDK's suite, from the repository's root, against the stack given by MOMO_BASE_URL,
# MOMO_API_KEY, MOMO_API_CLIENT, MOMO_MERCHANT_ID and MOMO_FAULT_URL. Its tools (jest, ts-jest,
# tsx, typescript, ws) are the project's own devDependencies: installed by npm ci when absent.
set -euo pipefail
cd "$(dirname "$0")/../.."
for var in MOMO_BASE_URL MOMO_API_KEY MOMO_API_CLIENT MOMO_MERCHANT_ID MOMO_FAULT_URL; do
  if [ -z "${!var:-}" ]; then
    echo "sdk/node/run-tests.sh: $var is not set" >&2
    exit 2
  fi
done
[ -d node_modules ] || npm ci --no-audit --no-fund
# The types must match the OpenAPI snapshot.
npx --no-install tsx sdk/node/scripts/generate.ts --check
npx --no-install tsc -p sdk/node/tsconfig.json --noEmit
# The package builds to ESM and CJS and both load (built under node_modules/.cache, so no build
# output is left in the tree for eslint or git to find).
out=node_modules/.cache/sdk-node-build
rm -rf "$out"
npx --no-install tsc -p sdk/node/tsconfig.cjs.json --outDir "$out/cjs"
npx --no-install tsc -p sdk/node/tsconfig.esm.json --outDir "$out/esm"
echo '{"type":"commonjs"}' >"$out/cjs/package.json"
echo '{"type":"module"}' >"$out/esm/package.json"
node -e "if (typeof require('./$out/cjs/index.js').MomoPayments !== 'function') process.exit(1)"
node --input-type=module -e "const m = await import('./$out/esm/index.js'); if (typeof m.MomoPayments !== 'function') process.exit(1)"
exec npx --no-install jest -c sdk/node/jest.config.js "$@"
