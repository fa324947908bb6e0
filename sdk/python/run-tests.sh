#!/usr/bin/env bash
# The Python SDK's whole suite, run from the repository root against a running stack given by env
# (MOMO_BASE_URL, MOMO_API_KEY, MOMO_API_CLIENT, MOMO_MERCHANT_ID, MOMO_FAULT_URL): the generated code
# matches sdk/openapi.json, mypy --strict over the package, then pytest (flows on the stack, retries
# through the fault proxy, the event stream, Standard Webhooks vectors, the retry policy on a stub).
# Its tools come from scripts/provision-sdk-python (a pinned venv in the per-user cache).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sdk="$root/sdk/python"
for name in MOMO_BASE_URL MOMO_API_KEY MOMO_API_CLIENT MOMO_MERCHANT_ID MOMO_FAULT_URL; do
  [ -n "${!name:-}" ] || { echo "sdk/python/run-tests.sh: $name is not set" >&2; exit 2; }
done
bin=$("$root/scripts/provision-sdk-python" | tail -n 1)
export PYTHONDONTWRITEBYTECODE=1
echo "sdk/python: generated code against sdk/openapi.json" >&2
PYTHONPATH="$sdk/src" "$bin/python" "$root/sdk/codegen/python/generate.py" --check
# The suite runs the package as a merchant installs it: the wheel built from pyproject.toml (hatchling),
# installed with pip into a folder of its own on PYTHONPATH, so the cached venv is never changed.
work=$(mktemp -d -t momo-sdk-python.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "sdk/python: wheel, installed with pip" >&2
"$bin/pip" wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation -w "$work/dist" "$sdk"
"$bin/pip" install --quiet --disable-pip-version-check --no-deps --no-index --target "$work/site" "$work"/dist/*.whl
export PYTHONPATH="$work/site"
"$bin/python" -c 'import momo_payments, sys; sys.exit(0 if momo_payments.__file__.startswith(sys.argv[1]) else 1)' "$work/site" \
  || { echo "sdk/python: the suite would not run the installed package" >&2; exit 1; }
echo "sdk/python: mypy --strict, the installed package and a merchant's code using it (py.typed)" >&2
(cd "$work/site" && "$bin/mypy" --strict --config-file "$sdk/pyproject.toml" --cache-dir "$bin/../mypy-cache" -p momo_payments)
(cd "$work" && "$bin/mypy" --strict --config-file "$sdk/pyproject.toml" --cache-dir "$bin/../mypy-cache" "$sdk/tools/typed_consumer.py")
echo "sdk/python: pytest" >&2
cd "$sdk"
# Serial by default: on a loaded machine parallel flows only slow the service down. SDK_PYTHON_WORKERS=N
# runs N at a time (the fault proxy's tests share one worker, as arming it is for "the next requests").
"$bin/python" -m pytest -q -p no:cacheprovider -n "${SDK_PYTHON_WORKERS:-0}" --dist loadgroup --durations=8 "$@"
