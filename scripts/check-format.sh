#!/usr/bin/env bash
# scripts/check-format.sh — checks that every C and C++ source of the
# repository is formatted as .clang-format says.
#
#   scripts/check-format.sh          # lists the files clang-format would change; exit 1 if any
#   scripts/check-format.sh --fix    # rewrites those files in place (clang-format -i)
#
# The files: those git tracks plus new ones it does not ignore (so build*/,
# node_modules/ and the generated flatbuffers headers, which live in build
# trees, are never looked at), ending in .c, .cc, .cpp, .h or .hpp. A CI
# clone has no new files, so there it is exactly the tracked ones.
# clang-format's output differs between major versions: CI uses Debian 12's
# clang-format 14, and so does this script when it is installed.
#
# Environment: CLANG_FORMAT (default clang-format-14, else clang-format),
# JOBS (default: the number of CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."

FIX=0
case ${1:-} in
  "") ;;
  --fix) FIX=1 ;;
  *) echo "usage: $0 [--fix]" >&2; exit 2 ;;
esac
JOBS=${JOBS:-$(nproc)}
if [[ -z ${CLANG_FORMAT:-} ]]; then
  for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null; then CLANG_FORMAT=$c; break; fi
  done
fi
if [[ -z ${CLANG_FORMAT:-} ]]; then
  echo "check-format: needs clang-format (Debian: clang-format)" >&2
  exit 2
fi
version=$("$CLANG_FORMAT" --version)
if [[ $version != *" 14."* ]]; then
  echo "check-format: note: CI formats with clang-format 14; this is: $version" >&2
fi

t0=$SECONDS
mapfile -d '' files < <(git ls-files -z --cached --others --exclude-standard -- \
  '*.c' '*.cc' '*.cpp' '*.h' '*.hpp')
# A file git still tracks but that is deleted in the work tree is not checked.
existing=()
for f in "${files[@]}"; do [[ -f $f ]] && existing+=("$f"); done
if [[ ${#existing[@]} -eq 0 ]]; then
  echo "check-format: no sources found" >&2
  exit 2
fi

if [[ $FIX == 1 ]]; then
  printf '%s\0' "${existing[@]}" | xargs -0 -n 16 -P "$JOBS" "$CLANG_FORMAT" -i
  echo "check-format: formatted ${#existing[@]} files in $((SECONDS - t0)) s"
  exit 0
fi

# --dry-run --Werror prints "<file>:<line>:<col>: error: code should be
# clang-formatted" for every place it would change; list each file once.
out=$(printf '%s\0' "${existing[@]}" |
  xargs -0 -n 16 -P "$JOBS" "$CLANG_FORMAT" --dry-run --Werror 2>&1 || true)
bad=$(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$out" |
  sort -u)
other=$(grep -E '^(error|.*: error:)' <<<"$out" | grep -v 'code should be clang-formatted' || true)
if [[ -n $other ]]; then
  echo "$other" >&2
  echo "check-format: clang-format failed" >&2
  exit 2
fi
if [[ -n $bad ]]; then
  echo "$bad"
  echo "check-format: $(wc -l <<<"$bad") of ${#existing[@]} files need clang-format" \
       "(scripts/check-format.sh --fix, or clang-format -i <file>) [$((SECONDS - t0)) s]"
  exit 1
fi
echo "check-format: ${#existing[@]} files formatted as .clang-format says [$((SECONDS - t0)) s]"
