#!/usr/bin/env bash
# Run LocalStack's AWS-validated SQS tests against lqsd, on both SQS wire protocols.
#
#   run.sh LOCALSTACK [PYTEST_ARGS...]
#     LOCALSTACK: a LocalStack checkout, or a (bare) git dir of one (required)
#     PYTEST_ARGS: passed on to pytest (e.g. -k "fifo and not batch" -x)
# Environment:
#   LQSD=PATH         lqsd binary (default: <repo>/build/server/lqsd; copied before the run)
#   SNAPSHOT_SRC=DIR  localstack-snapshot checkout or git dir (required)
#   PYTHON=EXE        a Python with boto3/botocore >= 1.31 (JSON protocol for SQS); default python3
#   WORK=DIR          scratch directory (default: a new /tmp/lqs-compat.*); kept afterwards
#   TESTS="..."       test files (default: test_sqs.py test_sqs_move_task.py)
#   LQSD_ARGS="..."   more lqsd flags for both passes (e.g. --url-style host)
#   LQS_COMPAT_DELAY_PASS=0  skip the second (aws-delays) pass
#   LQS_COMPAT_STRICT=1       compare every recorded path (ignore skip_snapshot_verify)
# Prints pytest's per-test lines of each pass, then per protocol: passed / failed / skipped.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
LS_SRC=$(source_arg LOCALSTACK "$@")
shift
need_source SNAPSHOT_SRC "${SNAPSHOT_SRC:-}"
TESTS=${TESTS:-"test_sqs.py test_sqs_move_task.py"}
compat_setup lqs-compat

# 1. the tests and the sqs-query service model
LS=$WORK/localstack
rm -rf "$LS"
SQS=tests/aws/services/sqs
extract "$LS_SRC" "$LS" tests/__init__.py tests/aws/__init__.py tests/aws/services/__init__.py \
  $SQS/__init__.py $SQS/utils.py $SQS/test_sqs.py $SQS/test_sqs.snapshot.json \
  $SQS/test_sqs.validation.json $SQS/test_sqs_move_task.py $SQS/test_sqs_move_task.snapshot.json \
  $SQS/test_sqs_move_task.validation.json localstack-core/localstack/aws/data/sqs-query
cp "$HERE/conftest.py" "$LS/conftest.py"
printf '[pytest]\naddopts = -p no:cacheprovider\n' >"$LS/pytest.ini"

# 2. Python path: shims, the snapshot library, and pytest (Debian's, if PYTHON lacks one)
LIB=$WORK/pylib
rm -rf "$LIB"
mkdir -p "$LIB"
extract "$SNAPSHOT_SRC" "$LIB" localstack_snapshot
link_debian_packages "$PYTHON" "$LIB" \
  pytest=pytest,_pytest,pluggy,iniconfig,packaging,py.py,attr,attrs jsonpath_ng=jsonpath_ng,ply \
  deepdiff=deepdiff,ordered_set
export PYTHONPATH="$HERE/shims:$LIB"
"$PYTHON" -c "import pytest, deepdiff, jsonpath_ng, localstack_snapshot, botocore; print('python', __import__('sys').version.split()[0], 'botocore', botocore.__version__, 'pytest', pytest.__version__)"

# 3. lqsd, from a copy, on a free port, with a temporary database
mkdir -p "$WORK/bin"
cp "$LQSD" "$WORK/bin/lqsd"
echo "lqsd: $("$WORK/bin/lqsd" --version 2>&1 | head -1), copied from $LQSD ($(stat -c %y "$LQSD"))"
LQSD_PID=
stop_lqsd() {
  if [ -n "$LQSD_PID" ]; then
    kill "$LQSD_PID" 2>/dev/null || true
    wait "$LQSD_PID" 2>/dev/null || true
    LQSD_PID=
  fi
}
trap stop_lqsd EXIT
# start_lqsd LOGNAME FLAGS...: sets PORT, LQSD_PID, LQS_COMPAT_ENDPOINT
start_lqsd() {
  local log=$1
  shift
  PORT=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$WORK/bin/lqsd" --listen "127.0.0.1:$PORT" --log-level warn "$@" >"$WORK/$log" 2>&1 &
  LQSD_PID=$!
  for _ in $(seq 100); do
    if "$PYTHON" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  export LQS_COMPAT_ENDPOINT="http://localhost:$PORT"
  echo "lqsd $* on port $PORT (pid $LQSD_PID)"
}

export LQS_COMPAT_ACCOUNT=123456789012
export LQS_COMPAT_REGION=us-east-1
export LQS_COMPAT_DATA_PATH="$LS/localstack-core/localstack/aws/data"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
unset AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_SQS || true

files=()
for t in $TESTS; do files+=("$SQS/$t"); done
rc=0
# run_pass NAME: pytest into $WORK/pytest-NAME.log and junit-NAME.xml
run_pass() {
  local name=$1
  shift
  set +e
  (cd "$LS" && "$PYTHON" -m pytest -rfs -v --tb=short -o junit_family=xunit1 \
    --junitxml="$WORK/junit-$name.xml" "$@" "${files[@]}") >"$WORK/pytest-$name.log" 2>&1
  local r=$?
  set -e
  # 5 = nothing selected (a -k that matches no aws-delays test)
  if [ $r -ne 0 ] && [ $r -ne 5 ]; then rc=$r; fi
  echo "=== pass $name ==="
  cat "$WORK/pytest-$name.log"
}

# 4. the main pass, as a test suite runs lqsd
start_lqsd lqsd.log --no-purge-interval --no-queue-reuse-delay ${LQSD_ARGS:-}
LQS_COMPAT_PASS=main run_pass main "$@"
stop_lqsd

# 5. the aws-delays pass: lqsd with SQS' purge interval and queue-name reuse delay
if [ "${LQS_COMPAT_DELAY_PASS:-1}" = 1 ]; then
  start_lqsd lqsd-aws-delays.log ${LQSD_ARGS:-}
  LQS_COMPAT_PASS=aws-delays run_pass aws-delays "$@"
  stop_lqsd
fi

# 6. per-protocol counts, the aws-delays results replacing the main pass's skips
"$PYTHON" - "$WORK/junit-main.xml" "$WORK/junit-aws-delays.xml" <<'PY'
import os
import sys
import xml.etree.ElementTree as ET


def cases(path):
    if not os.path.exists(path):
        return {}
    return {(c.get("classname"), c.get("name")): c for c in ET.parse(path).iter("testcase")}


merged = cases(sys.argv[1])
merged.update(cases(sys.argv[2]))
counts = {}
for (cls, name), case in merged.items():
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    proto = props.get("protocol", "?")
    if case.find("skipped") is not None:
        outcome = "skipped"
    elif case.find("failure") is not None or case.find("error") is not None:
        outcome = "failed"
    else:
        outcome = "passed"
    counts.setdefault(proto, {"passed": 0, "failed": 0, "skipped": 0})[outcome] += 1
total = {"passed": 0, "failed": 0, "skipped": 0}
print("=== summary (both passes) ===")
for proto in sorted(counts):
    c = counts[proto]
    for k in total:
        total[k] += c[k]
    print(f"{proto:30s} {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped")
print(f"total: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
PY
echo "logs: $WORK/pytest-*.log, $WORK/lqsd*.log"
exit $rc
