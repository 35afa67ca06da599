"""lqs.Bridge: a database's queue bridged to an lqs.Server's queue over real HTTP.

The library's own tests (tests/bridge/bridge_test.cc) cover the failure
handling; these check the Python surface: forward and pull, stats, errors.
"""

import logging

import pytest

import lqs

KEY = dict(access_key_id="AKIDPYBRIDGE", secret_access_key="secret", region="us-east-1")


def visible(queue):
    return int(queue.attributes["ApproximateNumberOfMessages"])


@pytest.fixture
def remote():
    with lqs.Server() as server:
        yield server


def test_forward_once_then_pull_back(tmp_path, remote):
    inbox = remote.broker.create_queue("inbox")
    with lqs.open(str(tmp_path / "local")) as local:
        out = local.create_queue("outbox")
        for i in range(25):
            out.send("m%d" % i, message_attributes={"n": i})
        url = remote.url + "/123456789012/inbox"
        with lqs.Bridge(local, "outbox", url, once=True, **KEY) as bridge:
            bridge.wait()
            stats = bridge.stats()
        assert stats["transferred"] == 25
        assert stats["direction"] == "forward"
        assert stats["online"] is True
        assert stats["failures"] == {}
        assert visible(out) == 0
        assert visible(inbox) == 25

        back = local.create_queue("back")
        bridge = lqs.Bridge(local, "back", url, direction="pull", once=True,
                            wait_time_seconds=0, **KEY)
        bridge.wait()
        assert bridge.stats()["transferred"] == 25
        bridge.stop()
        assert visible(inbox) == 0
        got = back.receive(max_number_of_messages=10)
        assert got and all(m.message_attributes["n"].value == m.body[1:] for m in got)


def drain_to_nowhere(tmp_path, **options):
    """A once-bridge of one message to a remote nobody listens on: it gives up after one
    attempt (raising from wait()) and the message stays local."""
    with lqs.open(str(tmp_path / "local")) as local:
        local.create_queue("outbox").send("kept")
        bridge = lqs.Bridge(local, "outbox", "http://127.0.0.1:9/123456789012/q", once=True,
                            once_attempts=1, request_timeout_seconds=2, lease_seconds=4,
                            **options, **KEY)
        with pytest.raises(lqs.StorageIOError, match="could not be reached"):
            bridge.wait()
        assert visible(local.get_queue("outbox")) == 1


def test_once_raises_when_the_remote_is_unreachable(tmp_path):
    lines = []
    drain_to_nowhere(tmp_path, log=lines.append)
    assert any(line.startswith("forward outbox -> ") and ": offline (" in line
               for line in lines), lines


def test_log_lines_go_to_the_lqs_bridge_logger_by_default(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="lqs.bridge")
    drain_to_nowhere(tmp_path)
    offline = [r for r in caplog.records if r.name == "lqs.bridge" and "offline" in r.message]
    assert offline and all(r.levelno == logging.WARNING for r in offline), caplog.records


def test_a_failing_log_callable_loses_its_line_only(tmp_path):
    def broken(line):
        raise RuntimeError("no log today")

    drain_to_nowhere(tmp_path, log=broken)
    with pytest.raises(TypeError, match="log"):
        lqs.Bridge(None, "outbox", "http://127.0.0.1:9/1/q", log="stderr")


def test_bad_options_name_the_problem(tmp_path):
    with lqs.open(str(tmp_path / "local")) as local:
        local.create_queue("std")
        with pytest.raises(lqs.QueueDoesNotExist):
            lqs.Bridge(local, "missing", "http://127.0.0.1:9/1/q", **KEY)
        with pytest.raises(lqs.InvalidParameterValue, match="FIFO"):
            lqs.Bridge(local, "std", "http://127.0.0.1:9/1/q.fifo", **KEY)
        with pytest.raises(lqs.InvalidParameterValue, match="QueueUrl"):
            lqs.Bridge(local, "std", "ftp://example.com/q", **KEY)
        with pytest.raises(ValueError):
            lqs.Bridge(local, "std", "http://127.0.0.1:9/1/q", direction="sideways", **KEY)
