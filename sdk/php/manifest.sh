#!/usr/bin/env bash
# The PHP SDK's manifest (docs: the contract check, scripts/check-sdks.ts): its version, the
# operationId each resource method carries in its #[Operation] attribute, and the properties of each
# model carrying #[Schema], all read by reflection over the classes. Run from the repository root.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$(bash "$here/../../scripts/provision-sdk-php" | tail -n 1)
exec "$bin/php" "$here/tools/manifest.php"
