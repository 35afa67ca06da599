#!/usr/bin/env bash
# The .deb as an operator meets it (docs/packages.md): builds it with cpack
# from a build tree, checks its contents, installs it with dpkg -i, checks
# the service user and the data directory, builds a C program against the
# shared library with pkg-config, imports the Python module with Debian's
# python3, runs lqsd.service's ExecStart as the unit's user (no systemd in
# CI: tests/package/run_unit.py), drives it with aws-cli, stops it with
# SIGTERM, then removes and purges the package and checks that nothing is
# left behind.
#
#   bash tests/package/deb_test.sh [BUILD_DIR]     (default: build)
#
# Needs root (dpkg -i): exit 77 (skipped) otherwise, a failure under CI.
# Refuses to run where an lqs package is installed already.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(cd "${1:-$ROOT/build}" && pwd)
HERE=$ROOT/tests/package
# shellcheck source=../missing_client.sh
. "$ROOT/tests/missing_client.sh"
if [ "$(id -u)" != 0 ]; then missing_client "deb_test needs root (dpkg -i)"; fi
if dpkg-query -W -f='${Status}' lqs 2>/dev/null | grep -q "installed"; then
  echo "deb_test: an lqs package is installed on this machine; not touching it" >&2
  exit 1
fi
AWS=/usr/bin/aws
if [ ! -x "$AWS" ]; then missing_client "aws-cli not found at $AWS"; fi

WORK=$(mktemp -d)
LQSD_PID=
INSTALLED=
cleanup() {
  if [ -n "$LQSD_PID" ] && kill -0 "$LQSD_PID" 2>/dev/null; then kill -KILL "$LQSD_PID"; fi
  if [ -n "$INSTALLED" ]; then dpkg --purge lqs > /dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }

# ---- Build and inspect ------------------------------------------------------------
(cd "$BUILD_DIR" && cpack -G DEB -B "$WORK/pkg" > "$WORK/cpack.log") \
  || { cat "$WORK/cpack.log"; fail "cpack failed"; }
DEB=$(ls "$WORK"/pkg/lqs_*.deb)
echo "deb_test: built $(basename "$DEB") ($(du -k "$DEB" | cut -f1) KiB)"
dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' > "$WORK/contents"
for f in /usr/bin/lqsd /usr/bin/lqs /usr/include/lqs/c.h /usr/include/lqs/broker.h \
         /usr/lib/cmake/lqs/lqsConfig.cmake /usr/lib/pkgconfig/lqs.pc \
         /usr/lib/python3/dist-packages/lqs/__init__.py /lib/systemd/system/lqsd.service \
         /etc/lqs/lqsd.env /etc/lqs/queues.json /usr/share/doc/lqs/README.md; do
  grep -qx "$f" "$WORK/contents" || fail "$f is not in the package"
done
grep -q '^/usr/lib/liblqs_c\.so\.0' "$WORK/contents" || fail "no liblqs_c.so.0"
grep -q '^/usr/lib/python3/dist-packages/lqs/_lqs\..*\.so$' "$WORK/contents" \
  || fail "no Python extension"
DEPENDS=$(dpkg-deb -f "$DEB" Depends)
[[ "$DEPENDS" == *adduser* ]] || fail "Depends lacks adduser: $DEPENDS"
[[ "$DEPENDS" == *librocksdb* ]] || fail "Depends lacks RocksDB (shlibdeps): $DEPENDS"
[[ "$(dpkg-deb -I "$DEB" conffiles)" == *"/etc/lqs/lqsd.env"* ]] || fail "lqsd.env is no conffile"

# ---- Install ----------------------------------------------------------------------
INSTALLED=1
dpkg -i "$DEB" > "$WORK/dpkg.log" || { cat "$WORK/dpkg.log"; fail "dpkg -i failed"; }
getent passwd lqs > /dev/null || fail "no lqs user"
[ "$(stat -c %U:%G /var/lib/lqs)" = lqs:lqs ] || fail "/var/lib/lqs not owned by lqs"
/usr/bin/lqs --version > /dev/null
/usr/bin/lqsd --version > /dev/null
(cd /tmp && env -u PYTHONPATH /usr/bin/python3 -c '
import lqs, sys
assert lqs.__file__.startswith("/usr/lib/python3/dist-packages/lqs/"), lqs.__file__
with lqs.open(sys.argv[1]) as db:
    q = db.create_queue("py")
    q.send("from the package")
    with q.receive_one() as msg:
        assert msg is not None and msg.body == "from the package", msg
' "$WORK/pydb") || fail "the Python module does not work"
cat > "$WORK/version.c" <<'C'
#include <lqs/c.h>
#include <stdio.h>
int main(void) {
  if (lqs_version_major() != 0 || LQS_C_API_VERSION < 5) return 1;
  printf("%s\n", lqs_version());
  return 0;
}
C
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$WORK/version.c" -o "$WORK/version" $(pkg-config --cflags --libs lqs)
[[ "$(ldd "$WORK/version")" =~ liblqs_c\.so\.0\ =\>\ /(usr/)?lib/ ]] || fail "not linked to liblqs_c.so.0"
"$WORK/version" > /dev/null

# ---- Run the unit's ExecStart as its user -----------------------------------------
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -i "s|^LQSD_OPTS=.*|LQSD_OPTS=\"--listen 127.0.0.1:$PORT --durability fsync\"|" /etc/lqs/lqsd.env
echo '{"queues": [{"name": "from-init", "attributes": {"VisibilityTimeout": 45}}]}' \
  > /etc/lqs/queues.json
/usr/bin/python3 "$HERE/run_unit.py" /lib/systemd/system/lqsd.service > "$WORK/lqsd.log" 2>&1 &
LQSD_PID=$!
for _ in $(seq 100); do
  grep -q "lqsd listening on" "$WORK/lqsd.log" && break
  kill -0 "$LQSD_PID" 2>/dev/null || { cat "$WORK/lqsd.log"; fail "lqsd exited"; }
  sleep 0.1
done
grep -q "lqsd listening on http://127.0.0.1:$PORT" "$WORK/lqsd.log" \
  || { cat "$WORK/lqsd.log"; fail "lqsd did not listen on $PORT"; }
# run_unit.py execs setpriv, which execs lqsd: the same process.
[ "$(ps -o user=,comm= -p "$LQSD_PID" | tr -s ' ')" = "lqs lqsd" ] || fail "lqsd does not run as lqs"
export AWS_ACCESS_KEY_ID=pkgtest AWS_SECRET_ACCESS_KEY=pkgtest AWS_DEFAULT_REGION=us-east-1
export AWS_PAGER="" AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
aws() { "$AWS" --endpoint-url "http://127.0.0.1:$PORT" --output json "$@"; }
aws sqs list-queues | grep -q from-init || fail "the init file's queue is missing"
URL=$(aws sqs create-queue --queue-name pkg-test --query QueueUrl --output text)
aws sqs send-message --queue-url "$URL" --message-body "installed by dpkg" > /dev/null
BODY=$(aws sqs receive-message --queue-url "$URL" --wait-time-seconds 1 \
         --query 'Messages[0].Body' --output text)
[ "$BODY" = "installed by dpkg" ] || fail "received '$BODY'"
[ -n "$(find /var/lib/lqs -name CURRENT -user lqs)" ] || fail "no database owned by lqs"
kill -TERM "$LQSD_PID"
wait "$LQSD_PID" || fail "lqsd did not exit 0 on SIGTERM"
LQSD_PID=

# ---- Remove, then purge -----------------------------------------------------------
dpkg -r lqs > /dev/null
[ ! -e /usr/bin/lqsd ] && [ ! -e /usr/lib/python3/dist-packages/lqs ] \
  || fail "dpkg -r left the binaries"
[ -d /var/lib/lqs ] && [ -f /etc/lqs/lqsd.env ] || fail "dpkg -r removed data or configuration"
dpkg --purge lqs > /dev/null
INSTALLED=
[ ! -e /var/lib/lqs ] && [ ! -e /etc/lqs ] || fail "purge left /var/lib/lqs or /etc/lqs"
while read -r f; do
  if [ -f "$f" ] || [ -L "$f" ]; then fail "$f is left after purge"; fi
done < "$WORK/contents"
echo "deb_test: ok"
