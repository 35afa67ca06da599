#!/usr/bin/env bash
# Runs the Node tests (@aws-sdk/client-sqs and sqs-consumer) against lqsd.
#
#   bash run.sh [DEPS_DIR]
#   bash run.sh --install-only [DEPS_DIR]    (.ci/run: the packages, no tests)
#
# The npm packages (package.json / package-lock.json here) are installed into
# DEPS_DIR (default: build-server/server/node) on first use or when
# package.json changed, with `npm install --no-audit --no-fund`; the tests
# then load them through NODE_PATH. Exit 77 (skipped) without node/npm; under
# CI (CI=true) that fails instead (tests/missing_client.sh).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
INSTALL_ONLY=false
if [ "${1:-}" = --install-only ]; then
  INSTALL_ONLY=true
  shift
fi
DEPS=${1:-$ROOT/build-server/server/node}

# shellcheck source=../../missing_client.sh
. "$ROOT/tests/missing_client.sh"
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  missing_client "node/npm not found"
fi

mkdir -p "$DEPS"
if [ ! -d "$DEPS/node_modules/@aws-sdk/client-sqs" ] || [ ! -d "$DEPS/node_modules/sqs-consumer" ] \
   || ! cmp -s "$HERE/package.json" "$DEPS/package.json"; then
  cp "$HERE/package.json" "$HERE/package-lock.json" "$DEPS/"
  echo "installing npm packages into $DEPS"
  (cd "$DEPS" && npm install --no-audit --no-fund --loglevel=error)
fi
if [ "$INSTALL_ONLY" = true ]; then
  echo "npm packages for the Node tests: ok ($DEPS)"
  exit 0
fi

export LQSD=${LQSD:-$ROOT/build-server/server/lqsd}
export NODE_PATH="$DEPS/node_modules"
cd "$HERE"
exec node --test "$HERE/sqs_client.test.cjs" "$HERE/sqs_consumer.test.cjs"
