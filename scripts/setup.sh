#!/usr/bin/env bash
# The README's first command: install the dependencies, build everything, run
# the demo (send, receive, delete, a redelivery after a lease expires, a
# dead-letter move) on a temporary database, then start lqsd on a default
# data directory and show how to talk to it with aws-cli.
#
# In a terminal lqsd keeps running in the foreground (Ctrl-C stops it
# cleanly). Without a terminal (scripts, CI) the script starts lqsd, sends
# the aws-cli example to it, stops it and exits.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
echo
./build/lqs_demo

DATA=${LQS_DATA:-$HOME/.local/share/lqs/data}
PORT=${LQS_PORT:-9324}
mkdir -p "$DATA"
ENDPOINT="http://127.0.0.1:$PORT"
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-x} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-x}
export AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}
echo
echo "Starting lqsd on $DATA at $ENDPOINT. Try, from another shell:"
echo "  AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x aws --region us-east-1 --endpoint-url $ENDPOINT sqs create-queue --queue-name hello"
if [ -t 1 ]; then
  exec ./build/server/lqsd --data "$DATA" --listen "127.0.0.1:$PORT"
fi
./build/server/lqsd --data "$DATA" --listen "127.0.0.1:$PORT" &
LQSD=$!
trap 'kill $LQSD 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
echo "\$ aws --endpoint-url $ENDPOINT sqs create-queue --queue-name hello"
aws --endpoint-url "$ENDPOINT" sqs create-queue --queue-name hello
echo "\$ aws --endpoint-url $ENDPOINT sqs send-message --queue-url $ENDPOINT/123456789012/hello --message-body hi"
aws --endpoint-url "$ENDPOINT" sqs send-message --queue-url "$ENDPOINT/123456789012/hello" --message-body hi
kill -TERM $LQSD
wait $LQSD || true
trap - EXIT
echo "lqsd stopped (run it yourself: ./build/server/lqsd --data $DATA)"
