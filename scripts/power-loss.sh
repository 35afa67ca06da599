#!/usr/bin/env bash
# Simulated power loss: runs lqs_power_loss (tests/power_loss.cc), which
# kills a workload at random points, cuts the power under it (unsynced
# bytes and directory entries are dropped) and checks the recovered
# database. docs/reliability.md describes the model and the long run.
#
#   scripts/power-loss.sh [--rounds N] [--durability fsync|process] [--seed S]
#                         [--expect-loss] [--dir DIR] [--child PATH]
#
# The last line is "N power cuts, M acknowledged sends, K lost". Exit 0 when
# K is 0 (or K > 0 with --expect-loss) and every check held.
# LQS_BUILD_DIR names the build tree (default: ./build, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${LQS_BUILD_DIR:-build}
if [ ! -x "$BUILD_DIR/lqs_power_loss" ]; then
  BUILD_DIR="$BUILD_DIR" bash scripts/build.sh >/dev/null
fi
exec "$BUILD_DIR/lqs_power_loss" "$@"
