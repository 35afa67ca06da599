#!/usr/bin/env bash
# The README's second command: build and run the whole test suite, under the
# default options and under the small-device profile.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 300
# The same suite once more with every database on the small-device profile
# (tests/test_profile.h; about three minutes).
LQS_TEST_PROFILE=small ctest --output-on-failure -j"$(nproc)" --timeout 300
