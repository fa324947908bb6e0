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
npx --no-install tsx sdk/codegen/node.ts --check
npx --no-install tsc -p sdk/node/tsconfig.json --noEmit
# The package as a merchant installs it: `npm pack` (its prepack builds CJS and ESM) from a copy of
# sdk/node, so no build output is left in the tree, then `npm install <tarball>` into an empty project.
# That project requires it, imports it, and type-checks against it under Node's own resolution
# (node16) from a CommonJS and an ES module file, with only @types/node beside it.
root=$PWD
work=$(mktemp -d -t momo-sdk-node.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "sdk/node: npm pack, npm install of the tarball into an empty project" >&2
cp -R sdk/node "$work/pkg"
rm -rf "$work/pkg/dist" "$work/pkg/test"
ln -s "$root/node_modules" "$work/pkg/node_modules"
(cd "$work/pkg" && npm pack --silent --pack-destination "$work" >/dev/null)
mkdir "$work/app"
cd "$work/app"
echo '{ "name": "merchant-app", "private": true }' >package.json
npm install --silent --no-audit --no-fund --prefer-offline "$work"/momo-payments-node-*.tgz
mkdir -p node_modules/@types
ln -s "$root/node_modules/@types/node" node_modules/@types/node
node -e "const { MomoPayments } = require('@momo-payments/node'); if (typeof MomoPayments !== 'function') process.exit(1)"
node --input-type=module -e "import { MomoPayments } from '@momo-payments/node'; if (typeof MomoPayments !== 'function') process.exit(1)"
cat >consumer.cts <<'TS'
import { MomoPayments, verifyWebhook, type ClientOptions } from '@momo-payments/node';
const options: ClientOptions = { apiKey: 'mk_test_x', apiClient: 'sk_test_x' };
export const client = new MomoPayments(options);
export const eventType = (body: string, headers: Record<string, string>): string =>
  verifyWebhook(body, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').type;
TS
cp consumer.cts consumer.mts
cat >tsconfig.json <<'JSON'
{
  "compilerOptions": { "module": "node16", "moduleResolution": "node16", "target": "ES2022", "strict": true, "noEmit": true, "types": ["node"] },
  "files": ["consumer.cts", "consumer.mts"]
}
JSON
"$root/node_modules/.bin/tsc" -p tsconfig.json
cd "$root"
exec npx --no-install jest -c sdk/node/jest.config.js "$@"
