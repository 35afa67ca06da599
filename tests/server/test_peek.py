"""GET /_aws/sqs/messages, LocalStack's SQS developer endpoint (server/peek_endpoint.h).

Run with /usr/bin/python3 (Debian's boto3, query protocol). A queue holds one
visible, one in-flight and one delayed message; every combination of
ShowInvisible and ShowDelayed, in every answer format (XML, the query
protocol's JSON rendering, the JSON protocol) and both request forms (QueueUrl,
path), shows the messages it should with their state, and afterwards
GetQueueAttributes, real receives and the in-flight message's lease show
that nothing the peeks touched changed. With --auth-file an unsigned peek is
refused, a signed one served, and --metrics-listen does not serve it.
"""

import hashlib
import itertools
import json
import os
import sys
import tempfile
import time
import urllib.parse
import xml.etree.ElementTree as ET

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import (Config, Lqsd, boto3, http_request, missing_client,  # noqa: E402
                          sigv4_headers, write_keys_file)

if boto3 is None:  # pragma: no cover
    missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)

ACCOUNT = "123456789012"
NS = "{http://queue.amazonaws.com/doc/2012-11-05/}"
LEASE_SECONDS = 10  # the in-flight message's visibility timeout


@pytest.fixture(scope="module")
def server():
    with Lqsd() as s:  # checks that it exits 0
        yield s


def client(server):
    return boto3.client(
        "sqs", endpoint_url=server.url, region_name="us-east-1",
        aws_access_key_id="lqsdtest", aws_secret_access_key="lqsdtest",
        config=Config(retries={"max_attempts": 1, "mode": "standard"}))


def peek_target(queue_url=None, path=None, **options):
    params = {} if queue_url is None else {"QueueUrl": queue_url}
    params.update({k: v for k, v in options.items() if v is not None})
    query = urllib.parse.urlencode(params)
    return "/_aws/sqs/messages" + (path or "") + ("?" + query if query else "")


# ---- The three answer formats, read into one shape --------------------------------------

def messages_from_xml(body):
    root = ET.fromstring(body)
    assert root.tag == NS + "ReceiveMessageResponse", body
    out = []
    for m in root.find(NS + "ReceiveMessageResult").findall(NS + "Message"):
        msg = {"MessageId": m.findtext(NS + "MessageId"),
               "ReceiptHandle": m.findtext(NS + "ReceiptHandle"),
               "MD5OfBody": m.findtext(NS + "MD5OfBody"),
               "Body": m.findtext(NS + "Body"),
               "Attributes": {a.findtext(NS + "Name"): a.findtext(NS + "Value")
                              for a in m.findall(NS + "Attribute")},
               "MessageAttributes": {
                   a.findtext(NS + "Name"): a.find(NS + "Value").findtext(NS + "StringValue")
                   for a in m.findall(NS + "MessageAttribute")}}
        out.append(msg)
    return out


def messages_from_query_json(body):
    doc = json.loads(body)
    result = doc["ReceiveMessageResponse"]["ReceiveMessageResult"]
    out = []
    for m in result.get("messages") or []:  # the legacy rendering spells it so
        msg = dict(m)
        msg["Attributes"] = {a["Name"]: a["Value"] for a in m.get("Attributes") or []}
        msg["MessageAttributes"] = {a["Name"]: a["Value"]["StringValue"]
                                    for a in m.get("MessageAttributes") or []}
        out.append(msg)
    return out


def messages_from_json_protocol(body):
    out = []
    for m in json.loads(body).get("Messages", []):
        msg = dict(m)
        msg.setdefault("Attributes", {})
        msg["MessageAttributes"] = {k: v["StringValue"]
                                    for k, v in (m.get("MessageAttributes") or {}).items()}
        out.append(msg)
    return out


FORMATS = {
    "xml": ({}, messages_from_xml),
    "query-json": ({"Accept": "application/json"}, messages_from_query_json),
    "json": ({"Content-Type": "application/x-amz-json-1.0"}, messages_from_json_protocol),
}


def peek(server, fmt="xml", **kwargs):
    headers, parse = FORMATS[fmt]
    status, _, body = http_request(server.host, server.port, "GET", peek_target(**kwargs),
                                   headers=headers)
    assert status == 200, body
    return parse(body)


# ---- The queue ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def queue(server):
    """One message of each state: "taken" (in flight for LEASE_SECONDS from
    `taken_at`), "waiting" (visible, with a message attribute) and "later"
    (delayed 120 s)."""
    sqs = client(server)
    url = sqs.create_queue(QueueName="peeked", Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="taken")
    got = sqs.receive_message(QueueUrl=url, VisibilityTimeout=LEASE_SECONDS,
                              AttributeNames=["All"])["Messages"]
    taken_at = time.monotonic()
    assert [m["Body"] for m in got] == ["taken"]
    sqs.send_message(QueueUrl=url, MessageBody="waiting",
                     MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}})
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=120)
    return {"sqs": sqs, "url": url, "taken_at": taken_at,
            "ids": {}, "attributes": counts(sqs, url)}


def counts(sqs, url):
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return {k: a[k] for k in ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
                              "ApproximateNumberOfMessagesDelayed")}


STATES = {"taken": (False, False), "waiting": (True, False), "later": (False, True)}
RECEIVES = {"taken": "1", "waiting": "0", "later": "0"}


def check_messages(messages, show_invisible, show_delayed):
    bodies = sorted(m["Body"] for m in messages)
    want = ["waiting"] + (["taken"] if show_invisible else []) + (["later"] if show_delayed else [])
    assert bodies == sorted(want), messages
    for m in messages:
        body = m["Body"]
        assert m["ReceiptHandle"] == "SQS/BACKDOOR/ACCESS"
        assert m["MD5OfBody"] == hashlib.md5(body.encode()).hexdigest()
        attrs = m["Attributes"]
        assert attrs["ApproximateReceiveCount"] == RECEIVES[body], m
        assert int(attrs["SentTimestamp"]) > 0
        visible, delayed = STATES[body]
        # LocalStack's state attributes: each only with its option.
        if show_invisible:
            assert attrs["IsVisible"] == ("true" if visible else "false"), m
        else:
            assert "IsVisible" not in attrs
        if show_delayed:
            assert attrs["IsDelayed"] == ("true" if delayed else "false"), m
        else:
            assert "IsDelayed" not in attrs
        assert m["MessageAttributes"] == ({"k": "v"} if body == "waiting" else {}), m


# ---- Tests (in file order: the last one consumes the queue) ------------------------------

OPTION_VALUES = [None, "true", "false"]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_option_combination(server, queue, fmt):
    for invisible, delayed in itertools.product(OPTION_VALUES, OPTION_VALUES):
        messages = peek(server, fmt, queue_url=queue["url"], ShowInvisible=invisible,
                        ShowDelayed=delayed)
        check_messages(messages, invisible == "true", delayed == "true")
        for m in messages:
            assert queue["ids"].setdefault(m["Body"], m["MessageId"]) == m["MessageId"]


def test_option_spellings_and_path_form(server, queue):
    for on in ("1", "TRUE", "True"):
        check_messages(peek(server, queue_url=queue["url"], ShowInvisible=on, ShowDelayed=on),
                       True, True)
    for off in ("0", "yes", ""):
        check_messages(peek(server, queue_url=queue["url"], ShowInvisible=off, ShowDelayed=off),
                       False, False)
    path = "/us-east-1/%s/peeked" % ACCOUNT
    check_messages(peek(server, path=path, ShowInvisible="true"), True, False)
    check_messages(peek(server, "json", path=path, ShowDelayed="true"), False, True)
    # POST with a form body, as LocalStack accepts it.
    status, _, body = http_request(
        server.host, server.port, "POST", "/_aws/sqs/messages",
        body=urllib.parse.urlencode({"QueueUrl": queue["url"], "ShowInvisible": "true",
                                     "ShowDelayed": "true"}),
        headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200, body
    check_messages(messages_from_xml(body), True, True)


def test_unknown_queue_is_the_sqs_error(server, queue):
    bad_url = queue["url"].rsplit("/", 1)[0] + "/nope"
    other_account = queue["url"].replace(ACCOUNT, "000000000000")
    for target in (peek_target(), peek_target(bad_url), peek_target(other_account),
                   peek_target(path="/us-east-1/%s/nope" % ACCOUNT),
                   peek_target(path="/us-east-1/000000000000/peeked"),
                   peek_target(path="/peeked")):
        status, headers, body = http_request(server.host, server.port, "GET", target)
        assert status == 400, (target, body)
        assert "<Code>AWS.SimpleQueueService.NonExistentQueue</Code>" in body, (target, body)
        status, _, body = http_request(server.host, server.port, "GET", target,
                                       headers={"Content-Type": "application/x-amz-json-1.0"})
        assert status == 400, (target, body)
        assert json.loads(body)["__type"].endswith("#QueueDoesNotExist"), body
        status, _, body = http_request(server.host, server.port, "GET", target,
                                       headers={"Accept": "application/json"})
        assert status == 400
        assert json.loads(body)["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"


def test_nothing_a_peek_touches_changes(server, queue):
    sqs, url = queue["sqs"], queue["url"]
    # The counts are those before any peek.
    assert counts(sqs, url) == queue["attributes"] == {
        "ApproximateNumberOfMessages": "1", "ApproximateNumberOfMessagesNotVisible": "1",
        "ApproximateNumberOfMessagesDelayed": "1"}
    assert time.monotonic() - queue["taken_at"] < LEASE_SECONDS - 0.5, "the test ran too slowly"
    # A real receive gets the visible message only, received for the first time:
    # the in-flight one is still leased and the delayed one still delayed.
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=60,
                              AttributeNames=["All"])["Messages"]
    assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in got] == [
        ("waiting", "1")]
    assert got[0]["MessageId"] == queue["ids"]["waiting"]
    # The in-flight message's lease ends when it would have without the peeks
    # (they neither ended nor extended it), and it comes back with one more
    # receive, not more.
    now = peek(server, queue_url=url, ShowInvisible="true")
    assert {m["Body"]: (m["Attributes"]["IsVisible"], m["Attributes"]["ApproximateReceiveCount"])
            for m in now} == {"taken": ("false", "1"), "waiting": ("false", "1")}, now
    left = queue["taken_at"] + LEASE_SECONDS - time.monotonic()
    assert left > 0
    again = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=int(left) + 3,
                                AttributeNames=["All"])["Messages"]
    assert time.monotonic() >= queue["taken_at"] + LEASE_SECONDS - 0.2
    assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in again] == [
        ("taken", "2")]
    assert again[0]["MessageId"] == queue["ids"]["taken"]
    assert counts(sqs, url) == {
        "ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "2",
        "ApproximateNumberOfMessagesDelayed": "1"}
    later = peek(server, "json", queue_url=url, ShowDelayed="true", ShowInvisible="true")
    assert {m["Body"]: m["Attributes"]["ApproximateReceiveCount"] for m in later} == {
        "taken": "2", "waiting": "1", "later": "0"}


# ---- --auth-file -------------------------------------------------------------------------

KEY, SECRET = "AKIDPEEK", "peek-test-secret"


def test_auth_file_refuses_unsigned_peeks():
    with tempfile.TemporaryDirectory() as tmp:
        keys = write_keys_file(tmp, KEY, SECRET)
        with Lqsd("--auth-file", keys, "--metrics-listen", "127.0.0.1:0") as s:
            sqs = boto3.client("sqs", endpoint_url=s.url, region_name="us-east-1",
                               aws_access_key_id=KEY, aws_secret_access_key=SECRET)
            url = sqs.create_queue(QueueName="secret")["QueueUrl"]
            sqs.send_message(QueueUrl=url, MessageBody="classified")
            target = peek_target(url, ShowInvisible="true", ShowDelayed="true")
            status, _, body = http_request(s.host, s.port, "GET", target)
            assert status == 403 and "<Code>MissingAuthenticationToken</Code>" in body, body
            assert "classified" not in body

            def signed(secret):
                headers = sigv4_headers("GET", s.url + target, KEY, secret)
                return http_request(s.host, s.port, "GET", target, headers=headers)

            status, _, body = signed("wrong")
            assert status == 403 and "SignatureDoesNotMatch" in body, body
            status, _, body = signed(SECRET)
            assert status == 200, body
            assert [m["Body"] for m in messages_from_xml(body)] == ["classified"]
            # The unauthenticated metrics listener does not serve message bodies.
            status, _, body = http_request(s.metrics_host, s.metrics_port, "GET", target)
            assert status == 404 and "classified" not in body
