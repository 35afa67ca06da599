#!/usr/bin/env bash
# Configures and builds lqs into ./build (Release: -O3, no debug info), with
# the default options. Extra arguments, and the words of LQS_CMAKE_ARGS
# (CI: -DLQS_WERROR=ON, see .ci/run), go to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
read -r -a extra <<<"${LQS_CMAKE_ARGS:-}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
