#!/usr/bin/env bash
# The Node SDK's manifest (see scripts/manifest.ts), run from the repository's root.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d node_modules ] || npm ci --no-audit --no-fund >&2
exec npx --no-install tsx sdk/node/scripts/manifest.ts
