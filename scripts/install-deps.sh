#!/usr/bin/env bash
# Installs everything lqs needs from Debian 12's packages (run as root, or
# with sudo available). Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  librocksdb-dev libflatbuffers-dev flatbuffers-compiler libabsl-dev
  libssl-dev nlohmann-json3-dev libsimdjson-dev
  libgtest-dev libgmock-dev libbenchmark-dev libsqlite3-dev
  libcli11-dev libboost-dev libjemalloc-dev
  python3-dev pybind11-dev python3-pytest python3-boto3 python3-setuptools
  awscli nginx openssl
  chromium chromium-driver python3-selenium
  clang libclang-rt-14-dev clang-format clang-tidy
)
# The clients lqsd's tests drive (under CI a missing one fails the run,
# tests/missing_client.py): aws-cli and Debian's boto3 above, nginx and
# openssl (tests/bridge/tls_front.py: HTTPS in front of an lqsd); Chromium,
# chromedriver and Selenium (tests/server/test_console_browser.py: the web
# console in a headless browser); Node.js and npm
# for tests/server/node, from Debian unless a node is installed already (a
# NodeSource node brings its own npm, which Debian's npm would conflict with).
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  PACKAGES+=(nodejs npm)
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The first python3 on PATH, when it is not Debian's (pyenv here), runs lqsd's
# boto3 scenario with the JSON protocol (server/CMakeLists.txt) and needs a
# boto3 of its own: CI installs it with that interpreter's pip; elsewhere the
# tests that need it skip, and this says so.
path_python=$(command -v python3 || true)
if [ -n "$path_python" ]; then
  path_exe=$("$path_python" -c 'import sys; print(sys.executable)')
  if [ "$(readlink -f "$path_exe")" != "$(readlink -f /usr/bin/python3)" ] \
     && ! "$path_python" -c 'import boto3' 2> /dev/null; then
    if [ "${CI:-}" = true ]; then
      echo "installing boto3 for $path_exe"
      "$path_python" -m pip install --quiet boto3
    else
      echo "note: $path_exe has no boto3: lqsd_boto3_json will be skipped" \
           "($path_python -m pip install boto3)"
    fi
  fi
fi
echo "dependencies: ok"
