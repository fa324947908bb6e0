#!/usr/bin/env bash
# Regenerates the Python SDK's models, operation table and resources from sdk/openapi.json
# (pass --check to only compare). Run from anywhere.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
bin=$("$root/scripts/provision-sdk-python" | tail -n 1)
exec "$bin/python" "$root/sdk/codegen/python/generate.py" "$@"
