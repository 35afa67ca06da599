"""lqs.Server: lqsd's SQS endpoint in this process, driven by boto3 over real HTTP.

Runs under pytest (Debian's /usr/bin/python3: boto3 1.26 speaks the query protocol)
and as a plain script (`python3 test_server.py`, for the pyenv interpreter, whose
boto3 1.43 speaks the JSON protocol and which has no pytest), so both wire
protocols reach the in-process server.
"""

import contextlib
import hashlib
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

import lqs
from polling import eventually


@contextlib.contextmanager
def sqs_client(url, region="us-east-1"):
    client = boto3.client("sqs", endpoint_url=url, region_name=region,
                          aws_access_key_id="x", aws_secret_access_key="x",
                          config=Config(retries={"max_attempts": 1}))
    try:
        yield client
    finally:
        client.close()  # its keep-alive connections


def test_temporary_server_serves_boto3_and_removes_its_database():
    with lqs.Server() as server, sqs_client(server.url) as sqs:
        assert server.url.startswith("http://127.0.0.1:")
        path = server.broker.path
        assert os.path.isdir(path)
        url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
        assert url == server.url + "/123456789012/jobs"
        sent = sqs.send_message(QueueUrl=url, MessageBody="hello")
        assert sent["MD5OfMessageBody"] == hashlib.md5(b"hello").hexdigest()
        # The same queue, seen through the in-process Broker.
        jobs = server.broker.get_queue("jobs")
        assert jobs.get_attributes("ApproximateNumberOfMessages") == {
            "ApproximateNumberOfMessages": "1"}
        got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)["Messages"]
        assert [m["Body"] for m in got] == ["hello"]
        sqs.delete_message(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"])
        try:
            sqs.get_queue_url(QueueName="missing")
            raise AssertionError("expected QueueDoesNotExist")
        except ClientError as e:
            assert e.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert not os.path.exists(path)
    assert "closed" in repr(server)
    server.close()  # idempotent


def test_persistent_server_keeps_messages_and_answers_long_polls_at_close(tmp_path):
    path = str(tmp_path / "db")
    with lqs.Server(path, account_id="000000000001") as server, sqs_client(server.url) as sqs:
        url = sqs.create_queue(QueueName="kept")["QueueUrl"]
        assert "/000000000001/kept" in url
        sqs.send_message(QueueUrl=url, MessageBody="survives")
        empty = sqs.create_queue(QueueName="empty")["QueueUrl"]
        polled = {}

        def poll():
            t0 = time.monotonic()
            with sqs_client(server.url) as poller_sqs:
                polled["messages"] = poller_sqs.receive_message(
                    QueueUrl=empty, WaitTimeSeconds=20).get("Messages", [])
            polled["seconds"] = time.monotonic() - t0

        poller = threading.Thread(target=poll)
        poller.start()
        time.sleep(0.5)  # let the long poll park (its answer does not depend on this)
    poller.join(10)
    assert not poller.is_alive(), "a parked long poll was not answered at close"
    assert polled["messages"] == [] and polled["seconds"] < 10
    with lqs.open(path) as db:
        got = db.get_queue("kept").receive(max_number_of_messages=10)
        assert [m.body for m in got] == ["survives"]


def test_close_stops_the_databases_workers_before_closing_it():
    lines = []
    with lqs.Server() as server, sqs_client(server.url) as sqs:
        url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
        handled = []
        worker = lqs.Worker(server.broker.get_queue("jobs"),
                            lambda m: handled.append(m.body), wait_time_seconds=20,
                            logger=lambda level, line: lines.append((level, line))).start()
        sqs.send_message(QueueUrl=url, MessageBody="over HTTP, handled in process")
        eventually(lambda: handled, "the worker to handle the message")
        assert handled == ["over HTTP, handled in process"]
        # The worker is now parked in a 20 s long poll on the database.
    assert worker.stopped
    # Stopped, not failed: no worker line about a closed database.
    assert [(lv, ln) for lv, ln in lines if lv in ("warning", "error")] == [], lines


def test_regions_are_apart_unless_single_region(tmp_path):
    with lqs.Server(str(tmp_path / "db")) as server, sqs_client(server.url) as home, \
            sqs_client(server.url, "ap-south-1") as away:
        home_url = home.create_queue(QueueName="jobs")["QueueUrl"]
        away_url = away.create_queue(QueueName="jobs")["QueueUrl"]
        assert away_url == server.url + "/queue/ap-south-1/123456789012/jobs"
        away.send_message(QueueUrl=away_url, MessageBody="far")
        assert "Messages" not in home.receive_message(QueueUrl=home_url, WaitTimeSeconds=0)
        # server.broker is the default region's.
        assert server.broker.get_queue("jobs").get_attributes(
            "ApproximateNumberOfMessages") == {"ApproximateNumberOfMessages": "0"}
    assert os.path.isdir(str(tmp_path / "db" / "regions" / "ap-south-1"))
    with lqs.Server(single_region=True) as server, sqs_client(server.url) as home, \
            sqs_client(server.url, "ap-south-1") as away:
        url = away.create_queue(QueueName="shared")["QueueUrl"]
        assert url == server.url + "/123456789012/shared"
        assert home.get_queue_url(QueueName="shared")["QueueUrl"] == url
    with lqs.Server(max_regions=2) as server, sqs_client(server.url, "eu-west-1") as second, \
            sqs_client(server.url, "ap-south-1") as third:
        second.create_queue(QueueName="q")
        try:
            third.create_queue(QueueName="q")
            raise AssertionError("a third region was served")
        except ClientError as refused:
            assert refused.response["Error"]["Code"] == "OverLimit"
            assert refused.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    try:
        lqs.Server(max_regions=0)
        raise AssertionError("max_regions=0 was taken")
    except ValueError as e:
        assert "max_regions" in str(e)


def test_busy_polling_on_or_off_serves_the_same():
    for busy_poll_us in (0, 10000, None):
        with lqs.Server(busy_poll_us=busy_poll_us) as server, sqs_client(server.url) as sqs:
            url = sqs.create_queue(QueueName="polled")["QueueUrl"]
            for i in range(20):  # requests close together, then far apart
                sqs.send_message(QueueUrl=url, MessageBody=str(i))
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
            assert len(got) == 10
    for bad in (-1, 10001):
        try:
            lqs.Server(busy_poll_us=bad)
            raise AssertionError(f"busy_poll_us={bad} was taken")
        except ValueError as e:
            assert "busy_poll_us" in str(e)


def test_metrics_listen_serves_metrics_and_health_alone():
    with lqs.Server(metrics_listen="127.0.0.1:0") as server, sqs_client(server.url) as sqs:
        sqs.create_queue(QueueName="scraped")
        assert server.metrics_url.startswith("http://127.0.0.1:")
        assert server.metrics_url != server.url
        with urllib.request.urlopen(server.metrics_url + "/metrics") as r:
            assert 'lqs_queue_messages_visible{queue="scraped"' in r.read().decode()
        with urllib.request.urlopen(server.metrics_url + "/health") as r:
            assert r.read() == b"ok\n"
        try:
            urllib.request.urlopen(server.metrics_url + "/?Action=ListQueues")
            raise AssertionError("the metrics listener served the SQS API")
        except urllib.error.HTTPError as e:
            assert e.code == 404
    with lqs.Server() as server:
        assert server.metrics_url is None
    for bad in ("nonsense", "127.0.0.1:65536"):
        try:
            lqs.Server(metrics_listen=bad)
            raise AssertionError(f"metrics_listen={bad!r} was taken")
        except ValueError as e:
            assert "metrics_listen" in str(e)


def test_host_style_queue_urls(tmp_path):
    with lqs.Server(str(tmp_path / "db"), url_style="host") as server, \
            sqs_client(server.url) as home, sqs_client(server.url, "ap-south-1") as away:
        port = server.url.rsplit(":", 1)[1]
        home_url = home.create_queue(QueueName="jobs")["QueueUrl"]
        away_url = away.create_queue(QueueName="jobs")["QueueUrl"]
        assert home_url == f"http://sqs.us-east-1.localhost:{port}/123456789012/jobs"
        assert away_url == f"http://sqs.ap-south-1.localhost:{port}/123456789012/jobs"
        # boto3 sends to its endpoint_url; the URL's host names the region.
        home.send_message(QueueUrl=away_url, MessageBody="far")
        assert "Messages" not in home.receive_message(QueueUrl=home_url, WaitTimeSeconds=0)
        got = away.receive_message(QueueUrl=away_url, WaitTimeSeconds=0)["Messages"]
        assert [m["Body"] for m in got] == ["far"]
    try:
        lqs.Server(url_style="domain")
        raise AssertionError("url_style='domain' was taken")
    except ValueError as e:
        assert "url_style" in str(e)


def test_manual_clock_moves_only_when_advanced_in_process_or_over_http():
    with lqs.Server() as plain:
        assert plain.clock is None
        try:
            plain.advance_clock(1)
            raise AssertionError("expected ValueError")
        except ValueError as e:
            assert "manual_clock" in str(e)
        try:
            urllib.request.urlopen(plain.url + "/_lqs/clock")
            raise AssertionError("expected 404")
        except urllib.error.HTTPError as e:
            assert e.code == 404
    with lqs.Server(manual_clock=True) as server, sqs_client(server.url) as sqs:
        start = server.clock.now_millis()
        assert abs(start - time.time() * 1000) < 3600 * 1000  # starts at the real time
        url = sqs.create_queue(QueueName="clocked")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=900)
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
        assert server.advance_clock(899.5) == start + 899500
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
        # The same clock over HTTP.
        with urllib.request.urlopen(urllib.request.Request(
                server.url + "/_lqs/clock/advance?seconds=0.5", method="POST")) as r:
            assert r.status == 200
        assert server.clock.now_millis() == start + 900000
        got = sqs.receive_message(QueueUrl=url, VisibilityTimeout=10)["Messages"]
        assert [m["Body"] for m in got] == ["m"]
        # A long poll ends when the clock passes its wait, not before.
        answer = {}
        t = threading.Thread(target=lambda: answer.update(
            sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5)))
        t.start()
        t.join(0.3)
        assert t.is_alive()
        server.advance_clock(5)
        t.join(30)
        assert not t.is_alive() and "Messages" not in answer
        # Advanced 5 s of the 10 s lease: still leased; 5 more: back.
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
        server.advance_clock(5)
        assert len(sqs.receive_message(QueueUrl=url)["Messages"]) == 1


def test_port_in_use_is_a_clear_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        try:
            lqs.Server(port=port)
            raise AssertionError("expected ValueError")
        except ValueError as e:
            assert str(port) in str(e) or "address" in str(e).lower(), e


if __name__ == "__main__":
    import script_runner
    print(f"boto3 {boto3.__version__}")
    sys.exit(script_runner.run(globals(), sys.argv[1:]))
