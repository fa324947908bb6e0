#!/usr/bin/env bash
# The PHP SDK's whole suite (PHPUnit from Debian, through scripts/provision-sdk-php): unit tests (Standard
# Webhooks vectors, retry policy, PSR-18 injection) and the flows against the stack given by
# MOMO_BASE_URL, MOMO_API_KEY, MOMO_API_CLIENT (MOMO_MERCHANT_ID, MOMO_FAULT_URL). Run from the repo root.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
for v in MOMO_BASE_URL MOMO_API_KEY MOMO_API_CLIENT; do
  [ -n "${!v:-}" ] || { echo "sdk/php/run-tests.sh: $v is not set" >&2; exit 2; }
done
bin=$(bash scripts/provision-sdk-php | tail -n 1)
# The generated models and resources must match sdk/openapi.json (skipped where Node's deps are absent).
if [ -x node_modules/.bin/tsx ]; then
  node_modules/.bin/tsx scripts/generate-sdk-php.ts --check
fi
# Debian's phpunit runs under Debian's php; PATH puts the provisioned php first for both.
PATH="$bin:$PATH" exec phpunit --configuration sdk/php/phpunit.xml.dist "$@"
