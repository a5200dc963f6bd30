#!/usr/bin/env bash
# The contract step of CI: openapi.yaml (the billing API) and
# fake-control.openapi.yaml (billing-fake's control API) are linted with
# Redocly; then billing-fake, seeded with the sample account, runs behind
# Prism as a validating proxy (--errors), and the quickstart and a pass
# over every operation (TestContractEveryOperationAtBaseURL) go through
# it. Any violation Prism finds fails the step: it answers it with an
# error status, and its log is searched for errors as well. The tools'
# versions are pinned in .ci/contract/package-lock.json and installed into
# a temporary directory; the background processes are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

echo "--- contract: install the pinned linter and proxy (npm ci into $work)"
cp .ci/contract/package.json .ci/contract/package-lock.json "$work/"
(cd "$work" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
redocly="$work/node_modules/.bin/redocly"
prism="$work/node_modules/.bin/prism"

echo "--- contract: lint openapi.yaml and fake-control.openapi.yaml (redocly.yaml)"
if ! lint=$("$redocly" lint --format=stylish openapi.yaml fake-control.openapi.yaml 2>&1); then
  echo "$lint"; exit 1
fi
echo "$lint" | grep -v '║' | grep -E 'validated|valid|warning|error' || true

echo "--- contract: build billing-fake"
go build -o "$work/billing-fake" ./cmd/billing-fake

# start_pair NAME FAKE-FLAGS...: starts billing-fake with the sample
# account and the flags, and Prism in front of it; sets proxy to Prism's
# URL and log to its log file.
start_pair() {
  local name=$1; shift
  "$work/billing-fake" -addr 127.0.0.1:0 -fixtures billingtest/sampleaccount.json "$@" >"$work/$name.fake.out" 2>"$work/$name.fake.err" &
  pids+=($!)
  local fake_url=
  for _ in $(seq 1 100); do
    fake_url=$(head -n 1 "$work/$name.fake.out" 2>/dev/null || true)
    [ -n "$fake_url" ] && break
    sleep 0.1
  done
  if [ -z "$fake_url" ]; then
    echo "billing-fake did not start:"; cat "$work/$name.fake.err"; exit 1
  fi
  # A port nothing listens on, for Prism (it takes no port 0).
  local port=$((20000 + RANDOM % 20000))
  while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  log="$work/$name.prism.log"
  "$prism" proxy openapi.yaml "$fake_url" --errors --host 127.0.0.1 --port "$port" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    grep -qs "Prism is listening" "$log" && break
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then
      echo "prism did not start:"; cat "$log"; exit 1
    fi
    sleep 0.1
  done
  grep -qs "Prism is listening" "$log" || { echo "prism did not start in 30s:"; cat "$log"; exit 1; }
  proxy="http://127.0.0.1:$port"
  echo "billing-fake $* at $fake_url, prism at $proxy"
}

# check_log MIN: fails unless Prism's log shows at least MIN requests and
# no error. Prism logs every violation it finds (request or answer) as an
# error, and a request it refused as an error too.
check_log() {
  if grep -nE '✖|error|warning|[Vv]iolation' "$log"; then
    echo "prism found violations of openapi.yaml (above)"; status=1
  fi
  local requests
  requests=$(grep -c 'Request received' "$log" || true)
  echo "prism checked $requests requests"
  if [ "$requests" -lt "$1" ]; then
    echo "fewer requests went through prism than the step makes"; status=1
  fi
}

status=0
echo "--- contract: the quickstart and every operation through prism proxy --errors, in front of billing-fake"
start_pair plain
BILLING_BASE_URL=$proxy BILLING_API_KEY=billingtest-key go run ./examples/quickstart >"$work/quickstart.out" 2>&1 || {
  status=1; cat "$work/quickstart.out"
}
BILLING_CONTRACT_BASE_URL=$proxy go test -count=1 -run '^TestContractEveryOperationAtBaseURL$' . || status=1
check_log 40

echo "--- contract: every operation through prism, billing-fake with every variation of the live service"
start_pair variations -all-variations 3
BILLING_CONTRACT_BASE_URL=$proxy go test -count=1 -run '^TestContractEveryOperationAtBaseURL$' . || status=1
check_log 30
exit $status
