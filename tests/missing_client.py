"""What a test does when a real client it drives is missing (boto3 or a current botocore,
aws-cli, node and npm, a built lqsd).

Locally it is skipped, and says why. Under CI (the environment variable CI=true, which
.ci/run runs with; .ci/run and scripts/install-deps.sh install every such client) a
missing client is a broken install step, so the test fails instead of passing as
skipped. tests/missing_client.sh is the shell scripts' twin.

Tests import it after putting tests/ on sys.path:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""

import importlib
import os
import sys

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for the tests run as scripts

_CI_NOTE = "CI=true: CI installs every client the tests drive, so a missing one fails the run"


def in_ci():
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def script_exit(reason):
    """For a test run as a script: prints the outcome and returns its exit code (77:
    skipped; 1 under CI)."""
    if in_ci():
        print("FAIL: %s (%s)" % (reason, _CI_NOTE), flush=True)
        return 1
    print("SKIP: %s" % reason, flush=True)
    return SKIPPED


def pytest_module(reason):
    """For a pytest module, at import time: skips the whole module (under CI: fails its
    collection, which fails the run)."""
    import pytest
    if in_ci():
        pytest.fail("%s (%s)" % (reason, _CI_NOTE), pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def pytest_require(module_name):
    """pytest.importorskip, under CI a failure: returns the module."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        pytest_module("%s is not installed for %s" % (module_name, sys.executable))
