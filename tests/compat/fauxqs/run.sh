#!/usr/bin/env bash
# Runs fauxqs's SQS tests (test/sqs/*.test.ts) against lqsd. See README.md.
#
# usage: run.sh FAUXQS [-- VITEST_ARGS...]
#   FAUXQS  a fauxqs checkout (work tree) or a fauxqs git directory (bare or
#           mirror; its FAUXQS_REV, default HEAD, is exported). Required.
# environment:
#   LQSD_BIN        lqsd binary (default: <lqs repo>/build/server/lqsd)
#   WORK            scratch directory: glue copy, fauxqs tests, node_modules,
#                   results.json, summary.txt (default: /tmp/lqs-fauxqs-compat)
#   FAUXQS_WORKERS  parallel test files (default 2)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../common.sh
. "$here/../common.sh"
fauxqs=$(source_arg FAUXQS "$@")
shift
if [[ "${1:-}" == "--" ]]; then shift; fi
work="${WORK:-/tmp/lqs-fauxqs-compat}"
export LQSD_BIN="$(realpath "${LQSD_BIN:-$REPO/build/server/lqsd}")"
[[ -x "$LQSD_BIN" ]] || { echo "no lqsd at $LQSD_BIN" >&2; exit 2; }

mkdir -p "$work"
cp -r "$here/lqsd-server.ts" "$here/not-applicable.ts" "$here/setup-fetch.ts" "$here/stubs" "$here/vitest.config.ts" \
  "$here/summarize.mjs" "$here/package.json" "$work/"
rm -rf "$work/fauxqs" && mkdir -p "$work/fauxqs"
if [[ -d "$fauxqs/test/sqs" ]]; then
  cp -r "$fauxqs/test" "$work/fauxqs/"
elif git --git-dir="$fauxqs" rev-parse --verify -q "${FAUXQS_REV:-HEAD}^{commit}" >/dev/null; then
  git --git-dir="$fauxqs" archive "${FAUXQS_REV:-HEAD}" test | tar -x -C "$work/fauxqs"
else
  echo "$fauxqs is neither a fauxqs checkout nor a git directory" >&2
  exit 2
fi

if [[ ! -d "$work/node_modules/vitest" || ! -d "$work/node_modules/@aws-sdk/client-sqs" ]]; then
  (cd "$work" && npm install --no-audit --no-fund --loglevel=error)
fi

cd "$work"
status=0
FAUXQS_ROOT="$work/fauxqs" npx vitest run --config "$work/vitest.config.ts" \
  --reporter=default --reporter=json --outputFile.json="$work/results.json" "$@" || status=$?
node "$work/summarize.mjs" "$work/results.json" --failures | tee "$work/summary.txt"
echo "lqsd: $LQSD_BIN"
echo "report: $work/results.json, summary: $work/summary.txt"
exit "$status"
