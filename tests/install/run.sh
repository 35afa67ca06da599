#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, builds consumers with
# find_package(lqs) against it (quickstart.cc on lqs::lqs; bridge_consumer.cc
# on lqs::lqs_bridge; bridge_consumer.c on lqs::lqs_c and on the shared
# lqs::lqs_c_shared), runs them, and imports the installed Python module.
set -euo pipefail
BUILD_DIR=$1
SRC_DIR=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cmake --install "$BUILD_DIR" --prefix "$WORK/prefix" >/dev/null
cmake -S "$SRC_DIR" -B "$WORK/build" -G Ninja -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
cmake --build "$WORK/build" >/dev/null
rm -rf /tmp/lqs-quickstart
"$WORK/build/consumer"
rm -rf /tmp/lqs-quickstart
"$WORK/build/bridge_consumer_cc" "$WORK/bridge-db-cc"
"$WORK/build/bridge_consumer" "$WORK/bridge-db"
# The shared C library, resolved from the prefix (the consumer's build RPATH).
"$WORK/build/bridge_consumer_shared" "$WORK/bridge-db-shared"
# (Through a file: `ldd | grep -q` under pipefail fails whenever grep exits on
# its match before ldd has written its last line, and ldd dies of SIGPIPE.)
ldd "$WORK/build/bridge_consumer_shared" >"$WORK/ldd.txt"
grep -q "$WORK/prefix/.*liblqs_c\.so\.0" "$WORK/ldd.txt"
# The Python module, installed for python3 under the prefix.
(cd "$WORK" && PYTHONPATH="$WORK/prefix/lib/python3/dist-packages" /usr/bin/python3 -c \
  'import lqs, sys; assert lqs.__file__.startswith(sys.argv[1]), lqs.__file__' "$WORK/prefix")
echo "install test: find_package(lqs) consumers built and ran"
