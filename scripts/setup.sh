#!/usr/bin/env bash
# The README's first command: install the dependencies, build everything, and
# run the demo (send, receive, delete, a redelivery after a lease expires, a
# dead-letter move) on a temporary database.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
echo
./build/lqs_demo
