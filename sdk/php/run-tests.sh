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
# Debian's composer and phpunit run under Debian's php: PATH puts the provisioned php first for all.
export PATH="$bin:$PATH"
# The generated models and resources must match sdk/openapi.json (skipped where Node's deps are absent).
if [ -x node_modules/.bin/tsx ]; then
  node_modules/.bin/tsx sdk/codegen/php.ts --check
fi
# The package as a merchant installs it: composer validates composer.json, installs it into an empty
# project from a path repository (Packagist is unreachable here and never needed) and builds an
# optimized class map that fails on any class outside its PSR-4 path; then every class must load
# from vendor/ through Composer's autoloader alone.
work=$(mktemp -d -t momo-sdk-php.XXXXXX)
trap 'rm -rf "$work"' EXIT
export COMPOSER_HOME="$work/composer-home" COMPOSER_NO_INTERACTION=1 COMPOSER_DISABLE_NETWORK=1 COMPOSER_ALLOW_SUPERUSER=1
echo "sdk/php: composer validate, install into an empty project, strict PSR-4 class map" >&2
composer validate --strict --no-check-publish --no-check-lock --working-dir sdk/php
mkdir -p "$work/app"
# composer.json carries no version (Packagist takes it from the tag): the path repository gives it.
version=$(php -r 'require "sdk/php/autoload.php"; echo MomoPayments\Client::VERSION;')
cat >"$work/app/composer.json" <<JSON
{
  "name": "merchant/app",
  "require": { "momo-payments/momo-payments": "^1.0" },
  "repositories": [
    {
      "type": "path",
      "url": "$root/sdk/php",
      "options": { "symlink": false, "versions": { "momo-payments/momo-payments": "$version" } }
    },
    { "packagist.org": false }
  ]
}
JSON
composer install --quiet --working-dir "$work/app"
composer dump-autoload --optimize --strict-psr --working-dir "$work/app"
php sdk/php/tools/installed-consumer.php "$work/app"
phpunit --configuration sdk/php/phpunit.xml.dist "$@"
