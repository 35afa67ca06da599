# tests/compat/common.sh — shell functions the suites' run.sh scripts share.
# Source it; it sets REPO (this lqs checkout) and nothing else.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# need_source WHAT DIR: exits with a usage error unless DIR, a checkout or a
# git dir of WHAT, exists. The suites are not in this repository: each run
# names where its copy is.
need_source() {
  if [ -z "$2" ] || [ ! -e "$2" ]; then
    echo "$(basename "$0"): name $1 (a checkout or a git dir of it); see README.md" >&2
    exit 2
  fi
}

# compat_setup PREFIX: the settings the pytest suites share, from the
# environment: PYTHON (default python3), LQSD (default REPO/build/server/lqsd)
# and WORK (default a new /tmp/PREFIX.*; made, and printed).
compat_setup() {
  PYTHON=${PYTHON:-python3}
  LQSD=${LQSD:-$REPO/build/server/lqsd}
  WORK=${WORK:-$(mktemp -d "/tmp/$1.XXXXXX")}
  mkdir -p "$WORK"
  echo "work dir: $WORK"
}

# source_arg WHAT ARGS...: prints the first of ARGS, which names a checkout
# or a git dir of WHAT (the caller shifts it off); exits with a usage error
# when there is none.
source_arg() {
  local what=$1
  shift
  if [ $# -eq 0 ] || [ "${1#-}" != "$1" ]; then
    need_source "$what" ""
  fi
  need_source "$what" "$1"
  printf '%s' "$1"
}

# extract SRC DEST PATHS...: copies PATHS of SRC, a checkout or a (bare) git
# dir (its HEAD), into DEST.
extract() {
  local src=$1 dest=$2
  shift 2
  mkdir -p "$dest"
  if [ -d "$src/.git" ] || [ ! -e "$src/HEAD" ]; then
    (cd "$src" && tar -cf - "$@") | tar -xf - -C "$dest"
  else
    git --git-dir="$src" archive HEAD "$@" | tar -xf - -C "$dest"
  fi
}

# link_debian_packages PYTHON LIB MODULE=NAMES...: for each MODULE that
# PYTHON cannot import, links Debian's pure-Python packages NAMES (a
# comma-separated list, from /usr/lib/python3/dist-packages) into LIB, a
# directory for PYTHONPATH. Only the named packages: all of dist-packages
# would also bring Debian's older botocore.
link_debian_packages() {
  local python=$1 lib=$2 spec mod n
  shift 2
  mkdir -p "$lib"
  for spec in "$@"; do
    mod=${spec%%=*}
    "$python" -c "import $mod" 2>/dev/null && continue
    for n in $(tr ',' ' ' <<<"${spec#*=}"); do
      if [ -e "/usr/lib/python3/dist-packages/$n" ] && [ ! -e "$lib/$n" ]; then
        ln -s "/usr/lib/python3/dist-packages/$n" "$lib/$n"
      fi
    done
  done
}
