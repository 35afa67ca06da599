"""GET /metrics (Prometheus text exposition format 0.0.4), GET /health and GET /bridges.

Run with /usr/bin/python3 (Debian's boto3). Sends messages with boto3, scrapes
/metrics with a small parser written here (no prometheus_client), and checks
the queue gauges against GetQueueAttributes and the request counters against
the requests sent. With --auth-file both paths need a signature on the API
port; --metrics-listen serves them (and nothing else) without one.
"""

import json
import http.client
import os
import re
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import (  # noqa: E402
    Config, Lqsd, boto3, http_request, lqsd_binary, missing_client, sigv4_headers)

if boto3 is None:  # pragma: no cover
    missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)


# ---- A tiny parser of the text format -----------------------------------------------

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$')
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)')


def _unescape(value):
    out, i = [], 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append({"n": "\n", "\\": "\\", '"': '"'}.get(nxt, "\\" + nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _parse_labels(text):
    labels, pos = {}, 0
    while pos < len(text):
        m = _LABEL.match(text, pos)
        assert m, "bad label set %r" % text
        labels[m.group(1)] = _unescape(m.group(2))
        pos = m.end()
    return labels


def parse(text):
    """Returns (samples, types, helps): samples maps (name, frozenset(labels)) to a float."""
    samples, types, helps = {}, {}, {}
    assert text.endswith("\n")
    for line in text.split("\n")[:-1]:
        if not line.strip():
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            assert name not in types, "two TYPE lines for " + name
            types[name] = kind
            continue
        if line.startswith("# HELP "):
            _, _, name, help_text = line.split(" ", 3)
            helps[name] = help_text
            continue
        if line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        assert m, "bad sample line %r" % line
        labels = _parse_labels(m.group(2) or "")
        key = (m.group(1), frozenset(labels.items()))
        assert key not in samples, "duplicate series %r" % line
        samples[key] = float(m.group(3))
    return samples, types, helps


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


# ---- Fixtures ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    s = Lqsd()
    try:
        yield s
    finally:
        assert s.stop() == 0, "lqsd did not shut down cleanly"


@pytest.fixture(scope="module")
def sqs(server):
    return boto3.client(
        "sqs", endpoint_url=server.url, region_name="us-east-1",
        aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "lqsdtest"),
        aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "lqsdtest"),
        config=Config(retries={"max_attempts": 1, "mode": "standard"}))


def http_get(server, target, headers=None):
    return http_request(server.host, server.port, "GET", target, headers=headers)


def metrics_get(server, target, method="GET", body=None, headers=None):
    """A request to the --metrics-listen listener."""
    return http_request(server.metrics_host, server.metrics_port, method, target, body, headers)


def scrape(server):
    status, headers, body = http_get(server, "/metrics")
    assert status == 200, body
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    return parse(body)


# ---- Tests ---------------------------------------------------------------------------

def test_health(server):
    status, headers, body = http_get(server, "/health")
    assert status == 200
    assert body == "ok\n"
    assert headers["content-type"].startswith("text/plain")


def test_queue_gauges_match_attributes(server, sqs):
    before, _, _ = scrape(server)
    sends_before = value(before, "lqsd_requests_total", action="SendMessage", status="200") or 0

    url = sqs.create_queue(QueueName="metrics-main")["QueueUrl"]
    other = sqs.create_queue(QueueName="metrics-other")["QueueUrl"]
    for i in range(5):
        sqs.send_message(QueueUrl=url, MessageBody="m%d" % i)
    sqs.send_message(QueueUrl=url, MessageBody="late", DelaySeconds=300)
    sqs.send_message_batch(QueueUrl=url, Entries=[
        {"Id": "a", "MessageBody": "b1"}, {"Id": "b", "MessageBody": "b2"}])
    sqs.send_message(QueueUrl=other, MessageBody="x")
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=3, VisibilityTimeout=300)
    received = got.get("Messages", [])
    assert len(received) >= 1
    sqs.delete_message(QueueUrl=url, ReceiptHandle=received[0]["ReceiptHandle"])

    samples, types, _ = scrape(server)
    for q_url, name in ((url, "metrics-main"), (other, "metrics-other")):
        attrs = sqs.get_queue_attributes(QueueUrl=q_url, AttributeNames=["All"])["Attributes"]
        q = dict(queue=name, region="us-east-1")
        assert value(samples, "lqs_queue_messages_visible", **q) == \
            int(attrs["ApproximateNumberOfMessages"])
        assert value(samples, "lqs_queue_messages_in_flight", **q) == \
            int(attrs["ApproximateNumberOfMessagesNotVisible"])
        assert value(samples, "lqs_queue_messages_delayed", **q) == \
            int(attrs["ApproximateNumberOfMessagesDelayed"])
        assert value(samples, "lqs_queue_oldest_message_age_seconds", **q) >= 0

    main = dict(queue="metrics-main", region="us-east-1")
    assert value(samples, "lqs_queue_messages_delayed", **main) == 1
    assert value(samples, "lqs_queue_messages_in_flight", **main) == len(received) - 1
    assert value(samples, "lqs_queue_messages_visible", **main) == 7 - len(received)
    assert value(samples, "lqs_queue_messages_sent_total", **main) == 8
    assert value(samples, "lqs_queue_messages_received_total", **main) == len(received)
    assert value(samples, "lqs_queue_messages_deleted_total", **main) == 1
    for counter in ("moved_to_dlq", "expired", "purged", "redriven"):
        assert value(samples, "lqs_queue_messages_%s_total" % counter, **main) == 0
    assert value(samples, "lqs_queue_messages_sent_total", queue="metrics-other",
                 region="us-east-1") == 1
    assert value(samples, "lqs_queues", region="us-east-1") >= 2

    assert types["lqs_queue_messages_visible"] == "gauge"
    assert types["lqs_queue_messages_sent_total"] == "counter"

    # Request counters: 7 SendMessage calls (the batch is its own action).
    sends = value(samples, "lqsd_requests_total", action="SendMessage", status="200")
    assert sends - sends_before == 7
    assert value(samples, "lqsd_requests_total", action="SendMessageBatch", status="200") >= 1
    assert value(samples, "lqsd_requests_total", action="CreateQueue", status="200") >= 2


def test_queues_of_every_open_region(server, sqs):
    eu = boto3.client(
        "sqs", endpoint_url=server.url, region_name="eu-west-1",
        aws_access_key_id="lqsdtest", aws_secret_access_key="lqsdtest",
        config=Config(retries={"max_attempts": 1, "mode": "standard"}))
    url = eu.create_queue(QueueName="metrics-eu")["QueueUrl"]
    eu.send_message(QueueUrl=url, MessageBody="x")
    samples, _, _ = scrape(server)
    assert value(samples, "lqs_queue_messages_visible", queue="metrics-eu",
                 region="eu-west-1") == 1
    assert value(samples, "lqs_queue_messages_visible", queue="metrics-eu",
                 region="us-east-1") is None
    assert value(samples, "lqs_queues", region="eu-west-1") == 1


def test_request_histogram(server, sqs):
    url = sqs.create_queue(QueueName="metrics-hist")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="h")
    samples, types, helps = scrape(server)
    assert types["lqsd_requests_total"] == "counter"
    assert types["lqsd_request_duration_seconds"] == "histogram"
    assert "lqsd_request_duration_seconds" in helps
    action = "SendMessage"
    buckets = sorted(
        ((float(dict(labels)["le"]), v) for (name, labels), v in samples.items()
         if name == "lqsd_request_duration_seconds_bucket" and dict(labels)["action"] == action),
        key=lambda b: b[0])
    assert len(buckets) >= 3 and buckets[-1][0] == float("inf")
    counts = [v for _, v in buckets]
    assert counts == sorted(counts), "buckets must be cumulative"
    count = value(samples, "lqsd_request_duration_seconds_count", action=action)
    assert buckets[-1][1] == count
    total = sum(v for (name, labels), v in samples.items()
                if name == "lqsd_requests_total" and dict(labels)["action"] == action)
    assert count == total
    assert value(samples, "lqsd_request_duration_seconds_sum", action=action) >= 0


def test_errors_counted_by_status(server, sqs):
    with pytest.raises(Exception):
        sqs.get_queue_url(QueueName="metrics-no-such-queue")
    # An unknown action is counted under one fixed label value.
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    conn.request("POST", "/", body="Action=NoSuchAction&Version=2012-11-05",
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    r = conn.getresponse()
    r.read()
    conn.close()
    assert r.status == 400
    samples, _, _ = scrape(server)
    assert value(samples, "lqsd_requests_total", action="GetQueueUrl", status="400") >= 1
    assert value(samples, "lqsd_requests_total", action="unknown", status="400") >= 1
    assert value(samples, "lqsd_requests_total", action="NoSuchAction", status="400") is None


def test_every_family_has_help_and_type(server, sqs):
    samples, types, helps = scrape(server)
    families = set()
    for name, _ in samples:
        for suffix in ("_bucket", "_sum", "_count"):
            base = name[:-len(suffix)] if name.endswith(suffix) else None
            if base and types.get(base) == "histogram":
                name = base
                break
        families.add(name)
    for family in families:
        assert family in types, family
        assert family in helps, family


def test_sqs_routing_unchanged(server, sqs):
    # A GET with Action= on /metrics is still an SQS request.
    status, _, body = http_get(server, "/metrics?Action=ListQueues&Version=2012-11-05")
    assert status == 200
    assert "ListQueuesResponse" in body
    # So is a JSON request on /health.
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    conn.request("POST", "/health", body="{}", headers={
        "X-Amz-Target": "AmazonSQS.ListQueues", "Content-Type": "application/x-amz-json-1.0"})
    r = conn.getresponse()
    body = r.read().decode()
    conn.close()
    assert r.status == 200 and "QueueUrls" in body
    # Queue paths keep working for queues called "metrics" or "health".
    url = sqs.create_queue(QueueName="health")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="q")
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
    assert attrs["Attributes"]["ApproximateNumberOfMessages"] == "1"


# ---- --auth-file and --metrics-listen ---------------------------------------------------

KEY, SECRET = "AKIDMETRICS", "metrics-test-secret"


@pytest.fixture(scope="module")
def keys_file():
    with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
        f.write("%s %s\n" % (KEY, SECRET))
    yield f.name
    os.unlink(f.name)


@pytest.fixture(scope="module")
def auth_server(keys_file):
    s = Lqsd("--auth-file", keys_file, "--metrics-listen", "127.0.0.1:0")
    try:
        yield s
    finally:
        assert s.stop() == 0, "lqsd did not shut down cleanly"


def signed_get(server, target, secret=SECRET):
    return http_get(server, target, headers=sigv4_headers("GET", server.url + target, KEY, secret))


def test_auth_file_refuses_unsigned_metrics_and_health(auth_server):
    # The answer an unsigned SQS request gets (query protocol: XML).
    sqs_status, _, sqs_body = http_get(auth_server, "/?Action=ListQueues&Version=2012-11-05")
    assert sqs_status == 403 and "<Code>MissingAuthenticationToken</Code>" in sqs_body
    for target in ("/metrics", "/health", "/bridges"):
        status, headers, body = http_get(auth_server, target)
        assert status == sqs_status, (target, body)
        assert "<Code>MissingAuthenticationToken</Code>" in body, body
        assert "lqs_queue" not in body and "ok" != body.strip()
        assert "x-amzn-requestid" in headers
    # A bad signature is refused as on any request.
    status, _, body = signed_get(auth_server, "/metrics", secret="wrong")
    assert status == 403 and "<Code>SignatureDoesNotMatch</Code>" in body, body


def test_auth_file_serves_signed_metrics_and_health(auth_server):
    status, headers, body = signed_get(auth_server, "/metrics")
    assert status == 200, body
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    samples, types, _ = parse(body)
    assert types["lqsd_requests_total"] == "counter"
    status, _, body = signed_get(auth_server, "/health")
    assert (status, body) == (200, "ok\n")
    # No bridges run here: an empty list (tests/bridge has the running ones).
    status, headers, body = signed_get(auth_server, "/bridges")
    assert status == 200 and headers["content-type"] == "application/json", body
    assert json.loads(body) == {"bridges": []}


def test_metrics_listener_serves_both_without_auth(auth_server):
    http_get(auth_server, "/metrics")  # one more refused request, counted below
    status, headers, body = metrics_get(auth_server, "/metrics")
    assert status == 200, body
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    samples, _, _ = parse(body)
    # The API port's requests (here the refused ones) are in the same metrics.
    assert value(samples, "lqsd_requests_total", action="unknown", status="403") >= 1
    status, headers, body = metrics_get(auth_server, "/health")
    assert (status, body) == (200, "ok\n")
    assert headers["content-type"].startswith("text/plain")
    status, _, body = metrics_get(auth_server, "/bridges")
    assert status == 200 and json.loads(body) == {"bridges": []}


def test_metrics_listener_serves_no_sqs_api(auth_server):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    json_headers = {"X-Amz-Target": "AmazonSQS.ListQueues",
                    "Content-Type": "application/x-amz-json-1.0"}
    for method, target, body, headers in (
            ("POST", "/", "Action=ListQueues&Version=2012-11-05", form),
            ("GET", "/?Action=ListQueues&Version=2012-11-05", None, None),
            ("POST", "/", "{}", json_headers),
            ("GET", "/metrics?Action=ListQueues&Version=2012-11-05", None, None),
            ("POST", "/health", "{}", json_headers),
            ("POST", "/bridges", "{}", json_headers),
            ("GET", "/123456789012/some-queue", None, None)):
        status, _, text = metrics_get(auth_server, target, method, body, headers)
        assert status in (404, 405), (method, target, status, text)
        assert "ListQueues" not in text and "QueueUrls" not in text
    status, headers, _ = metrics_get(auth_server, "/metrics", "POST", "")
    assert status == 405 and headers["allow"] == "GET"


def test_metrics_listener_without_auth_file():
    with Lqsd("--metrics-listen", "127.0.0.1:0") as s:
        assert s.metrics_port != s.port
        status, _, body = metrics_get(s, "/metrics")
        assert status == 200 and "lqs_queues" in body
        status, _, body = metrics_get(s, "/health")
        assert (status, body) == (200, "ok\n")
        # The API port keeps serving them unsigned, as without the flag.
        assert http_get(s, "/metrics")[0] == 200
        assert http_get(s, "/health")[2] == "ok\n"


def test_startup_line_says_where_metrics_are(keys_file):
    s = Lqsd("--auth-file", keys_file, "--metrics-listen", "127.0.0.1:0", stderr=subprocess.PIPE)
    assert s.stop() == 0
    err = s.proc.stderr.read().decode()
    assert "metrics and health on http://127.0.0.1:%d (no authentication), on the API port " \
           "only when signed" % s.metrics_port in err, err
    s = Lqsd("--auth-file", keys_file, stderr=subprocess.PIPE)
    assert s.stop() == 0
    assert "metrics and health on the API port, signed requests only" in \
        s.proc.stderr.read().decode()


def test_bad_metrics_listen_exits_2():
    for bad in ("nonsense", "127.0.0.1:65536", "127.0.0.1:", "[::1]9000", "127.0.0.1:x"):
        r = subprocess.run([lqsd_binary(), "--metrics-listen", bad], capture_output=True,
                           timeout=30)
        assert r.returncode == 2, (bad, r)
        assert b"--metrics-listen must be HOST:PORT, got '%s'" % bad.encode() in r.stderr, r
    # An address that cannot be bound (the API port itself) fails like --listen's.
    with Lqsd() as s:
        r = subprocess.run([lqsd_binary(), "--listen", "127.0.0.1:0",
                            "--metrics-listen", "127.0.0.1:%d" % s.port],
                           capture_output=True, timeout=30)
        assert r.returncode == 1 and b"--metrics-listen: cannot listen" in r.stderr, r


def test_parser_unescapes_labels():
    samples, _, _ = parse('# TYPE m gauge\nm{queue="a\\"b\\\\c\\nd"} 3\n')
    assert value(samples, "m", queue='a"b\\c\nd') == 3
