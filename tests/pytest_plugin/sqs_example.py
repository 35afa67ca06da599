"""An application's test module using lqs's pytest plugin (lqs/pytest.py), as a user
would write it: no conftest.py, the fixtures come from `pytest -p lqs.pytest`.

test_pytest_plugin.py copies it into a temporary directory as test_sqs_example.py and
runs it with Debian's pytest (botocore 1.29, the query protocol) and from a virtual
environment of the python3 on PATH (botocore >= 1.31, the JSON protocol), in process
and with --sqs-endpoint against a separately started lqsd. The driver tells it what to
expect through LQS_EXPECT_PROTOCOL ("query" or "json") and LQS_EXPECT_ENDPOINT (the
--sqs-endpoint URL, or "in-process").
"""

import os
import threading

import boto3
import botocore
import pytest
from botocore.exceptions import ClientError

import lqs

SEEN = {}  # what one test leaves for a later one (pytest runs a module in order)


def botocore_version():
    return tuple(int(p) for p in botocore.__version__.split(".")[:2])


def test_the_expected_protocol_and_endpoint(sqs_client, sqs_endpoint_url):
    protocol = os.environ["LQS_EXPECT_PROTOCOL"]
    assert sqs_client.meta.service_model.protocol == protocol
    if protocol == "json":
        assert botocore_version() >= (1, 31), botocore.__version__
    else:
        assert botocore_version() < (1, 31), botocore.__version__
    expected = os.environ["LQS_EXPECT_ENDPOINT"]
    if expected != "in-process":
        assert sqs_endpoint_url == expected
    assert sqs_client.meta.endpoint_url == sqs_endpoint_url


def test_lqs_server_is_in_process_with_a_manual_clock(lqs_server, sqs_endpoint_url):
    assert lqs_server.url == sqs_endpoint_url
    assert lqs_server.clock is not None


def test_send_and_receive(sqs_client, sqs_queue):
    sqs_client.send_message(QueueUrl=sqs_queue, MessageBody="hello",
                            MessageAttributes={"kind": {"DataType": "String",
                                                        "StringValue": "greeting"}})
    got = sqs_client.receive_message(QueueUrl=sqs_queue, MessageAttributeNames=["All"])
    [message] = got["Messages"]
    assert message["Body"] == "hello"
    assert message["MessageAttributes"]["kind"]["StringValue"] == "greeting"
    sqs_client.delete_message(QueueUrl=sqs_queue, ReceiptHandle=message["ReceiptHandle"])
    assert "Messages" not in sqs_client.receive_message(QueueUrl=sqs_queue)


def test_visibility_timeout_expires_when_the_clock_moves(sqs_client, sqs_queue, lqs_clock):
    sqs_client.send_message(QueueUrl=sqs_queue, MessageBody="job")
    first = sqs_client.receive_message(QueueUrl=sqs_queue, VisibilityTimeout=300)["Messages"]
    assert [m["Body"] for m in first] == ["job"]
    # lqs_server's clock also runs in real time: a step short of the timeout keeps a
    # margin, as a test against SQS would.
    lqs_clock.advance(290)
    assert "Messages" not in sqs_client.receive_message(QueueUrl=sqs_queue)
    lqs_clock.advance(10)
    again = sqs_client.receive_message(QueueUrl=sqs_queue,
                                       AttributeNames=["ApproximateReceiveCount"])["Messages"]
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in again] == ["2"]


def test_delay_seconds(sqs_client, sqs_queue, lqs_clock):
    start = lqs_clock.now_millis()
    sqs_client.send_message(QueueUrl=sqs_queue, MessageBody="later", DelaySeconds=900)
    assert "Messages" not in sqs_client.receive_message(QueueUrl=sqs_queue)
    assert lqs_clock.advance(890.5) >= start + 890500  # and more, if the clock runs
    assert "Messages" not in sqs_client.receive_message(QueueUrl=sqs_queue)
    lqs_clock.advance(9.5)
    got = sqs_client.receive_message(QueueUrl=sqs_queue)["Messages"]
    assert [m["Body"] for m in got] == ["later"]


def test_long_polls_end_when_the_clock_moves(sqs_client, sqs_queue, lqs_clock):
    # A long poll waiting for a delayed message gets it once the clock passes the delay
    # (whether the poll was parked before the clock moved or came after).
    sqs_client.send_message(QueueUrl=sqs_queue, MessageBody="delayed", DelaySeconds=60)
    answers = []
    poller = threading.Thread(target=lambda: answers.append(
        sqs_client.receive_message(QueueUrl=sqs_queue, WaitTimeSeconds=20)))
    poller.start()
    lqs_clock.advance(60)
    poller.join(120)
    assert not poller.is_alive()
    assert [m["Body"] for m in answers[0]["Messages"]] == ["delayed"]

    # An empty long poll on a manual clock ends only when the clock passes its wait:
    # advance it from this thread until the poll (parked in another) has ended.
    empty = []
    poller = threading.Thread(target=lambda: empty.append(
        sqs_client.receive_message(QueueUrl=sqs_queue, WaitTimeSeconds=20)))
    poller.start()
    poller.join(0.2)
    assert poller.is_alive()  # the manual clock did not move by itself
    for _ in range(600):
        lqs_clock.advance(20)
        poller.join(0.1)
        if not poller.is_alive():
            break
    assert not poller.is_alive() and empty and "Messages" not in empty[0]


def test_an_empty_long_poll_ends_after_its_real_wait_on_a_running_clock(
        sqs_client, sqs_queue, lqs_clock):
    # lqs_server's clock runs with real time (advance jumps ahead), so a suite's long
    # polls on empty queues end as on SQS; on a frozen clock this receive would wait
    # until botocore's read timeout.
    if not lqs_clock.running:
        pytest.skip("a frozen clock (--manual-clock): time moves only in lqs_clock.advance")
    before = lqs_clock.now_millis()
    assert "Messages" not in sqs_client.receive_message(QueueUrl=sqs_queue, WaitTimeSeconds=1)
    assert lqs_clock.now_millis() >= before + 1000


def test_sqs_queue_is_fresh_for_each_test_a(sqs_client, sqs_queue):
    sqs_client.send_message(QueueUrl=sqs_queue, MessageBody="left behind")
    SEEN["queue_a"] = sqs_queue


def test_sqs_queue_is_fresh_for_each_test_b(sqs_client, sqs_queue):
    assert SEEN["queue_a"] != sqs_queue
    assert "Messages" not in sqs_client.receive_message(QueueUrl=sqs_queue)
    # The other test's queue was deleted after it.
    with pytest.raises(ClientError) as e:
        sqs_client.get_queue_attributes(QueueUrl=SEEN["queue_a"], AttributeNames=["All"])
    assert e.value.response["Error"]["Code"] in (
        "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue")


@pytest.mark.sqs_queue(fifo=True, attributes={"ContentBasedDeduplication": "true"})
def test_sqs_queue_marker_makes_a_fifo_queue(sqs_client, sqs_queue):
    assert sqs_queue.endswith(".fifo")
    for body in ("one", "two", "one"):
        sqs_client.send_message(QueueUrl=sqs_queue, MessageBody=body, MessageGroupId="g")
    got = sqs_client.receive_message(QueueUrl=sqs_queue, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in got] == ["one", "two"]  # the second "one" deduplicated


# ---- mock_sqs ---------------------------------------------------------------------------

MOCK_VARIABLES = ("AWS_ENDPOINT_URL_SQS", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                  "AWS_DEFAULT_REGION", "AWS_REGION")


def environment():
    return {name: os.environ.get(name) for name in MOCK_VARIABLES}


def application_code():
    """Code under test that makes its own client, as applications do."""
    sqs = boto3.client("sqs")
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="order 1")
    return sqs.meta.endpoint_url, url


def test_mock_sqs_as_a_context_manager_restores_the_environment(monkeypatch):
    monkeypatch.delenv("AWS_ENDPOINT_URL_SQS", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "outer-key")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    before = environment()
    with lqs.mock_sqs() as mock:
        assert os.environ["AWS_ENDPOINT_URL_SQS"] == mock.url
        assert os.environ["AWS_ACCESS_KEY_ID"] != "outer-key"
        assert os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
        endpoint, url = application_code()
        assert endpoint == mock.url  # old botocore too (patched client creation)
        # The messages are in the in-process server's database.
        assert [m.body for m in mock.server.broker.get_queue("orders").receive()] == ["order 1"]
        assert mock.clock is None
    assert environment() == before
    assert "AWS_ENDPOINT_URL_SQS" not in os.environ and "AWS_DEFAULT_REGION" not in os.environ
    # Clients made afterwards are not sent to the stopped server.
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    assert boto3.client("sqs").meta.endpoint_url != endpoint


def test_mock_sqs_keeps_a_region_that_is_set(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    with lqs.mock_sqs():
        assert os.environ["AWS_DEFAULT_REGION"] == "eu-west-1"
        assert boto3.client("sqs").meta.region_name == "eu-west-1"
    assert os.environ["AWS_DEFAULT_REGION"] == "eu-west-1"


def test_mock_sqs_as_a_decorator_on_a_plain_function(monkeypatch):
    monkeypatch.delenv("AWS_ENDPOINT_URL_SQS", raising=False)
    before = environment()
    endpoints = []

    @lqs.mock_sqs(manual_clock=True)
    def job(n):
        endpoint, url = application_code()
        endpoints.append(endpoint)
        return n * 2

    assert job(21) == 42
    assert job(1) == 2
    assert endpoints[0] != endpoints[1]  # a fresh server for each call
    assert environment() == before


@lqs.mock_sqs()
def test_mock_sqs_as_a_decorator_on_a_test_function(tmp_path):
    # pytest still sees the test's own parameters through the decorator.
    assert tmp_path.exists()
    endpoint, _ = application_code()
    assert endpoint == os.environ["AWS_ENDPOINT_URL_SQS"]


def test_after_the_decorated_test_the_environment_is_back():
    # The driver runs this module with AWS_ENDPOINT_URL_SQS unset.
    assert "AWS_ENDPOINT_URL_SQS" not in os.environ
