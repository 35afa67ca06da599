"""lqsd --max-disk-bytes: at the budget boto3's sends fail with ServiceUnavailable (HTTP
503, which botocore retries), receives and deletes go on, and once the queue is drained
lqsd's maintenance reclaims the space and sends succeed again, without a restart. Also
that --profile small serves the same way.

Run with /usr/bin/python3 (Debian's boto3, the query protocol).
"""

import os
import random
import shutil
import sys
import tempfile
import time
import types

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import ClientError, Config, Lqsd, boto3, missing_client  # noqa: E402

if boto3 is None:  # pragma: no cover
    missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)

from botocore.retries.standard import RetryContext, TransientRetryableChecker  # noqa: E402

BUDGET = 2 << 20
# 32 KiB that compression cannot shrink: a compaction must free only what was deleted.
BODY = "".join(random.Random(28).choices([chr(c) for c in range(33, 127)], k=32 << 10))


@pytest.fixture
def data_dir():
    path = tempfile.mkdtemp(prefix="lqsd-budget-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _client(server):
    return boto3.client(
        "sqs", endpoint_url=server.url, region_name="us-east-1",
        aws_access_key_id="x", aws_secret_access_key="x",
        config=Config(retries={"max_attempts": 1, "mode": "standard"}))


def _fill(sqs, url):
    """Sends BODY until a send fails; returns (accepted, the ClientError)."""
    for sent in range(10000):
        try:
            sqs.send_message(QueueUrl=url, MessageBody=BODY)
        except ClientError as e:
            return sent, e
    raise AssertionError("no send failed")


def _drain(sqs, url):
    n = 0
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return n
        sqs.delete_message_batch(QueueUrl=url, Entries=[
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)])
        n += len(got)


def _budget_round_trip(server):
    sqs = _client(server)
    url = sqs.create_queue(QueueName="budget")["QueueUrl"]
    sent, err = _fill(sqs, url)
    assert 40 < sent <= 70, sent
    assert err.response["Error"]["Code"] == "ServiceUnavailable"
    assert err.response["ResponseMetadata"]["HTTPStatusCode"] == 503
    assert "storage budget (max_disk_bytes = %d bytes, in use " % BUDGET in \
        err.response["Error"]["Message"]

    # botocore's retry policy takes the answer as transient.
    context = RetryContext(attempt_number=1, parsed_response=err.response,
                           http_response=types.SimpleNamespace(status_code=503))
    assert TransientRetryableChecker().is_retryable(context)

    # The whole batch fails, not entry by entry. (A flush in the background may delete the
    # log's copy of what it wrote, up to 1 MiB here, and leave room for more batches first.)
    for _ in range(40):
        try:
            res = sqs.send_message_batch(QueueUrl=url, Entries=[
                {"Id": "a", "MessageBody": BODY}, {"Id": "b", "MessageBody": BODY}])
            assert not res.get("Failed"), res
            sent += 2
        except ClientError as e:
            assert e.response["Error"]["Code"] == "ServiceUnavailable"
            break
    else:
        raise AssertionError("no batch failed at the budget")

    # Consumers drain the queue while it is over; a purge works too.
    other = sqs.create_queue(QueueName="other")["QueueUrl"]
    sqs.purge_queue(QueueUrl=other)
    assert _drain(sqs, url) == sent

    # lqsd's maintenance (every second) reclaims the drained space.
    deadline = time.monotonic() + 60
    while True:
        try:
            sqs.send_message(QueueUrl=url, MessageBody="after the drain")
            break
        except ClientError as e:
            assert e.response["Error"]["Code"] == "ServiceUnavailable"
            assert time.monotonic() < deadline, "sends were not accepted again in 60 s"
            time.sleep(0.2)
    got = sqs.receive_message(QueueUrl=url)["Messages"]
    assert got[0]["Body"] == "after the drain"


def test_budget_refuses_sends_and_recovers(data_dir):
    with Lqsd("--data", data_dir, "--max-disk-bytes", "2M", "--durability", "process") as server:
        _budget_round_trip(server)


def test_budget_under_the_small_profile(data_dir):
    with Lqsd("--data", data_dir, "--max-disk-bytes", str(BUDGET), "--profile",
              "small") as server:
        _budget_round_trip(server)


def test_bad_budget_is_a_usage_error():
    from lqsd_harness import lqsd_binary
    import subprocess
    p = subprocess.run([lqsd_binary(), "--max-disk-bytes", "lots"], capture_output=True)
    assert p.returncode == 2
    p = subprocess.run([lqsd_binary(), "--profile", "tiny"], capture_output=True)
    assert p.returncode == 2
