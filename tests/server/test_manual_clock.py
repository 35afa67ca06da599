"""lqsd --manual-clock: GET /_lqs/clock and POST /_lqs/clock/advance
(server/clock_endpoint.h), over real HTTP with Debian's boto3.

Without the flag both paths answer 404 like an unknown path. With it: the
clock starts at the real time, a bad `seconds` gets 400 naming the parameter,
another method 405; advancing expires a visibility timeout and a delay and
wakes a parked long poll, and never moves by itself. With --auth-file the
paths need a signature; the --metrics-listen listener never serves them.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import (Config, Lqsd, boto3, http_request, lqsd_binary,  # noqa: E402
                          missing_client, sigv4_headers, write_keys_file)

if boto3 is None:  # pragma: no cover
    missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)


def client(server, key="lqsdtest", secret="lqsdtest"):
    return boto3.client(
        "sqs", endpoint_url=server.url, region_name="us-east-1",
        aws_access_key_id=key, aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=120))


def clock(server, method="GET", target="/_lqs/clock", body=None, headers=None):
    status, hdrs, text = http_request(server.host, server.port, method, target, body=body,
                                      headers=headers)
    return status, hdrs, text


def advance(server, seconds):
    status, _, text = clock(server, "POST", "/_lqs/clock/advance",
                            body=json.dumps({"seconds": seconds}),
                            headers={"Content-Type": "application/json"})
    assert status == 200, text
    return json.loads(text)


@pytest.fixture(scope="module")
def server():
    with Lqsd("--manual-clock", "--metrics-listen", "127.0.0.1:0") as s:
        yield s


def test_without_the_flag_the_paths_do_not_exist():
    with Lqsd() as s:
        for method, target, body in [("GET", "/_lqs/clock", None),
                                     ("POST", "/_lqs/clock/advance", '{"seconds": 5}'),
                                     ("POST", "/_lqs/clock/advance?seconds=5", None)]:
            status, _, text = clock(s, method, target, body=body)
            assert status == 404, (method, target, text)
            assert "UnknownOperation" in text
        # An unknown path answers the same.
        assert clock(s, "GET", "/_lqs/nothing")[0] == 404


def test_clock_starts_at_real_time_and_stands_still(server):
    status, hdrs, text = clock(server)
    assert status == 200 and hdrs["content-type"] == "application/json", text
    first = json.loads(text)
    assert abs(first["now_millis"] - time.time() * 1000) < 3600 * 1000
    assert first["now"].endswith("Z") and first["now"][:4] == time.strftime("%Y", time.gmtime())
    assert first["running"] is False
    time.sleep(0.05)  # real time passes; the manual clock does not
    assert json.loads(clock(server)[2])["now_millis"] == first["now_millis"]


def test_a_running_clock_runs_and_jumps():
    """--manual-clock=running: real time runs (an empty long poll ends after its
    wait, as on SQS) and an advance jumps ahead (a visibility timeout expires)."""
    with Lqsd("--manual-clock=running") as s:
        first = json.loads(clock(s)[2])
        assert first["running"] is True
        sqs = client(s)
        url = sqs.create_queue(QueueName="running")["QueueUrl"]
        assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)
        assert json.loads(clock(s)[2])["now_millis"] >= first["now_millis"] + 1000
        sqs.send_message(QueueUrl=url, MessageBody="leased")
        assert sqs.receive_message(QueueUrl=url, VisibilityTimeout=3600)["Messages"]
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
        advance(s, 3600)
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["leased"]
    bad = subprocess.run([lqsd_binary(), "--manual-clock=sometimes"], capture_output=True, text=True,
                         timeout=30)
    assert bad.returncode == 2 and "frozen,running" in bad.stderr, bad.stderr


def test_advance_forms_and_fractions(server):
    start = json.loads(clock(server)[2])["now_millis"]
    out = advance(server, 1.25)
    assert out["advanced_millis"] == 1250 and out["now_millis"] == start + 1250
    status, _, text = clock(server, "POST", "/_lqs/clock/advance?seconds=2")
    assert status == 200 and json.loads(text)["now_millis"] == start + 3250, text
    status, _, text = clock(server, "POST", "/_lqs/clock/advance", body="seconds=0.0005",
                            headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and json.loads(text)["advanced_millis"] == 1, text
    # curl -d sends JSON with a form content type: still read as JSON.
    status, _, text = clock(server, "POST", "/_lqs/clock/advance", body='{"seconds": "3"}',
                            headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and json.loads(text)["now_millis"] == start + 6251, text


@pytest.mark.parametrize("target,body,code", [
    ("/_lqs/clock/advance?seconds=-1", None, "InvalidParameterValue"),
    ("/_lqs/clock/advance?seconds=abc", None, "InvalidParameterValue"),
    ("/_lqs/clock/advance?seconds=1e3", None, "InvalidParameterValue"),
    ("/_lqs/clock/advance?seconds=", None, "InvalidParameterValue"),
    ("/_lqs/clock/advance?seconds=1.", None, "InvalidParameterValue"),
    ("/_lqs/clock/advance?seconds=99999999999999999999", None, "InvalidParameterValue"),
    ("/_lqs/clock/advance", '{"seconds": -5}', "InvalidParameterValue"),
    ("/_lqs/clock/advance", '{"seconds": -0.5}', "InvalidParameterValue"),
    ("/_lqs/clock/advance", '{"seconds": true}', "InvalidParameterValue"),
    ("/_lqs/clock/advance", '{"seconds": 1e300}', "InvalidParameterValue"),
    ("/_lqs/clock/advance", '{"seconds": ', "InvalidParameterValue"),
    ("/_lqs/clock/advance", '{"second": 5}', "MissingParameter"),
    ("/_lqs/clock/advance", None, "MissingParameter"),
])
def test_bad_seconds_are_refused_and_change_nothing(server, target, body, code):
    before = json.loads(clock(server)[2])["now_millis"]
    status, hdrs, text = clock(server, "POST", target, body=body)
    assert status == 400, text
    err = json.loads(text)
    assert err["code"] == code and "seconds" in err["message"], err
    assert json.loads(clock(server)[2])["now_millis"] == before


def test_wrong_methods(server):
    status, hdrs, _ = clock(server, "GET", "/_lqs/clock/advance?seconds=1")
    assert status == 405 and hdrs["allow"] == "POST"
    status, hdrs, _ = clock(server, "POST", "/_lqs/clock")
    assert status == 405 and hdrs["allow"] == "GET"


def test_advance_expires_visibility_and_delay(server):
    sqs = client(server)
    url = sqs.create_queue(QueueName="lease")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="leased")
    got = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    assert [m["Body"] for m in got] == ["leased"]
    advance(server, 29.999)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    advance(server, 0.001)
    again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in again["Messages"]] == ["2"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=again["Messages"][0]["ReceiptHandle"])

    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=600)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    advance(server, 600)
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["later"]


def test_every_region_runs_on_the_clock(server):
    sqs = boto3.client(
        "sqs", endpoint_url=server.url, region_name="eu-west-1",
        aws_access_key_id="lqsdtest", aws_secret_access_key="lqsdtest",
        config=Config(retries={"max_attempts": 1, "mode": "standard"}))
    url = sqs.create_queue(QueueName="elsewhere")["QueueUrl"]
    assert "/queue/eu-west-1/" in url  # another region's database
    before = json.loads(clock(server)[2])["now_millis"]
    sqs.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=120)
    got = sqs.receive_message(QueueUrl=url, AttributeNames=["SentTimestamp"])
    assert "Messages" not in got
    advance(server, 120)
    [m] = sqs.receive_message(QueueUrl=url, AttributeNames=["SentTimestamp"])["Messages"]
    assert int(m["Attributes"]["SentTimestamp"]) == before  # the manual clock's time


def test_advance_wakes_a_long_poll(server):
    sqs = client(server)
    url = sqs.create_queue(QueueName="poll")["QueueUrl"]
    result = {}

    def poll():
        result["answer"] = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)

    t = threading.Thread(target=poll)
    t.start()
    # The poll is parked on the manual clock: it does not end by itself.
    t.join(0.5)
    assert t.is_alive()
    advance(server, 20)
    t.join(60)
    assert not t.is_alive() and "Messages" not in result["answer"]


def test_metrics_listener_does_not_serve_the_clock(server):
    status, _, _ = http_request(server.metrics_host, server.metrics_port, "POST",
                                "/_lqs/clock/advance?seconds=1")
    assert status == 404


KEY, SECRET = "AKIDCLOCK", "clock-test-secret"


def test_auth_file_requires_a_signature():
    with tempfile.TemporaryDirectory() as tmp:
        keys = write_keys_file(tmp, KEY, SECRET)
        with Lqsd("--auth-file", keys, "--manual-clock") as s:
            status, _, text = clock(s, "POST", "/_lqs/clock/advance?seconds=5")
            assert status == 403 and "MissingAuthenticationToken" in text, text

            def signed(method, target, body, secret):
                headers = sigv4_headers(method, s.url + target, KEY, secret, body)
                return clock(s, method, target, body=body, headers=headers)

            status, _, text = signed("GET", "/_lqs/clock", None, "wrong")
            assert status == 403 and "SignatureDoesNotMatch" in text, text
            status, _, text = signed("GET", "/_lqs/clock", None, SECRET)
            assert status == 200, text
            before = json.loads(text)["now_millis"]
            status, _, text = signed("POST", "/_lqs/clock/advance", '{"seconds": 7}', SECRET)
            assert status == 200 and json.loads(text)["now_millis"] == before + 7000, text
