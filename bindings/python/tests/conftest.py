"""Fixtures: a database with a ManualClock (no background thread) and a client."""

import pytest

import lqs


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
