#!/usr/bin/env bash
# Run moto's AWS-verified SQS tests (tests/test_sqs/test_sqs.py, marker aws_verified) against lqsd.
#
#   run.sh MOTO [PYTEST_ARGS...]
#     MOTO: a moto checkout or (bare) git dir (required)
# Environment:
#   LQSD=PATH        lqsd binary (default: <repo>/build/server/lqsd; copied before the run)
#   PYTHON=EXE       a Python with moto and boto3 >= 1.31 (default python3)
#   PROTOCOLS="..."  json and/or query (default: "json query"); query needs LOCALSTACK_SRC
#   LOCALSTACK_SRC=DIR  LocalStack checkout or git dir, for its sqs-query service model
#                    (required for the query protocol)
#   WORK=DIR         scratch directory (default: a new /tmp/lqs-moto.*)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common.sh
. "$HERE/../common.sh"
MOTO_SRC=$(source_arg MOTO "$@")
shift
PROTOCOLS=${PROTOCOLS:-"json query"}
case " $PROTOCOLS " in *" query "*) need_source LOCALSTACK_SRC "${LOCALSTACK_SRC:-}" ;; esac
compat_setup lqs-moto

T=$WORK/moto
rm -rf "$T"
extract "$MOTO_SRC" "$T" tests/__init__.py tests/conftest.py tests/markers.py \
  tests/test_sqs/__init__.py tests/test_sqs/test_sqs.py
cp "$HERE/conftest.py" "$T/conftest.py"
printf '[pytest]\naddopts = -p no:cacheprovider\nmarkers =\n    aws_verified: verified against AWS\n' >"$T/pytest.ini"
DATA=$WORK/data
rm -rf "$DATA"
if [[ " $PROTOCOLS " == *" query "* ]]; then
  extract "$LOCALSTACK_SRC" "$WORK/ls" localstack-core/localstack/aws/data/sqs-query
  DATA=$WORK/ls/localstack-core/localstack/aws/data
fi

LIB=$WORK/pylib
rm -rf "$LIB"
link_debian_packages "$PYTHON" "$LIB" \
  pytest=pytest,_pytest,pluggy,iniconfig,packaging,py.py,attr,attrs freezegun=freezegun
export PYTHONPATH="$LIB"
"$PYTHON" -c "import pytest, moto, botocore; print('moto', moto.__version__, 'botocore', botocore.__version__, 'pytest', pytest.__version__)"

mkdir -p "$WORK/bin"
cp "$LQSD" "$WORK/bin/lqsd"
PORT=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$WORK/bin/lqsd" --listen "127.0.0.1:$PORT" --no-purge-interval --no-queue-reuse-delay \
  --log-level warn >"$WORK/lqsd.log" 2>&1 &
LQSD_PID=$!
trap 'kill $LQSD_PID 2>/dev/null; wait $LQSD_PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  if "$PYTHON" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
echo "lqsd on port $PORT (pid $LQSD_PID)"

export MOTO_TEST_ALLOW_AWS_REQUEST=true
export AWS_ENDPOINT_URL_SQS="http://localhost:$PORT"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1

unset AWS_PROFILE AWS_ENDPOINT_URL || true

rc=0
summary=""
for proto in $PROTOCOLS; do
  set +e
  data_env=()
  [ "$proto" = query ] && data_env=(AWS_DATA_PATH="$DATA")
  (cd "$T" && env "${data_env[@]}" LQS_COMPAT_PROTOCOL=$proto "$PYTHON" -m pytest -m aws_verified -rfs -v --tb=short \
    "$@" tests/test_sqs/test_sqs.py) >"$WORK/pytest-$proto.log" 2>&1
  r=$?
  set -e
  [ $r -ne 0 ] && rc=$r
  echo "=== protocol $proto ==="
  cat "$WORK/pytest-$proto.log"
  summary+="$proto: $(tail -1 "$WORK/pytest-$proto.log" | tr -d '=')"$'\n'
done
printf '%s' "$summary"
exit $rc
