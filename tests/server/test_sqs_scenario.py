"""pytest wrapper of sqs_scenario.py: one lqsd for the module, one test per step,
in the scenario's order. Run with /usr/bin/python3 (boto3 1.26: query protocol).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sqs_scenario  # noqa: E402
from lqsd_harness import Lqsd, missing_client  # noqa: E402

if sqs_scenario.boto3 is None:
    missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)


@pytest.fixture(scope="module")
def ctx():
    server = Lqsd()
    try:
        yield sqs_scenario.Ctx(server.url)
    finally:
        assert server.stop() == 0, "lqsd did not shut down cleanly"


@pytest.mark.parametrize("step", sqs_scenario.STEPS, ids=[s.__name__ for s in sqs_scenario.STEPS])
def test_step(ctx, step):
    step(ctx)
