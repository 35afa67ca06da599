#!/usr/bin/env bash
# Checks the commit-message habit of CONTRIBUTING.md: a subject of at most 72
# characters, then a blank line and a body that says why.
#
# It checks the commits made since this script was added (older history
# predates the rule), or the commits in RANGE when one is given:
#   bash scripts/check-commit-subjects.sh [RANGE]
# In a shallow clone without that history it checks HEAD alone.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -gt 0 ]]; then
  range=("$1")
else
  added=$(git log --format=%H --diff-filter=A -n1 -- scripts/check-commit-subjects.sh || true)
  if [[ -n $added ]] && git rev-parse -q --verify "$added^" >/dev/null; then
    range=("$added^..HEAD")
  else
    range=(--max-count=1 HEAD)
  fi
fi
status=0
while read -r sha; do
  subject=$(git log -n1 --format=%s "$sha")
  body=$(git log -n1 --format=%b "$sha")
  if ((${#subject} > 72)); then
    echo "commit ${sha:0:10}: subject is ${#subject} characters (at most 72): $subject"
    status=1
  fi
  if [[ -z ${body//[[:space:]]/} ]]; then
    echo "commit ${sha:0:10}: no body saying why: $subject"
    status=1
  fi
done < <(git rev-list --no-merges "${range[@]}")
if ((status == 0)); then
  echo "commit messages: ok ($(git rev-list --no-merges --count "${range[@]}") checked)"
fi
exit "$status"
