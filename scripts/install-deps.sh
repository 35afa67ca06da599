#!/usr/bin/env bash
# Installs everything lqs needs from Debian 12's packages (run as root, or
# with sudo available). Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  librocksdb-dev libflatbuffers-dev flatbuffers-compiler libabsl-dev
  libssl-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libsqlite3-dev
  libcli11-dev libboost-dev libjemalloc-dev
  python3-dev pybind11-dev python3-pytest python3-boto3 python3-setuptools
  awscli
  clang libclang-rt-14-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "dependencies: ok"
