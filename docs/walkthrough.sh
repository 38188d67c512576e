#!/usr/bin/env bash
# The walk-through of docs/guide.md as a script: its commands, in its order, against a running
# gateway, with every id copied from a real answer and every answer checked. Exits non-zero at the
# first surprise. WalkthroughIntegrationTests runs it against a standalone gateway (security on,
# the logged admin token) and then checks that the gateway logged no WARN or ERROR meanwhile.
#
# Environment:
#   BASE         the gateway (default http://localhost:8080)
#   TOKEN        an admin token (empty when security is off)
#   SOURCE       a JSON API for the poller topic, answering {"data": {...}} (default: the demo
#                source of a gateway started with --spring.profiles.active=demo)
#   WEBHOOK_URL  an endpoint that answers 2xx to POSTs (default: that gateway's demo receiver)
# Other local SOURCE and WEBHOOK_URL need --streamgate.egress.allowed-cidrs=127.0.0.1/32 too.
set -euo pipefail
BASE=${BASE:-http://localhost:8080}
SOURCE=${SOURCE:-$BASE/demo/prices}
WEBHOOK_URL=${WEBHOOK_URL:-$BASE/demo/hooks/orders}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
auth=()
if [ -n "${TOKEN:-}" ]; then auth=(-H "Authorization: Bearer $TOKEN"); fi

step() { echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# call STATUS curl-arguments...: runs curl, checks the status, prints the body; headers in $work/headers.
call() {
  local want=$1
  shift
  local got
  got=$(curl -sS -o "$work/body" -D "$work/headers" -w '%{http_code}' "${auth[@]}" "$@")
  [ "$got" = "$want" ] || fail "curl $* answered $got, expected $want: $(cat "$work/body")"
  cat "$work/body"
}

header() { grep -i "^$1:" "$work/headers" | head -1 | cut -d' ' -f2- | tr -d '\r'; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

# stream NAME PATH [curl-arguments...]: a stream in the background (curl -N), into $work/NAME.
stream() {
  local name=$1 path=$2
  shift 2
  curl -sS -N --max-time 30 "${auth[@]}" "$@" "$BASE$path" > "$work/$name" &
  pids+=($!)
  for _ in $(seq 300); do
    grep -q '^retry:' "$work/$name" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "the stream $path did not open"
}

# await_count NAME PATTERN COUNT: waits until the stream holds COUNT lines matching PATTERN.
await_count() {
  for _ in $(seq 300); do
    [ "$(grep -c "$2" "$work/$1" || true)" -ge "$3" ] && return 0
    sleep 0.1
  done
  fail "$1: expected $3 lines matching '$2', got: $(cat "$work/$1")"
}

step "create an event topic: 3 partitions, kept 2 days, its own Kafka topic"
call 201 -X POST "$BASE/api/v1/topics" -H 'Content-Type: application/json' \
  -d '{"id":"orders","name":"Orders","payloadType":"event","partitions":3,"retention":"P2D"}' | json "['storage']" |
  grep -qx dedicated || fail "orders is not dedicated"

step "a snapshot topic fed by the HTTP poller"
call 201 -X POST "$BASE/api/v1/topics" -H 'Content-Type: application/json' -d '{
  "id":"prices","payloadType":"snapshot",
  "publisher":{"type":"http-poller","url":"'"$SOURCE"'","pollingPeriod":"PT1S",
               "payloadPointer":"/data","headers":{"Authorization":"Bearer walkthrough"}}}' > /dev/null
outcome=
for _ in $(seq 150); do
  outcome=$(call 200 "$BASE/api/v1/topics/prices/status" | json ".get('lastPoll', {}).get('outcome')" || true)
  if [ "$outcome" = changed ] || [ "$outcome" = unchanged ]; then break; fi
  sleep 0.2
done
[ "$outcome" = changed ] || [ "$outcome" = unchanged ] || fail "prices: no successful poll (status: $(cat "$work/body"))"
call 200 "$BASE/api/v1/topics/prices" | json "['publisher']['headers']['Authorization']" | grep -qx '\*\*\*\*\*\*' ||
  fail "the poller's Authorization header is not masked"

step "list, read, merge-patch with If-Match"
call 200 "$BASE/api/v1/topics?page=0&size=20" | json "['total']" | grep -qx 2 || fail "the list does not hold 2 topics"
call 200 "$BASE/api/v1/topics/orders" > /dev/null
etag=$(header ETag)
[ -n "$etag" ] || fail "no ETag on GET /api/v1/topics/orders"
before_growth=$(call 202 -X POST "$BASE/api/v1/publish/orders" -H 'Content-Type: application/json' -d '{"order":0}' | json "['id']")
call 412 -X PATCH "$BASE/api/v1/topics/orders" -H 'Content-Type: application/merge-patch+json' \
  -H 'If-Match: "stale"' -d '{"name":"EU orders"}' > /dev/null
call 200 -X PATCH "$BASE/api/v1/topics/orders" -H 'Content-Type: application/merge-patch+json' \
  -H "If-Match: $etag" -d '{"name":"EU orders","partitions":4}' | json "['partitions']" | grep -qx 4 ||
  fail "orders did not grow to 4 partitions"
call 200 "$BASE/api/v1/topics/orders/status" > /dev/null

step "publish and stream"
stream live /api/v1/stream/orders
first=$(call 202 -X POST "$BASE/api/v1/publish/orders" -H 'Content-Type: application/json' -d '{"order":1}' | json "['id']")
second=$(call 202 -X POST "$BASE/api/v1/publish/orders" -H 'Content-Type: application/json' -d '{"order":2}' | json "['id']")
printf '{"order":3}\n{"order":4}\n' | call 202 -X POST "$BASE/api/v1/publish/orders" \
  -H 'Content-Type: application/x-ndjson' --data-binary @- > /dev/null
await_count live '^event: event' 4
last=$(grep '^id: ' "$work/live" | tail -1 | cut -d' ' -f2)

# expect_resume NAME CURSOR COUNT SKIPPED: a stream resumed with Last-Event-ID CURSOR gets exactly COUNT
# events, none of them the one published as {"order":SKIPPED}.
expect_resume() {
  stream "$1" /api/v1/stream/orders -H "Last-Event-ID: $2"
  await_count "$1" '^event: event' "$3"
  sleep 0.5
  [ "$(grep -c '^event: event' "$work/$1")" = "$3" ] || fail "resume after $2: $(cat "$work/$1")"
  grep -q "\"order\":$4[,}]" "$work/$1" && fail "resume after $2 repeated order $4"
  return 0
}

step "resume after an id copied from a publish answer: exactly the events after it"
expect_resume resumed "$first" 3 1
step "resume after a later publish's id: its partition and every other one"
expect_resume resumed-later "$second" 2 1
grep -q '"order":2[,}]' "$work/resumed-later" && fail "resume after $second repeated order 2"
step "resume after an id from before the topic grew from 3 to 4 partitions"
expect_resume grown "$before_growth" 4 0
stream tail "/api/v1/stream/orders?lastEventId=$last"
sleep 0.5
grep -q '^event: event' "$work/tail" && fail "resume after the last id ($last) repeated events"

step "snapshot topics: a snapshot, then JSON Patch diffs"
call 201 -X POST "$BASE/api/v1/topics" -H 'Content-Type: application/json' -d '{"id":"board","payloadType":"snapshot"}' > /dev/null
call 202 -X POST "$BASE/api/v1/publish/board" -H 'Content-Type: application/json' -d '{"score":[1,0]}' > /dev/null
stream board '/api/v1/stream/board?mode=snapshot-patch'
await_count board '^event: snapshot' 1
call 202 -X POST "$BASE/api/v1/publish/board" -H 'Content-Type: application/json' -d '{"score":[2,0]}' > /dev/null
await_count board '^event: patch' 1
grep -q '"op":"replace","path":"/score/0","value":2' "$work/board" || fail "unexpected patch: $(cat "$work/board")"

step "webhooks: register, ping, deliveries"
webhook=$(call 201 -X POST "$BASE/api/v1/topics/orders/webhooks" -H 'Content-Type: application/json' \
  -d '{"url":"'"$WEBHOOK_URL"'","headers":{"X-Team":"quant"},"description":"quant desk"}')
id=$(json "['id']" <<< "$webhook")
json "['secret']" <<< "$webhook" | grep -q '^whsec_' || fail "no whsec_ secret in $webhook"
call 200 -X POST "$BASE/api/v1/topics/orders/webhooks/$id/test" | json "['statusCode']" | grep -q '^2' ||
  fail "the test ping was not answered 2xx"
call 202 -X POST "$BASE/api/v1/publish/orders" -H 'Content-Type: application/json' -d '{"order":5}' > /dev/null
for _ in $(seq 150); do
  delivered=$(call 200 "$BASE/api/v1/topics/orders/webhooks/$id/attempts" |
    python3 -c "import json,sys; print(sum(1 for a in json.load(sys.stdin)['items'] if a.get('outcome') == 'delivered'))")
  [ "$delivered" -ge 2 ] && break
  sleep 0.2
done
[ "$delivered" -ge 2 ] || fail "the webhook's attempts show no delivery of order 5"
if [ "$WEBHOOK_URL" = "$BASE/demo/hooks/orders" ]; then
  call 200 "$BASE/demo/hooks/orders" | python3 -c "
import json, sys
items = json.load(sys.stdin)['items']
assert any('\"order\":5' in i['body'] and i['webhookSignature'].startswith('v1,') for i in items), items" ||
    fail "the demo receiver holds no signed delivery of order 5"
fi

step "clean up: topics last, their streams end with a problem event, their webhooks go"
call 204 -X DELETE "$BASE/api/v1/topics/orders" > /dev/null
await_count live '^event: problem' 1
call 404 "$BASE/api/v1/topics/orders/webhooks/$id" > /dev/null
call 204 -X DELETE "$BASE/api/v1/topics/board" > /dev/null
call 204 -X DELETE "$BASE/api/v1/topics/prices" > /dev/null
call 200 "$BASE/api/v1/topics" | json "['total']" | grep -qx 0 || fail "topics are left"
echo "walk-through done"
