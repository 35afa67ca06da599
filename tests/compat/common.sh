# tests/compat/common.sh — shell functions the suites' run.sh scripts share.
# Source it; it sets nothing else.

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
