#!/usr/bin/env bash
# The Python SDK's manifest for the contract check (npm run check:sdks): one JSON object on stdout,
# built by introspecting the package (tools/manifest.py). Run from the repository root.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$("$root/scripts/provision-sdk-python" | tail -n 1)
PYTHONPATH="$root/sdk/python/src" exec "$bin/python" "$root/sdk/python/tools/manifest.py"
