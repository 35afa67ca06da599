#!/usr/bin/env bash
# aws-cli against lqsd: create-queue, send-message (with attributes),
# receive-message (long poll), delete-message, another region, errors.
#
#   bash awscli_test.sh [AWS_CLI]     (default /usr/bin/aws: Debian's aws-cli v2)
#
# Starts its own lqsd ($LQSD, else build-server/server/lqsd) on a free port.
# Exit 77 (skipped) when the CLI is missing; under CI (CI=true) that fails
# instead (tests/missing_client.sh).
set -euo pipefail

AWS=${1:-/usr/bin/aws}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LQSD=${LQSD:-$ROOT/build-server/server/lqsd}
PY=/usr/bin/python3

# shellcheck source=../missing_client.sh
. "$ROOT/tests/missing_client.sh"
if [ ! -x "$AWS" ]; then missing_client "aws-cli not found at $AWS"; fi
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-lqsdtest}
export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-lqsdtest}
export AWS_DEFAULT_REGION=us-east-1 AWS_PAGER="" AWS_CONFIG_FILE=/dev/null
export AWS_SHARED_CREDENTIALS_FILE=/dev/null

WORK=$(mktemp -d)
LQSD_PID=
cleanup() {
  if [ -n "$LQSD_PID" ] && kill -0 "$LQSD_PID" 2>/dev/null; then kill -KILL "$LQSD_PID"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

mkfifo "$WORK/out"
"$LQSD" --listen 127.0.0.1:0 > "$WORK/out" &
LQSD_PID=$!
exec 3< "$WORK/out"
read -r -t 30 line <&3
URL=${line#lqsd listening on }
case "$URL" in http://*) ;; *) echo "lqsd did not start: $line"; exit 1 ;; esac

passed=0
failed=0
check() {  # check NAME CONDITION-EXIT-CODE
  if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "PASS $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}
sqs() { "$AWS" --endpoint-url "$URL" --output json sqs "$@"; }
field() { $PY -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

echo "$("$AWS" --version 2>&1) against $URL"

Q=$(sqs create-queue --queue-name cli-q --attributes VisibilityTimeout=40 | field 'd["QueueUrl"]')
[ "$Q" = "$URL/123456789012/cli-q" ]; check create-queue $?

[ "$(sqs get-queue-url --queue-name cli-q | field 'd["QueueUrl"]')" = "$Q" ]; check get-queue-url $?
sqs list-queues --queue-name-prefix cli | field 'd["QueueUrls"]' | grep -q cli-q; check list-queues $?
[ "$(sqs get-queue-attributes --queue-url "$Q" --attribute-names VisibilityTimeout \
     | field 'd["Attributes"]["VisibilityTimeout"]')" = 40 ]; check get-queue-attributes $?

BODY=$'hello from the cli\r\nsecond line & <xml>'
SENT=$(sqs send-message --queue-url "$Q" --message-body "$BODY" \
  --message-attributes '{"kind":{"DataType":"String","StringValue":"greeting"},"n":{"DataType":"Number","StringValue":"7"}}')
MD5=$(printf '%s' "$BODY" | md5sum | cut -d' ' -f1)
[ "$(echo "$SENT" | field 'd["MD5OfMessageBody"]')" = "$MD5" ]; check send-message-md5 $?
echo "$SENT" | field 'd["MD5OfMessageAttributes"]' | grep -Eq '^[0-9a-f]{32}$'; check send-message-attr-md5 $?

RECV=$(sqs receive-message --queue-url "$Q" --attribute-names All --message-attribute-names All \
  --wait-time-seconds 5 --max-number-of-messages 10)
echo "$RECV" > "$WORK/recv.json"
[ "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["Messages"][0]["Body"] == sys.argv[2])' \
     "$WORK/recv.json" "$BODY")" = True ]; check receive-message-body $?
[ "$(echo "$RECV" | field 'd["Messages"][0]["MD5OfBody"]')" = "$MD5" ]; check receive-message-md5 $?
[ "$(echo "$RECV" | field 'd["Messages"][0]["MessageAttributes"]["kind"]["StringValue"]')" = greeting ]
check receive-message-attributes $?
[ "$(echo "$RECV" | field 'd["Messages"][0]["Attributes"]["ApproximateReceiveCount"]')" = 1 ]
check receive-message-system-attributes $?

HANDLE=$(echo "$RECV" | field 'd["Messages"][0]["ReceiptHandle"]')
sqs delete-message --queue-url "$Q" --receipt-handle "$HANDLE"; check delete-message $?
# Nothing left: aws-cli prints nothing when Messages is absent.
EMPTY=$(sqs receive-message --queue-url "$Q" --wait-time-seconds 1)
[ -z "$EMPTY" ]; check receive-message-empty $?

# Long poll answered by a send from another process.
( sleep 1; sqs send-message --queue-url "$Q" --message-body late > /dev/null ) &
SENDER=$!
START=$(date +%s%N)
LATE=$(sqs receive-message --queue-url "$Q" --wait-time-seconds 10 | field 'd["Messages"][0]["Body"]')
ELAPSED_MS=$(( ($(date +%s%N) - START) / 1000000 ))
wait "$SENDER"
[ "$LATE" = late ] && [ "$ELAPSED_MS" -lt 8000 ]; check receive-message-long-poll $?

# Errors: the query code and a non-zero exit.
set +e
ERR=$(sqs get-queue-url --queue-name no-such-queue 2>&1 >/dev/null); RC=$?
set -e
[ "$RC" -ne 0 ] && echo "$ERR" | grep -q "AWS.SimpleQueueService.NonExistentQueue"; check error-nonexistent $?
set +e
ERR=$(sqs delete-message --queue-url "$Q" --receipt-handle garbage 2>&1 >/dev/null); RC=$?
set -e
[ "$RC" -ne 0 ] && echo "$ERR" | grep -q "ReceiptHandleIsInvalid"; check error-receipt-handle $?

# Another region (--region): its own queues, its URLs name it.
EU=$(sqs --region eu-west-1 create-queue --queue-name cli-q | field 'd["QueueUrl"]')
[ "$EU" = "$URL/queue/eu-west-1/123456789012/cli-q" ]; check create-queue-other-region $?
sqs --region eu-west-1 send-message --queue-url "$EU" --message-body in-eu > /dev/null
[ "$(sqs --region eu-west-1 receive-message --queue-url "$EU" | field 'd["Messages"][0]["Body"]')" = in-eu ]
check receive-message-other-region $?
[ -z "$(sqs receive-message --queue-url "$Q")" ]; check regions-apart $?

sqs purge-queue --queue-url "$Q"; check purge-queue $?
sqs delete-queue --queue-url "$Q"; check delete-queue $?

kill -TERM "$LQSD_PID"
set +e
wait "$LQSD_PID"; RC=$?
set -e
LQSD_PID=
[ "$RC" = 0 ]; check lqsd-clean-exit $?

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
