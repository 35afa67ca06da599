"""Waiting for something another thread does, for the Python tests (under pytest and as
plain scripts alike)."""

import time

TIMEOUT = 20.0  # real seconds a thread may take to get somewhere (never reached)


def eventually(predicate, what="condition", timeout=TIMEOUT):
    """Returns once predicate() is true; AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)
