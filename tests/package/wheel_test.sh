#!/usr/bin/env bash
# The wheel as a pip user meets it (docs/packages.md): builds it with
# scripts/build-wheel.sh from a build tree, installs it into a fresh virtual
# environment of Debian's python3 (with the system's site packages, for
# Debian's pytest and boto3: nothing comes from PyPI), then imports lqs from
# the environment and uses it, and runs the pytest plugin's example tests with
# the plugin loaded from the wheel's entry point.
#
#   bash tests/package/wheel_test.sh [BUILD_DIR]     (default: build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(cd "${1:-$ROOT/build}" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "wheel_test: $*" >&2; exit 1; }

BUILD_DIR=$BUILD_DIR bash "$ROOT/scripts/build-wheel.sh" "$WORK/dist" > "$WORK/build.log" 2>&1 \
  || { cat "$WORK/build.log"; fail "scripts/build-wheel.sh failed"; }
WHEEL=$(ls "$WORK"/dist/lqs-*.whl)
echo "wheel_test: built $(basename "$WHEEL")"
/usr/bin/python3 -m venv --system-site-packages "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --no-index --no-deps "$WHEEL"
cd "$WORK"
env -u PYTHONPATH "$WORK/venv/bin/python" - "$WORK/venv" <<'PY'
import sys
import lqs
assert lqs.__file__.startswith(sys.argv[1]), lqs.__file__
with lqs.open(sys.argv[1] + "/db") as db:
    q = db.create_queue("jobs")
    q.send("from the wheel")
    with q.receive_one() as msg:
        assert msg is not None and msg.body == "from the wheel", msg
print("wheel_test: lqs", lqs.__version__, "from", lqs.__file__)
PY
# The pytest plugin, loaded from the wheel's pytest11 entry point (no -p), runs the
# plugin's example tests (tests/pytest_plugin/sqs_example.py) with Debian's pytest
# and boto3 (the query protocol).
mkdir "$WORK/app"
cp "$ROOT/tests/pytest_plugin/sqs_example.py" "$WORK/app/test_sqs_example.py"
(cd "$WORK/app" && env -u PYTHONPATH -u AWS_ENDPOINT_URL_SQS -u AWS_ENDPOINT_URL \
   -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_PROFILE \
   AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null \
   LQS_EXPECT_PROTOCOL=query LQS_EXPECT_ENDPOINT=in-process PYTHONDONTWRITEBYTECODE=1 \
   "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider --noconftest -c /dev/null \
   --rootdir "$WORK/app" test_sqs_example.py > "$WORK/pytest.log" 2>&1) \
  || { cat "$WORK/pytest.log"; fail "the pytest plugin's example failed in the venv"; }
tail -1 "$WORK/pytest.log"
"$WORK/venv/bin/python" -m pip uninstall --quiet --yes lqs
env -u PYTHONPATH "$WORK/venv/bin/python" - "$WORK/venv" <<'PY' || fail "lqs left in the environment"
import sys
try:
    import lqs
except ImportError:
    sys.exit(0)
sys.exit(lqs.__file__.startswith(sys.argv[1]))  # one installed system-wide is fine
PY
echo "wheel_test: ok"
