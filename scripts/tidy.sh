#!/usr/bin/env bash
# scripts/tidy.sh — clang-tidy over lqs's own sources, with the checks of the
# repository's .clang-tidy, every finding an error.
#
#   scripts/tidy.sh                  # lib/, server/, tools/ and wire/
#   scripts/tidy.sh lib/worker/ server/router.cc   # chosen files or directories
#
# Configures build-tidy with the `tidy` preset (CMakePresets.json: clang, a
# compile_commands.json, -Wthread-safety so that clang's thread-safety
# analysis of the Abseil lock annotations runs too, reported as
# clang-diagnostic-thread-safety-*), generates the flatbuffers header the
# sources include, then runs run-clang-tidy on JOBS files at a time. Test
# sources (*_test.cc) are not in that build's compile database. The full log
# is build-tidy/tidy.log; the findings, and their count per check, are
# printed. Exits non-zero on any finding or compiler error.
#
# Environment: JOBS (default: the number of CPUs), RUN_CLANG_TIDY (default
# run-clang-tidy-14, else run-clang-tidy), CLANG_TIDY (default clang-tidy-14,
# else clang-tidy).
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS=${JOBS:-$(nproc)}
pick() { for c in "$@"; do command -v "$c" >/dev/null && { echo "$c"; return; }; done; }
RUN_CLANG_TIDY=${RUN_CLANG_TIDY:-$(pick run-clang-tidy-14 run-clang-tidy)}
CLANG_TIDY=${CLANG_TIDY:-$(pick clang-tidy-14 clang-tidy)}
if [[ -z $RUN_CLANG_TIDY || -z $CLANG_TIDY ]]; then
  echo "tidy: needs clang-tidy and run-clang-tidy (Debian: clang-tidy)" >&2
  exit 2
fi
B=build-tidy
LOG=$B/tidy.log

t0=$SECONDS
cmake --preset tidy >/dev/null
cmake --build $B --target lqs_generated >/dev/null

# run-clang-tidy takes regular expressions matched against the absolute file
# names of the compile database.
if [[ $# -gt 0 ]]; then
  FILTERS=()
  for a in "$@"; do FILTERS+=("^$PWD/${a%/}(/|\$)"); done
else
  FILTERS=("^$PWD/(lib|server|tools|wire)/")
fi

status=0
"$RUN_CLANG_TIDY" -quiet -j "$JOBS" -p $B -clang-tidy-binary "$(command -v "$CLANG_TIDY")" \
  "${FILTERS[@]}" >"$LOG.raw" 2>&1 || status=$?
# run-clang-tidy asks clang-tidy for colours; the log is plain text.
sed 's/\x1b\[[0-9;]*m//g' "$LOG.raw" >"$LOG" && rm -f "$LOG.raw"
files=$(grep -c "^$(command -v "$CLANG_TIDY") " "$LOG" || true)

# A header's finding is reported once per file that includes it: print each once.
findings=$(grep -E '^/.*:[0-9]+:[0-9]+: (warning|error):' "$LOG" | sort -u || true)
if [[ -n $findings ]]; then
  echo "$findings"
  echo "tidy: findings per check:"
  echo "$findings" | sed -n 's/.*\[\([^],]*\).*\]$/\1/p' | sort | uniq -c | sort -rn
fi
echo "tidy: $files files in $((SECONDS - t0)) s (log: $LOG)"
if [[ $status -ne 0 ]]; then
  if [[ -z $findings ]]; then tail -n 40 "$LOG"; fi
  echo "tidy: FAILED"
  exit 1
fi
echo "tidy: clean"
