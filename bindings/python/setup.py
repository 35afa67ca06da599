"""Installs the `lqs` package from a CMake build (no PyPI, no build isolation).

The extension is built by the top-level CMake (pybind11 from Debian's
pybind11-dev); this script only packages what the build assembled in
<build>/bindings/python/lqs. Use scripts/install-python.sh, which builds and then
runs:  LQS_BUILD_DIR=<build> /usr/bin/python3 -m pip install --no-build-isolation \
           --no-deps bindings/python
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
BUILT = os.path.join(os.path.abspath(os.environ.get(
    "LQS_BUILD_DIR", os.path.join(HERE, "..", "..", "build"))), "bindings", "python", "lqs")


class BuildFromCMake(build_py):
    """Copies the CMake-built package (extension + .py + .pyi + py.typed)."""

    def run(self):
        if not any(f.startswith("_lqs.") and f.endswith(".so") for f in os.listdir(BUILT)):
            raise SystemExit(f"no built extension in {BUILT}; run scripts/install-python.sh")
        target = os.path.join(self.build_lib, "lqs")
        os.makedirs(target, exist_ok=True)
        for name in os.listdir(BUILT):
            if name == "__pycache__":
                continue
            shutil.copy2(os.path.join(BUILT, name), os.path.join(target, name))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    name="lqs",
    version="0.1.0",
    description="Embedded persistent message queue with Amazon SQS semantics (RocksDB)",
    packages=["lqs"],
    package_data={"lqs": ["*.so", "*.pyi", "py.typed"]},
    python_requires=">=3.9",
    cmdclass={"build_py": BuildFromCMake},
    # The pytest plugin (lqs/pytest.py): its fixtures in every pytest run. Named as
    # its module, so that `pytest -p lqs.pytest` (the way without installing) still
    # works once installed: pytest skips an entry point whose name is registered,
    # and would refuse the module registered a second time under another name.
    entry_points={"pytest11": ["lqs.pytest = lqs.pytest"]},
    distclass=BinaryDistribution,
    zip_safe=False,
)
