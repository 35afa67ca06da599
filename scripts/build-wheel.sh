#!/usr/bin/env bash
# Builds a wheel of the `lqs` Python package, offline (no PyPI, no build
# isolation): the extension comes from the CMake build, setup.py packages it.
#   bash scripts/build-wheel.sh [OUT_DIR]       (default: dist)
# BUILD_DIR (default: build) is reused when it is configured already;
# otherwise it is configured as a Release build for Debian's python3. The
# wheel is for this platform's python3 minor version and links the system's
# RocksDB, OpenSSL and Abseil (docs/packages.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
mkdir -p "$BUILD_DIR" && BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
OUT_DIR=$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DPython3_EXECUTABLE=/usr/bin/python3 ${LQS_CMAKE_ARGS:-} > /dev/null
fi
cmake --build "$BUILD_DIR" --target lqs_python
LQS_BUILD_DIR="$BUILD_DIR" /usr/bin/python3 -m pip wheel --quiet --no-build-isolation \
  --no-deps --no-index -w "$OUT_DIR" ./bindings/python
rm -rf bindings/python/build bindings/python/lqs.egg-info  # setuptools leftovers
ls "$OUT_DIR"/lqs-*.whl
