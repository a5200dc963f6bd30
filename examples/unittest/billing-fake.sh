#!/usr/bin/env bash
# billing-fake for tests in other languages: start it, inject faults
# through its control API, run the tests against its URL, stop it. CI runs
# this script from the repository's root; README.md shows its middle.
set -euo pipefail
dir=$(mktemp -d)
go build -o "$dir/billing-fake" ./cmd/billing-fake

"$dir/billing-fake" -addr 127.0.0.1:0 -generate 100 > "$dir/out" &
fake=$!
trap 'kill $fake; rm -rf "$dir"' EXIT
until URL=$(head -n1 "$dir/out" 2>/dev/null) && [ -n "$URL" ]; do sleep 0.1; done
KEY='Authorization: Basic billingtest-key'
# The next 2 list calls wait 1.5 s, then answer 503 with Retry-After: 1.
curl -sf -H "$KEY" -X POST "$URL/_fake/faults" \
  -d '{"route":"Invoices.List","times":2,"delayMilliseconds":1500,"status":503,"retryAfterSeconds":1}'
# The next read of an invoice is handled, then its connection is cut
# (drop: "beforeApply" cuts it before the fake acts, "afterApply" after).
curl -sf -H "$KEY" -X POST "$URL/_fake/faults" -d '{"route":"Invoices.Get","drop":"afterApply"}'
# The next write-off is applied, then only half of its answer is sent.
curl -sf -H "$KEY" -X POST "$URL/_fake/faults" -d '{"route":"Invoices.WriteOff","truncate":true}'

# Your tests run here, against "$URL". This script checks the faults:
status=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H "$KEY" "$URL/v1/Invoices?pageSize=1")
case $status in 503\ 1.[5-9]*|503\ [2-9]*) ;; *) echo "list: got $status, want 503 after 1.5 s"; exit 1 ;; esac
second=$(curl -s -H "$KEY" "$URL/v1/Invoices?pageSize=1" -o /dev/null -w '%{http_code}')
[ "$second" = 503 ] || { echo "second list: got $second, want 503"; exit 1; }
if curl -s -H "$KEY" "$URL/v1/Invoices/1" -o /dev/null; then echo "read: the connection was not cut"; exit 1; fi
echo "billing-fake: every fault seen"
