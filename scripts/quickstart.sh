#!/usr/bin/env bash
# Quick start, against a running `npm start`: creates a sandbox merchant, funds its test account,
# starts a webhook receiver on loopback that verifies each delivery's signature, registers it,
# makes a sandbox payin, waits for its final status and its webhook, then prints curl lines that
# work with the merchant's keys. Needs only bash, node and curl.
#
#   bash scripts/quickstart.sh                 # or: npm run quickstart
#   API_URL=http://127.0.0.1:3001 bash scripts/quickstart.sh
#   QUICKSTART_LISTEN=1 bash scripts/quickstart.sh   # keep printing webhooks until Ctrl-C
#
# The CLI reaches MongoDB as `npx payments` does (MONGODB_URI, else the embedded FerretDB).
set -euo pipefail

API_URL="${API_URL:-http://localhost:3000}"
API_URL="${API_URL%/}"
TIMEOUT_SECONDS="${QUICKSTART_TIMEOUT:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

work="$(mktemp -d)"
receiver_pid=""
endpoint_id=""
API_KEY=""
API_CLIENT=""

step() { printf '\n==> %s\n' "$*"; }
fail() {
  printf 'quickstart: %s\n' "$*" >&2
  exit 1
}

cleanup() {
  # The endpoint would outlive the receiver: every later event would fail delivery, and retry.
  if [[ -n $endpoint_id && -z ${QUICKSTART_KEEP_ENDPOINT:-} ]]; then
    curl -sS -o /dev/null -X DELETE -u "$API_KEY:$API_CLIENT" "$API_URL/v1/webhooks/$endpoint_id" || true
  fi
  if [[ -n $receiver_pid ]]; then kill "$receiver_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# One field of the JSON document on stdin, by dotted path (no jq needed).
json() {
  node -e '
    let text = "";
    process.stdin.on("data", (d) => (text += d)).on("end", () => {
      let v = JSON.parse(text);
      for (const k of process.argv[1].split(".")) v = v == null ? undefined : v[k];
      process.stdout.write(v == null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
    });' "$1"
}

uuid() { node -p 'crypto.randomUUID()'; }

# Calls the API as the merchant; prints the body, or fails with the status and the problem.
api() {
  local method=$1 path=$2 body=${3:-} status
  local args=(-sS -o "$work/body" -w '%{http_code}' -X "$method" -u "$API_KEY:$API_CLIENT")
  if [[ -n $body ]]; then
    args+=(-H 'content-type: application/json' -H "X-Idempotency-Key: $(uuid)" --data "$body")
  fi
  status="$(curl "${args[@]}" "$API_URL$path")" || fail "cannot reach $API_URL"
  [[ $status == 2?? ]] || fail "$method $path answered $status: $(cat "$work/body")"
  cat "$work/body"
}

payments() { node bin/payments.js "$@"; }

step "API at $API_URL"
ready="$(curl -sS -o /dev/null -w '%{http_code}' "$API_URL/health/ready" 2>/dev/null)" || ready=000
[[ $ready == 200 ]] ||
  fail "the API at $API_URL is not ready (answer: $ready): start it with \`npm start\` in another terminal, or set API_URL"
echo "ready"

step "Creating a sandbox merchant (npx payments merchants create)"
created="$(payments merchants create --name "Quick start $(date -u +%Y-%m-%dT%H:%M:%SZ)" --json)"
MERCHANT_ID="$(json merchantId <<<"$created")"
API_KEY="$(json apiKey <<<"$created")"
API_CLIENT="$(json apiClient <<<"$created")"
echo "merchant $MERCHANT_ID, test key $API_KEY"

step "Funding its test account with 100000 XOF (npx payments accounts fund)"
funded="$(payments accounts fund --merchant "$MERCHANT_ID" --currency XOF --amount 100000 --json)"
echo "balance $(json balance <<<"$funded") XOF"

step "Starting a webhook receiver on loopback"
PORT_FILE="$work/port" SECRET_FILE="$work/secret" \
  node --import tsx scripts/quickstart-receiver.ts >"$work/events" 2>&1 &
receiver_pid=$!
for _ in $(seq 100); do
  [[ -s $work/port ]] && break
  kill -0 "$receiver_pid" 2>/dev/null || fail "the receiver stopped: $(cat "$work/events")"
  sleep 0.1
done
[[ -s $work/port ]] || fail "the receiver did not start"
receiver_url="http://127.0.0.1:$(cat "$work/port")/webhooks"
echo "listening on $receiver_url"

step "Registering it as the merchant's webhook endpoint (POST /v1/webhooks)"
endpoint="$(api POST /v1/webhooks "{\"url\":\"$receiver_url\",\"description\":\"quick start receiver\"}")"
endpoint_id="$(json id <<<"$endpoint")"
# The secret is shown once: the receiver verifies signatures with it.
json secret <<<"$endpoint" >"$work/secret"
echo "endpoint $endpoint_id"

REF="quickstart-$(date +%s%N)"
step "Making a sandbox payin $REF (POST /v1/direct/payin, sandboxScenario completed)"
payin_body="{\"reference\":\"$REF\",\"sandboxScenario\":\"completed\",\"payin\":{\"amount\":5000,\"msisdn\":\"+2250500000001\",\"provider\":\"MTN\",\"country\":\"CI\"},\"action\":{\"successUrl\":\"https://shop.example/ok\",\"failureUrl\":\"https://shop.example/ko\"}}"
payin="$(api POST /v1/direct/payin "$payin_body")"
echo "status $(json status <<<"$payin")"

deadline=$((SECONDS + TIMEOUT_SECONDS))
status=""
while ((SECONDS < deadline)); do
  status="$(api GET "/v1/payin/$REF" | json status)"
  case $status in success | failed | expired) break ;; esac
  sleep 0.5
done
echo "final status: $status"
[[ $status == success ]] || fail "payin $REF ended '$status', not success"

step "Waiting for its webhook"
until grep -q "payin.completed .*reference=$REF " "$work/events"; do
  ((SECONDS < deadline)) || fail "no verified payin.completed webhook within ${TIMEOUT_SECONDS}s: $(cat "$work/events")"
  sleep 0.2
done
cat "$work/events"

cat <<EOF

Done: merchant $MERCHANT_ID is funded, its payin $REF succeeded and its webhook was verified.
Its test keys and curl lines that work (paste them into a shell):

# --- 8< ---
export API_KEY='$API_KEY'
export API_CLIENT='$API_CLIENT'
REF="order-\$(date +%s%N)"
curl -sS $API_URL/v1/direct/payin -u "\$API_KEY:\$API_CLIENT" -H 'content-type: application/json' -H "X-Idempotency-Key: \$(node -p 'crypto.randomUUID()')" -d '{"reference":"'"\$REF"'","sandboxScenario":"completed","payin":{"amount":5000,"msisdn":"+2250500000001","provider":"MTN","country":"CI"},"action":{"successUrl":"https://shop.example/ok","failureUrl":"https://shop.example/ko"}}'
curl -sS $API_URL/v1/payin/\$REF -u "\$API_KEY:\$API_CLIENT"
curl -sS $API_URL/v1/accounts -u "\$API_KEY:\$API_CLIENT"
curl -sS $API_URL/v1/events -u "\$API_KEY:\$API_CLIENT"
# --- >8 ---
EOF

if [[ -n ${QUICKSTART_LISTEN:-} ]]; then
  printf '\nStill listening on %s for this merchant'"'"'s webhooks; Ctrl-C stops.\n' "$receiver_url"
  tail -n 0 -f "$work/events" &
  wait "$receiver_pid"
else
  printf '\nThe receiver is stopped and its endpoint removed (QUICKSTART_LISTEN=1 keeps them).\n'
fi
