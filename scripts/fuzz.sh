#!/usr/bin/env bash
# scripts/fuzz.sh — builds the libFuzzer targets (clang, ASan+UBSan) and runs
# each for a bounded time from its seed corpus.
#
#   scripts/fuzz.sh                 # every fuzzer, 30 s each
#   scripts/fuzz.sh 300             # 5 minutes each (the long mode)
#   scripts/fuzz.sh 60 engine keys  # chosen fuzzers
#
# The seed corpus fuzz/corpus/<name>/ is read, never written: new inputs go
# to build-fuzz/corpus/<name>/ (kept between runs, so coverage accumulates
# locally). A crash, leak, sanitizer report or failed property leaves
# build-fuzz/artifacts/<name>/crash-* and makes the script exit 1; to keep
# it as a regression input replayed by ctest, copy it into fuzz/corpus/<name>/.
#
# Environment: BUILD_DIR (default build-fuzz), JOBS (build parallelism,
# default 2), FUZZ_JOBS (fuzzers run at a time, default one per core: each
# fuzzer gets its SECS on a core of its own), CC/CXX (default
# clang/clang++; needs libclang-rt-dev), LQS_CMAKE_ARGS (more configure
# arguments, split at spaces; CI: -DLQS_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."

SECS=${1:-${LQS_FUZZ_SECONDS:-30}}
shift || true
BUILD_DIR=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-2}
export CC=${CC:-clang} CXX=${CXX:-clang++}

t0=$SECONDS
read -r -a extra <<<"${LQS_CMAKE_ARGS:-}"
# A unity build, as sanitize.sh's ASan build: most of this script's time is
# compiling.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DLQS_BUILD_FUZZ=ON -DLQS_SANITIZE=address,undefined -DLQS_FUZZ_CHECK_ALIGNMENT=ON \
  -DLQS_BUILD_TESTS=OFF \
  -DLQS_BUILD_BENCH=OFF -DLQS_BUILD_EXAMPLES=OFF -DLQS_BUILD_PYTHON=OFF "${extra[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"$JOBS" --target lqs_fuzzers
echo "fuzz: build took $((SECONDS - t0)) s"

if [[ $# -gt 0 ]]; then
  FUZZERS=("$@")
else
  FUZZERS=()
  for f in fuzz/corpus/*/; do
    n=$(basename "$f")
    [[ -x $BUILD_DIR/fuzz/fuzz_$n ]] && FUZZERS+=("$n")
  done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp}
# One fuzzer's run; its exit status goes to logs/<name>.status for the
# report below.
fuzz_one() {
  local n=$1 work=$BUILD_DIR/corpus/$1 art=$BUILD_DIR/artifacts/$1
  local log=$BUILD_DIR/logs/$1.log status=0
  mkdir -p "$work" "$art"
  "$BUILD_DIR/fuzz/fuzz_$n" "$work" "fuzz/corpus/$n" -max_total_time="$SECS" \
    -max_len=4096 -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$art/" >"$log" 2>&1 || status=$?
  echo "$status" >"$BUILD_DIR/logs/$n.status"
}

# FUZZ_JOBS fuzzers at a time (default: one per core), each single-threaded.
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}
mkdir -p "$BUILD_DIR/logs"
running=0
for n in "${FUZZERS[@]}"; do
  rm -f "$BUILD_DIR/logs/$n.status"
  fuzz_one "$n" &
  running=$((running + 1))
  if ((running >= FUZZ_JOBS)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

failed=()
printf '%-18s %8s %12s %8s %6s  %s\n' fuzzer seconds executions exec/s cov result
for n in "${FUZZERS[@]}"; do
  log=$BUILD_DIR/logs/$n.log
  status=$(cat "$BUILD_DIR/logs/$n.status" 2>/dev/null || echo missing)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  if [[ $status == 0 ]]; then
    result=ok
  else
    result="FAILED (exit $status, see $log)"
    failed+=("$n")
  fi
  printf '%-18s %8s %12s %8s %6s  %s\n' "$n" "$SECS" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result"
done
echo "fuzz: total $((SECONDS - t0)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
  for n in "${failed[@]}"; do
    echo "---- $n: tail of $BUILD_DIR/logs/$n.log"
    tail -n 60 "$BUILD_DIR/logs/$n.log"
    ls "$BUILD_DIR/artifacts/$n/"
  done
  echo "fuzz: FAILED: ${failed[*]} (copy the crash-* inputs into fuzz/corpus/<name>/ once fixed)"
  exit 1
fi
