#!/usr/bin/env bash
# Configures and builds lqs into ./build (Release: -O3, no debug info), with
# the default options, as a unity build: each target's sources are compiled
# in batches (CMAKE_UNITY_BUILD), which parses the shared headers once per
# batch (0.66 of the time of a file-by-file build on 2 cores). The `dev`
# preset compiles every file on its own, and in CI clang-tidy does for
# lib/, server/, tools/ and wire/ (CONTRIBUTING.md, "Unity builds"). Extra
# arguments, and the words of LQS_CMAKE_ARGS (CI: -DLQS_WERROR=ON, see
# .ci/run), go to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
read -r -a extra <<<"${LQS_CMAKE_ARGS:-}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON "${extra[@]}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
