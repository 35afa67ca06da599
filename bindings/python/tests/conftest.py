"""Fixtures: a database with a ManualClock (no background thread) and a client."""

import functools
import os

import pytest

import lqs

# LQS_TEST_PROFILE=small opens every test database (lqs.open, lqs.client) with
# profile="small" unless the test names a profile.
if os.environ.get("LQS_TEST_PROFILE"):
    def _open_with_test_profile(path, _open=lqs.open, **options):
        options.setdefault("profile", os.environ["LQS_TEST_PROFILE"])
        return _open(path, **options)
    lqs.open = functools.wraps(lqs.open)(_open_with_test_profile)


@pytest.fixture
def clock():
    return lqs.ManualClock()


@pytest.fixture
def db(tmp_path, clock):
    database = lqs.open(str(tmp_path / "db"), clock=clock, background_maintenance=False)
    yield database
    database.close()


@pytest.fixture
def sqs(clock):
    client = lqs.client(clock=clock, background_maintenance=False)
    yield client
    client.close()
