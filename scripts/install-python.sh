#!/usr/bin/env bash
# Installs the `lqs` Python package for Debian's /usr/bin/python3, without PyPI:
# installs the Debian packages, builds the extension with CMake into ./build, then
# installs it with pip (--no-build-isolation --no-deps: nothing is downloaded).
#   bash scripts/install-python.sh          # system-wide (root or sudo)
#   PIP_ARGS=--user bash scripts/install-python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPython3_EXECUTABLE=/usr/bin/python3 -DLQS_BUILD_PYTHON=ON >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target lqs_python
SUDO=""
if [ "$(id -u)" != 0 ] && [[ " ${PIP_ARGS:-} " != *" --user "* ]]; then SUDO="sudo"; fi
$SUDO env LQS_BUILD_DIR="$PWD/$BUILD_DIR" /usr/bin/python3 -m pip install \
  --no-build-isolation --no-deps --no-index --break-system-packages ${PIP_ARGS:-} \
  ./bindings/python
rm -rf bindings/python/build bindings/python/lqs.egg-info  # setuptools leftovers
cd /tmp && /usr/bin/python3 -c 'import lqs; print("lqs", lqs.__version__, "installed:", lqs.__file__)'
