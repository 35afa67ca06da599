"""Wire-level tests of lqsd with raw HTTP: both protocols' shapes, routing,
errors, escaping, limits, keep-alive, SigV4, and shutdown.

Run with /usr/bin/python3 -m pytest (Debian's boto3 1.26 is used for SigV4).
"""

import hashlib
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import Lqsd, signed_for  # noqa: E402

ACCOUNT = "123456789012"
NS = "http://queue.amazonaws.com/doc/2012-11-05/"
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


class Resp:
    def __init__(self, r):
        self.status = r.status
        self.headers = {k.lower(): v for k, v in r.getheaders()}
        self.raw = r.read()
        self.text = self.raw.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.raw)


class Client:
    def __init__(self, server):
        self.server = server

    def request(self, method, path, body=b"", headers=None):
        conn = http.client.HTTPConnection(self.server.host, self.server.port, timeout=30)
        try:
            if isinstance(body, str):
                body = body.encode()
            conn.request(method, path, body=body, headers=headers or {})
            return Resp(conn.getresponse())
        finally:
            conn.close()

    def query(self, params, path="/", method="POST", headers=None):
        body = urllib.parse.urlencode(params)
        if method == "GET":
            return self.request("GET", path + "?" + body, headers=headers)
        h = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
        h.update(headers or {})
        return self.request("POST", path, body, h)

    def json(self, action, payload, path="/", headers=None):
        h = {"X-Amz-Target": "AmazonSQS." + action, "Content-Type": "application/x-amz-json-1.0",
             "x-amzn-query-mode": "true"}
        h.update(headers or {})
        body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
        return self.request("POST", path, body, h)


@pytest.fixture(scope="module")
def server():
    s = Lqsd("--max-body-bytes", "65536")
    yield s
    assert s.stop() == 0


@pytest.fixture(scope="module")
def c(server):
    return Client(server)


def queue_url(server, name, account=ACCOUNT):
    return "http://%s:%d/%s/%s" % (server.host, server.port, account, name)


def create(c, name):
    r = c.json("CreateQueue", {"QueueName": name})
    assert r.status == 200, r.text
    return r.json()["QueueUrl"]


def assert_request_id(r):
    rid = r.headers.get("x-amzn-requestid")
    assert rid and UUID_RE.fullmatch(rid), r.headers
    return rid


# ---- Query protocol ------------------------------------------------------------------

def test_query_success_shape(c, server):
    r = c.query({"Action": "CreateQueue", "QueueName": "pq1", "Version": "2012-11-05"})
    assert r.status == 200
    assert r.headers["content-type"] == "text/xml"
    rid = assert_request_id(r)
    assert r.text == (
        '<?xml version="1.0"?><CreateQueueResponse xmlns="%s"><CreateQueueResult>'
        "<QueueUrl>%s</QueueUrl></CreateQueueResult><ResponseMetadata><RequestId>%s"
        "</RequestId></ResponseMetadata></CreateQueueResponse>" % (NS, queue_url(server, "pq1"),
                                                                   rid))
    # Without Version, and by GET.
    r = c.query({"Action": "GetQueueUrl", "QueueName": "pq1"}, method="GET")
    assert r.status == 200 and queue_url(server, "pq1") in r.text
    # An action without output: only ResponseMetadata.
    r = c.query({"Action": "SetQueueAttributes", "QueueUrl": queue_url(server, "pq1"),
                 "Attribute.1.Name": "DelaySeconds", "Attribute.1.Value": "0"})
    assert r.status == 200
    assert "<SetQueueAttributesResponse xmlns=\"%s\"><ResponseMetadata>" % NS in r.text
    assert "Result" not in r.text


def test_query_error_shape(c):
    r = c.query({"Action": "GetQueueUrl", "QueueName": "nope"})
    assert r.status == 400
    rid = assert_request_id(r)
    assert r.text == (
        '<?xml version="1.0"?><ErrorResponse xmlns="%s"><Error><Type>Sender</Type>'
        "<Code>AWS.SimpleQueueService.NonExistentQueue</Code>"
        "<Message>The specified queue does not exist for this wsdl version.</Message>"
        "<Detail/></Error><RequestId>%s</RequestId></ErrorResponse>" % (NS, rid))


def test_query_cr_is_escaped_and_roundtrips(c, server):
    url = create(c, "pq-cr")
    body = "a\r\nb\rc <&> \"q\" \U0001F600"
    r = c.query({"Action": "SendMessage", "QueueUrl": url, "MessageBody": body,
                 "MessageAttribute.1.Name": "s", "MessageAttribute.1.Value.DataType": "String",
                 "MessageAttribute.1.Value.StringValue": "x\ry"})
    assert r.status == 200, r.text
    md5 = hashlib.md5(body.encode()).hexdigest()
    assert "<MD5OfMessageBody>%s</MD5OfMessageBody>" % md5 in r.text
    r = c.query({"Action": "ReceiveMessage", "QueueUrl": url, "MessageAttributeName.1": "All"})
    assert r.status == 200
    assert "<Body>a&#xD;\nb&#xD;c &lt;&amp;&gt; &quot;q&quot; \U0001F600</Body>" in r.text, r.text
    assert "<StringValue>x&#xD;y</StringValue>" in r.text
    assert "<MD5OfBody>%s</MD5OfBody>" % md5 in r.text
    # An XML parser gets the body back byte for byte.
    import xml.etree.ElementTree as ET
    root = ET.fromstring(r.raw)
    assert root.find(".//{%s}Body" % NS).text == body


def test_query_empty_receive(c):
    url = create(c, "pq-empty")
    r = c.query({"Action": "ReceiveMessage", "QueueUrl": url})
    assert "<ReceiveMessageResult/>" in r.text


def test_query_routing_by_path(c, server):
    q1, q2 = create(c, "route1"), create(c, "route2")
    path1 = "/%s/route1" % ACCOUNT
    # GET on the queue URL, queue from the path.
    r = c.query({"Action": "SendMessage", "MessageBody": "by-path"}, path=path1, method="GET")
    assert r.status == 200, r.text
    # QueueUrl wins over the path.
    r = c.query({"Action": "SendMessage", "MessageBody": "by-param", "QueueUrl": q2}, path=path1)
    assert r.status == 200
    r = c.json("ReceiveMessage", {"QueueUrl": q2})
    assert [m["Body"] for m in r.json()["Messages"]] == ["by-param"]
    r = c.json("ReceiveMessage", {"QueueUrl": q1})
    assert [m["Body"] for m in r.json()["Messages"]] == ["by-path"]
    # Non-queue actions on a queue path are refused; GetQueueUrl is allowed.
    r = c.query({"Action": "CreateQueue", "QueueName": "x"}, path=path1)
    assert r.status == 400 and "<Code>InvalidAction</Code>" in r.text
    assert "The action CreateQueue is not valid for this endpoint." in r.text
    r = c.query({"Action": "ListQueues"}, path=path1)
    assert r.status == 400 and "<Code>InvalidAction</Code>" in r.text
    r = c.query({"Action": "GetQueueUrl", "QueueName": "route2"}, path=path1)
    assert r.status == 200 and q2 in r.text
    # GET on a queue URL without Action.
    r = c.request("GET", path1)
    assert r.status == 404 and "<UnknownOperationException" in r.text
    # Unknown action.
    r = c.query({"Action": "Frobnicate"})
    assert r.status == 400 and "<Code>InvalidAction</Code>" in r.text
    assert "The action Frobnicate is not valid for this endpoint." in r.text
    # POST without Action.
    r = c.query({"QueueName": "x"})
    assert r.status == 400 and "<Code>MissingAction</Code>" in r.text
    # DeleteQueue as a GET on the queue path.
    r = c.query({"Action": "DeleteQueue"}, path="/%s/route1" % ACCOUNT, method="GET")
    assert r.status == 200
    r = c.query({"Action": "GetQueueUrl", "QueueName": "route1"})
    assert r.status == 400


def test_query_answers_in_json_when_json_is_accepted(c, server):
    # docs/sqs-reference.md §11.7, as AWS-validated tests observe it: the document as
    # JSON, flattened maps as lists of Name/Value entries.
    url = create(c, "pq-json")
    path = "/%s/pq-json" % ACCOUNT
    accept = {"Accept": "application/json"}
    r = c.query({"Action": "GetQueueAttributes", "AttributeName.1": "All"}, path=path,
                method="GET", headers=accept)
    assert r.status == 200 and r.headers["content-type"] == "application/json"
    rid = assert_request_id(r)
    doc = r.json()["GetQueueAttributesResponse"]
    assert doc["ResponseMetadata"] == {"RequestId": rid}
    attributes = {a["Name"]: a["Value"] for a in doc["GetQueueAttributesResult"]["Attributes"]}
    assert attributes["QueueArn"] == "arn:aws:sqs:us-east-1:%s:pq-json" % ACCOUNT
    assert attributes["VisibilityTimeout"] == "30"
    # Errors: {"Error": {...}, "RequestId"}, with the query protocol's codes.
    r = c.query({"Action": "ListQueues"}, path=path, method="GET", headers=accept)
    assert r.status == 400 and r.headers["content-type"] == "application/json"
    rid = assert_request_id(r)
    assert r.json() == {"Error": {"Type": "Sender", "Code": "InvalidAction",
                                  "Message": "The action ListQueues is not valid for this "
                                             "endpoint."},
                        "RequestId": rid}
    # A GET without Action stays the bare XML document.
    r = c.request("GET", path, headers=accept)
    assert r.status == 404 and "<UnknownOperationException" in r.text
    # POST too, and any Accept list naming application/json (case and
    # parameters aside); message attributes and system attributes as lists.
    r = c.query({"Action": "SendMessage", "QueueUrl": url, "MessageBody": "j",
                 "MessageAttribute.1.Name": "k", "MessageAttribute.1.Value.DataType": "String",
                 "MessageAttribute.1.Value.StringValue": "v"},
                headers={"Accept": "text/html, Application/JSON;q=0.9"})
    assert r.status == 200
    sent = r.json()["SendMessageResponse"]["SendMessageResult"]
    assert sent["MD5OfMessageBody"] == hashlib.md5(b"j").hexdigest()
    r = c.query({"Action": "ReceiveMessage", "QueueUrl": url, "AttributeName.1": "All",
                 "MessageAttributeName.1": "All"}, headers=accept)
    # AWS names the list "messages" here (LocalStack's AWS-validated
    # test_marker_serialization_json_protocol).
    result = r.json()["ReceiveMessageResponse"]["ReceiveMessageResult"]
    assert list(result) == ["messages"], result
    [m] = result["messages"]
    assert m["MessageId"] == sent["MessageId"] and m["Body"] == "j"
    assert m["MessageAttributes"] == [{"Name": "k", "Value": {"StringValue": "v",
                                                              "DataType": "String"}}]
    assert {a["Name"] for a in m["Attributes"]} >= {"SentTimestamp", "ApproximateReceiveCount"}
    r = c.query({"Action": "ReceiveMessage", "QueueUrl": url}, headers=accept)
    assert r.json()["ReceiveMessageResponse"]["ReceiveMessageResult"] == {}
    # Actions without output: only ResponseMetadata. Other Accept values: XML.
    r = c.query({"Action": "DeleteMessage", "QueueUrl": url, "ReceiptHandle": m["ReceiptHandle"]},
                headers=accept)
    assert list(r.json()["DeleteMessageResponse"]) == ["ResponseMetadata"]
    for other in ("application/xml", "application/jsonx", "*/*"):
        r = c.query({"Action": "GetQueueUrl", "QueueName": "pq-json"}, headers={"Accept": other})
        assert r.status == 200 and r.headers["content-type"] == "text/xml", other


def test_query_fifo_parameters_are_mapped(c):
    url = create(c, "pq-fifo-params")
    # Mapped through (the library rejects them on a standard queue, naming them).
    r = c.query({"Action": "SendMessage", "QueueUrl": url, "MessageBody": "x",
                 "MessageDeduplicationId": "d1"})
    assert r.status == 400 and "MessageDeduplicationId" in r.text, r.text
    r = c.query({"Action": "SendMessageBatch", "QueueUrl": url,
                 "SendMessageBatchRequestEntry.1.Id": "a",
                 "SendMessageBatchRequestEntry.1.MessageBody": "x",
                 "SendMessageBatchRequestEntry.1.MessageGroupId": "bad group id \u00e9"})
    assert "MessageGroupId" in r.text, r.text
    r = c.query({"Action": "ReceiveMessage", "QueueUrl": url,
                 "ReceiveRequestAttemptId": "bad attempt id \u00e9"})
    assert r.status == 400 and "ReceiveRequestAttemptId" in r.text, r.text
    r = c.json("SendMessage", {"QueueUrl": url, "MessageBody": "x",
                               "MessageDeduplicationId": "d1"})
    assert r.status == 400 and "MessageDeduplicationId" in r.json()["message"]
    r = c.json("ReceiveMessage", {"QueueUrl": url, "ReceiveRequestAttemptId": "\u00e9"})
    assert r.status == 400 and "ReceiveRequestAttemptId" in r.json()["message"]
    # A group id on a standard queue is stored and returned (fair queues).
    r = c.query({"Action": "SendMessage", "QueueUrl": url, "MessageBody": "g",
                 "MessageGroupId": "tenant"})
    assert r.status == 200
    r = c.query({"Action": "ReceiveMessage", "QueueUrl": url,
                 "MessageSystemAttributeName.1": "MessageGroupId"})
    assert "<Attribute><Name>MessageGroupId</Name><Value>tenant</Value></Attribute>" in r.text


def test_query_malformed_parameters(c):
    url = create(c, "pq-bad")
    r = c.query({"Action": "ReceiveMessage", "QueueUrl": url, "MaxNumberOfMessages": "ten"})
    assert r.status == 400 and "<Code>InvalidParameterValue</Code>" in r.text
    r = c.query({"Action": "SendMessage", "QueueUrl": url, "MessageBody": "x",
                 "MessageAttribute.1.Name": "b", "MessageAttribute.1.Value.DataType": "Binary",
                 "MessageAttribute.1.Value.BinaryValue": "not base64!"})
    assert r.status == 400 and "<Code>InvalidParameterValue</Code>" in r.text
    r = c.request("POST", "/", "%%%&&&==Action=%zz",
                  {"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status == 400


# ---- JSON protocol -------------------------------------------------------------------

def test_json_success_and_empty_shapes(c, server):
    r = c.json("CreateQueue", {"QueueName": "pj1", "Attributes": {"VisibilityTimeout": "60"},
                               "tags": {"team": "core"}})
    assert r.status == 200
    assert r.headers["content-type"] == "application/x-amz-json-1.0"
    assert_request_id(r)
    url = r.json()["QueueUrl"]
    assert url == queue_url(server, "pj1")
    assert c.json("ListQueueTags", {"QueueUrl": url}).json() == {"Tags": {"team": "core"}}
    # No messages: "Messages" absent.
    r = c.json("ReceiveMessage", {"QueueUrl": url})
    assert r.status == 200 and r.json() == {}
    # Batches: an empty Successful or Failed is left out.
    r = c.json("SendMessageBatch", {"QueueUrl": url, "Entries": [
        {"Id": "a", "MessageBody": "x"}]})
    out = r.json()
    assert list(out) == ["Successful"] and out["Successful"][0]["Id"] == "a"
    assert set(out["Successful"][0]) == {"Id", "MessageId", "MD5OfMessageBody"}
    r = c.json("SendMessageBatch", {"QueueUrl": url, "Entries": [
        {"Id": "b", "MessageBody": "bad \x01"}]})
    out = r.json()
    assert list(out) == ["Failed"] and out["Failed"][0]["Code"] == "InvalidMessageContents"
    r = c.json("ReceiveMessage", {"QueueUrl": url})
    handle = r.json()["Messages"][0]["ReceiptHandle"]
    r = c.json("ChangeMessageVisibilityBatch", {"QueueUrl": url, "Entries": [
        {"Id": "a", "ReceiptHandle": handle, "VisibilityTimeout": 60}]})
    assert r.json() == {"Successful": [{"Id": "a"}]}
    r = c.json("ChangeMessageVisibilityBatch", {"QueueUrl": url, "Entries": [
        {"Id": "a", "ReceiptHandle": "garbage", "VisibilityTimeout": 60}]})
    out = r.json()
    assert list(out) == ["Failed"] and out["Failed"][0]["Code"] == "ReceiptHandleIsInvalid"
    r = c.json("DeleteMessageBatch", {"QueueUrl": url, "Entries": [
        {"Id": "a", "ReceiptHandle": "garbage"}]})
    out = r.json()
    assert "Successful" not in out
    assert out["Failed"] == [{"Id": "a", "SenderFault": True, "Code": "ReceiptHandleIsInvalid",
                              "Message": out["Failed"][0]["Message"]}]
    r = c.json("DeleteMessageBatch", {"QueueUrl": url, "Entries": [
        {"Id": "a", "ReceiptHandle": handle}]})
    assert r.json() == {"Successful": [{"Id": "a"}]}
    # ListDeadLetterSourceQueues (lower-case queueUrls) and ListMessageMoveTasks with
    # nothing to list: no queueUrls, no Results.
    assert c.json("ListDeadLetterSourceQueues", {"QueueUrl": url}).json() == {}
    arn = c.json("GetQueueAttributes", {"QueueUrl": url, "AttributeNames": ["QueueArn"]}
                 ).json()["Attributes"]["QueueArn"]
    r = c.json("ListMessageMoveTasks", {"SourceArn": arn})
    assert r.status == 200 and r.json() == {}, r.text
    # The query protocol still lists its entries.
    r = c.query({"Action": "SendMessageBatch", "QueueUrl": url,
                 "SendMessageBatchRequestEntry.1.Id": "q",
                 "SendMessageBatchRequestEntry.1.MessageBody": "x"})
    assert r.status == 200
    assert "<SendMessageBatchResult><SendMessageBatchResultEntry><Id>q</Id>" in r.text, r.text
    assert "BatchResultErrorEntry" not in r.text
    # Operations without output answer {}.
    r = c.json("TagQueue", {"QueueUrl": url, "Tags": {"a": "b"}})
    assert r.status == 200 and r.json() == {}
    # No tags: "Tags" absent; no attribute names: "Attributes" absent.
    url2 = create(c, "pj2")
    assert c.json("ListQueueTags", {"QueueUrl": url2}).json() == {}
    assert c.json("GetQueueAttributes", {"QueueUrl": url2}).json() == {}
    # ListQueues with a prefix that matches nothing.
    assert c.json("ListQueues", {"QueueNamePrefix": "zzz"}).json() == {}
    # Binary attributes are base64 both ways.
    r = c.json("SendMessage", {"QueueUrl": url2, "MessageBody": "b", "MessageAttributes": {
        "bin": {"DataType": "Binary", "BinaryValue": "AAE="}}})
    assert r.status == 200
    m = c.json("ReceiveMessage", {"QueueUrl": url2, "MessageAttributeNames": ["All"]}).json()
    assert m["Messages"][0]["MessageAttributes"] == {
        "bin": {"BinaryValue": "AAE=", "DataType": "Binary"}}


def test_json_errors(c, server):
    r = c.json("GetQueueUrl", {"QueueName": "nope"})
    assert r.status == 400
    assert_request_id(r)
    assert r.headers["x-amzn-query-error"] == "AWS.SimpleQueueService.NonExistentQueue;Sender"
    assert r.json() == {"__type": "com.amazonaws.sqs#QueueDoesNotExist",
                        "message": "The specified queue does not exist."}
    url = create(c, "pj-err")
    r = c.json("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 11})
    assert r.status == 400
    assert r.headers["x-amzn-query-error"] == "InvalidParameterValue;Sender"
    assert r.json()["__type"] == "com.amazon.coral.service#InvalidParameterValueException"
    r = c.json("SendMessage", {"QueueUrl": url})
    assert r.headers["x-amzn-query-error"] == "MissingParameter;Sender"
    assert r.json()["message"] == "The request must contain the parameter MessageBody."
    r = c.json("DeleteMessage", {"QueueUrl": url, "ReceiptHandle": "garbage"})
    assert r.status == 404 and r.json()["__type"] == "com.amazonaws.sqs#ReceiptHandleIsInvalid"
    r = c.json("PurgeQueue", {"QueueUrl": url})
    assert r.status == 200
    r = c.json("PurgeQueue", {"QueueUrl": url})
    assert r.status == 403
    assert r.headers["x-amzn-query-error"] == "AWS.SimpleQueueService.PurgeQueueInProgress;Sender"
    assert r.json()["__type"] == "com.amazonaws.sqs#PurgeQueueInProgress"
    r = c.json("CreateQueue", {"QueueName": "pj-err", "Attributes": {"DelaySeconds": "5"}})
    assert r.json()["__type"] == "com.amazonaws.sqs#QueueNameExists"
    assert r.headers["x-amzn-query-error"] == "QueueAlreadyExists;Sender"
    # Unknown target, malformed bodies, wrong member types.
    r = c.json("Frobnicate", {})
    assert r.status == 400 and r.json()["__type"].endswith("#UnknownOperationException")
    assert "x-amzn-query-error" in r.headers
    r = c.json("ListQueues", "{not json")
    assert r.status == 400 and r.json()["__type"].endswith("#SerializationException")
    r = c.json("ListQueues", "[1,2]")
    assert r.status == 400 and r.json()["__type"].endswith("#SerializationException")
    r = c.json("ListQueues", b'{"QueueNamePrefix": "\xff\xfe"}')
    assert r.status == 400 and r.json()["__type"].endswith("#SerializationException")
    r = c.json("ListQueues", {"QueueNamePrefix": 5})
    assert r.status == 400 and r.json()["__type"].endswith("#SerializationException")
    r = c.json("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 99999999999})
    assert r.status == 400 and r.headers["x-amzn-query-error"] == "InvalidParameterValue;Sender"
    # An empty body is an empty input.
    r = c.json("ListQueues", b"")
    assert r.status == 200


def test_json_on_queue_path_and_foreign_hosts(c, server):
    url = create(c, "pj-path")
    r = c.json("SendMessage", {"MessageBody": "via path"}, path="/%s/pj-path" % ACCOUNT)
    assert r.status == 200, r.text
    # The host in QueueUrl is ignored; another account names no queue.
    r = c.json("ReceiveMessage", {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/%s/pj-path" % ACCOUNT})
    assert r.json()["Messages"][0]["Body"] == "via path"
    r = c.json("ReceiveMessage", {"QueueUrl": queue_url(server, "pj-path", "000000000000")})
    assert r.status == 400 and r.json()["__type"] == "com.amazonaws.sqs#QueueDoesNotExist"
    # Queue URLs follow the Host header.
    r = c.json("GetQueueUrl", {"QueueName": "pj-path"}, headers={"Host": "sqs.local:4566"})
    assert r.json()["QueueUrl"] == "http://sqs.local:4566/%s/pj-path" % ACCOUNT
    # The X-Amzn-Trace-Id header becomes AWSTraceHeader.
    c.json("PurgeQueue", {"QueueUrl": url})
    r = c.json("SendMessage", {"QueueUrl": url, "MessageBody": "traced"},
               headers={"X-Amzn-Trace-Id": "Root=1-abc"})
    assert "MD5OfMessageSystemAttributes" in r.json()
    m = c.json("ReceiveMessage", {"QueueUrl": url, "MessageSystemAttributeNames": ["All"]}).json()
    assert m["Messages"][0]["Attributes"]["AWSTraceHeader"] == "Root=1-abc"


# ---- HTTP ----------------------------------------------------------------------------

def raw_exchange(server, data, read_timeout=5):
    s = socket.create_connection((server.host, server.port), timeout=read_timeout)
    try:
        s.sendall(data)
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
    finally:
        s.close()


def query_code(r):
    m = re.search(r"<Code>([^<]*)</Code>", r.text)
    return m.group(1) if m else None


@pytest.mark.parametrize("protocol", ["json", "query"])
def test_visibility_change_after_the_lease_ended_and_at_the_12_hour_mark(c, protocol):
    # AWS answers 200 (never MessageNotInflight) to a change for a message
    # whose lease ran out and which nobody received since; and 43,200 s right
    # after the receive is within the 12-hour budget (whole seconds).
    url = create(c, "cmv-" + protocol)
    assert c.json("SendMessage", {"QueueUrl": url, "MessageBody": "x"}).status == 200

    def receive(visibility):
        r = c.json("ReceiveMessage", {"QueueUrl": url, "VisibilityTimeout": visibility})
        assert r.status == 200, r.text
        return r.json()["Messages"][0]["ReceiptHandle"]

    def change(handle, seconds):
        if protocol == "json":
            return c.json("ChangeMessageVisibility", {"QueueUrl": url, "ReceiptHandle": handle,
                                                      "VisibilityTimeout": seconds})
        return c.query({"Action": "ChangeMessageVisibility", "QueueUrl": url,
                        "ReceiptHandle": handle, "VisibilityTimeout": str(seconds)})

    handle = receive(0)  # a lease that ended at once: the message is visible again
    r = change(handle, 30)
    assert r.status == 200, r.text
    assert c.json("ReceiveMessage", {"QueueUrl": url}).json() == {}  # leased again
    r = change(handle, 0)
    assert r.status == 200, r.text
    handle = receive(30)
    r = change(handle, 43200)
    assert r.status == 200, r.text
    r = change(handle, 43201)
    assert r.status == 400 and "VisibilityTimeout" in r.text, r.text


def test_lone_surrogate_escapes_are_invalid_characters(c, server):
    url = create(c, "surrogates")

    def send(body_json):
        return c.json("SendMessage", '{"QueueUrl":"%s","MessageBody":%s}' % (url, body_json))

    for lone in (r'"broken \ud83d pair"', r'"\udc00"', r'"end \ud800"', r'"\ud800\ud800"'):
        r = send(lone)
        assert r.status == 400, (lone, r.text)
        assert r.json()["__type"].endswith("#InvalidMessageContents"), (lone, r.text)
    # A pair, and the six characters "\ud83d" after an escaped backslash, are fine.
    for ok, text in ((r'"pair \ud83d\ude00"', "pair \U0001F600"),
                     (r'"text \\ud83d"', "text \\ud83d")):
        r = send(ok)
        assert r.status == 200, (ok, r.text)
        got = c.json("ReceiveMessage", {"QueueUrl": url}).json()["Messages"][0]
        assert got["Body"] == text
        c.json("DeleteMessage", {"QueueUrl": url, "ReceiptHandle": got["ReceiptHandle"]})
    # In a String attribute value it is an invalid character there (SQS's code
    # for those is InvalidParameterValue); in a queue name, an invalid name.
    r = c.json("SendMessage", '{"QueueUrl":"%s","MessageBody":"b","MessageAttributes":'
               '{"a":{"DataType":"String","StringValue":"\\ud800"}}}' % url)
    assert r.status == 400 and "InvalidParameterValue" in r.json()["__type"], r.text
    assert "attribute 'a' contains invalid characters" in r.json()["message"], r.text
    r = c.json("CreateQueue", r'{"QueueName":"q\udfff"}')
    assert r.status == 400 and "InvalidParameterValue" in r.json()["__type"], r.text
    # The same character over the query protocol can only arrive as invalid
    # UTF-8 (a surrogate's three bytes): the same error.
    r = c.request("POST", "/", b"Action=SendMessage&QueueUrl=" +
                  urllib.parse.quote(url, safe="").encode() + b"&MessageBody=broken%ED%A0%BDpair",
                  {"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status == 400 and query_code(r) == "InvalidMessageContents", r.text


@pytest.mark.parametrize("protocol", ["json", "query"])
def test_long_poll_on_a_queue_deleted_during_the_wait(c, server, protocol):
    # A receive waiting when its queue is deleted ends at once with no
    # messages; the next receive gets QueueDoesNotExist. The delete must
    # come after the receive parked: an attempt where it came first (the
    # receive then fails at once) is tried again on a new queue.
    for attempt in range(5):
        url = create(c, "deleted-while-waiting-%s-%d" % (protocol, attempt))
        result = {}

        def poll():
            if protocol == "json":
                result["r"] = c.json("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})
            else:
                result["r"] = c.query({"Action": "ReceiveMessage", "QueueUrl": url,
                                       "WaitTimeSeconds": "20"})

        t = threading.Thread(target=poll)
        started = time.time()
        t.start()
        time.sleep(0.3)  # let it park (not a timeout: the delete ends the wait)
        assert c.json("DeleteQueue", {"QueueUrl": url}).status == 200
        t.join(15)
        assert not t.is_alive(), "the deletion did not end the long poll"
        r = result["r"]
        if r.status == 400 and "NonExistentQueue" in r.text:
            continue  # the delete won the race with the receive; try again
        assert r.status == 200, r.text
        assert time.time() - started < 10
        if protocol == "json":
            assert r.json() == {}
        else:
            assert "<ReceiveMessageResult/>" in r.text, r.text
        later = c.json("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 1})
        assert later.status == 400 and "QueueDoesNotExist" in later.json()["__type"], later.text
        return
    pytest.fail("every receive came after its queue's deletion")


def test_limits_and_malformed_http(c, server):
    big = "x" * 70000
    r = c.query({"Action": "SendMessage", "MessageBody": big})
    assert r.status == 413
    assert "<Code>RequestEntityTooLarge</Code>" in r.text
    assert_request_id(r)
    r = c.json("SendMessage", {"MessageBody": big})
    assert r.status == 413 and r.json()["__type"].endswith("#RequestEntityTooLarge")
    out = raw_exchange(server, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 +
                       b"\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 431"), out[:100]
    out = raw_exchange(server, b"THIS IS NOT HTTP\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 400"), out[:100]
    out = raw_exchange(server, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 400"), out[:100]
    # A client that disconnects mid-body does not disturb the server.
    s = socket.create_connection((server.host, server.port))
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nAction=")
    s.close()
    assert c.json("ListQueues", {}).status == 200


def test_keep_alive_and_expect_continue(server):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    for i in range(20):
        conn.request("POST", "/", body="Action=ListQueues",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        r = conn.getresponse()
        r.read()
        assert r.status == 200
    sock = conn.sock
    conn.request("POST", "/", body="Action=ListQueues",
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    r = conn.getresponse()
    r.read()
    assert conn.sock is sock  # the same connection throughout
    conn.close()

    s = socket.create_connection((server.host, server.port), timeout=5)
    body = b"Action=ListQueues"
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
              b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
    first = s.recv(4096)
    assert first.startswith(b"HTTP/1.1 100"), first
    s.sendall(body)
    rest = b""
    while b"</ListQueuesResponse>" not in rest:
        chunk = s.recv(65536)
        assert chunk
        rest += chunk
    assert b"200 OK" in rest
    s.close()


def json_request(action, payload):
    body = json.dumps(payload).encode()
    return (b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: AmazonSQS." + action.encode() +
            b"\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n"
            % len(body) + body)


def read_responses(s, count):
    """The bodies of `count` HTTP responses read from socket s (Content-Length framed)."""
    data, bodies = b"", []
    while len(bodies) < count:
        head_end = data.find(b"\r\n\r\n")
        if head_end >= 0:
            head = data[:head_end].decode()
            m = re.search(r"^Content-Length: (\d+)$", head, re.M | re.I)
            end = head_end + 4 + int(m.group(1))
            if len(data) >= end:
                assert head.startswith("HTTP/1.1 200"), head
                bodies.append(json.loads(data[head_end + 4:end]))
                data = data[end:]
                continue
        chunk = s.recv(65536)
        assert chunk, "connection closed after %d of %d responses" % (len(bodies), count)
        data += chunk
    return bodies


def test_requests_however_they_arrive(c, server):
    # However a request's bytes arrive, it is answered: many in one segment,
    # one byte per segment, a body many times the receive buffer's first size
    # (which grows), and a request that arrives while the one before it is
    # parked in a long poll.
    url = create(c, "arrivals")
    send = json_request("SendMessage", {"QueueUrl": url, "MessageBody": "m"})
    s = socket.create_connection((server.host, server.port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # 300 requests pipelined in one write: answered in order.
    s.sendall(b"".join(json_request("SendMessage", {"QueueUrl": url, "MessageBody": "p%d" % i})
                       for i in range(300)))
    bodies = read_responses(s, 300)
    assert [b["MD5OfMessageBody"] for b in bodies] == [
        hashlib.md5(b"p%d" % i).hexdigest() for i in range(300)]
    # One byte per write.
    for byte in send:
        s.send(bytes([byte]))
    assert "MessageId" in read_responses(s, 1)[0]
    # A body larger than the receive buffer's first size, then a small one.
    big = "b" * 60000
    s.sendall(json_request("SendMessage", {"QueueUrl": url, "MessageBody": big}) + send)
    bodies = read_responses(s, 2)
    assert bodies[0]["MD5OfMessageBody"] == hashlib.md5(big.encode()).hexdigest()
    # A request sent while the one before it is parked in a long poll: it
    # arrives while nothing reads the socket, and is answered after the poll.
    empty = create(c, "arrivals-poll")
    s.sendall(json_request("ReceiveMessage", {"QueueUrl": empty, "WaitTimeSeconds": 20}))
    time.sleep(0.3)  # parked
    s.sendall(json_request("GetQueueUrl", {"QueueName": "arrivals-poll"}))
    time.sleep(0.3)  # the second request has arrived and waits
    assert c.json("SendMessage", {"QueueUrl": empty, "MessageBody": "wake"}).status == 200
    bodies = read_responses(s, 2)
    assert [m["Body"] for m in bodies[0]["Messages"]] == ["wake"]
    assert bodies[1]["QueueUrl"].endswith("/%s/arrivals-poll" % ACCOUNT)
    s.close()


def receive_answers(c):
    """ReceiveMessage responses with status 200 so far (GET /metrics)."""
    r = c.request("GET", "/metrics")
    m = re.search(r'^lqsd_requests_total\{action="ReceiveMessage",status="200"\} (\d+)$',
                  r.text, re.M)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize("how", ["close", "reset"])
def test_disconnect_mid_long_poll_withdraws_the_receive(c, server, how):
    # A client that goes away during a long poll must not leave a parked
    # receive behind that leases the next message for nobody (it would stay
    # invisible for the visibility timeout): lqsd cancels the receive when
    # the connection closes, so a message sent afterwards is immediately
    # receivable by another client, on its first delivery.
    name = "disconnect-" + how
    url = create(c, name)
    before = receive_answers(c)
    s = socket.create_connection((server.host, server.port), timeout=5)
    body = json.dumps({"QueueUrl": url, "WaitTimeSeconds": 20, "MaxNumberOfMessages": 10}).encode()
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: AmazonSQS.ReceiveMessage\r\n"
              b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n"
              % len(body) + body)
    time.sleep(0.2)  # parked (the order does not matter: a request read before the close parks first)
    if how == "reset":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()
    # The withdrawn receive is answered (with no messages, to nobody) at once,
    # not after its 20 s wait.
    deadline = time.time() + 10
    while receive_answers(c) < before + 1:
        assert time.time() < deadline, "the abandoned long poll was not withdrawn"
        time.sleep(0.02)
    r = c.json("SendMessage", {"QueueUrl": url, "MessageBody": "after the disconnect"})
    assert r.status == 200, r.text
    r = c.json("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 0, "MaxNumberOfMessages": 10,
                                  "MessageSystemAttributeNames": ["ApproximateReceiveCount"]})
    assert r.status == 200, r.text
    msgs = r.json().get("Messages", [])
    assert [m["Body"] for m in msgs] == ["after the disconnect"]
    assert msgs[0]["Attributes"]["ApproximateReceiveCount"] == "1"


def test_long_poll_on_a_kept_connection_still_answers(c, server):
    # The close watch does not disturb a long poll whose client stays: it is
    # answered by the send, and the connection serves the next request.
    url = create(c, "watch-keeps")
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    h = {"X-Amz-Target": "AmazonSQS.ReceiveMessage", "Content-Type": "application/x-amz-json-1.0"}
    result = {}

    def poll():
        conn.request("POST", "/", body=json.dumps({"QueueUrl": url, "WaitTimeSeconds": 10}),
                     headers=h)
        result["r"] = Resp(conn.getresponse())

    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.2)
    assert c.json("SendMessage", {"QueueUrl": url, "MessageBody": "hello"}).status == 200
    t.join(15)
    assert result["r"].status == 200
    assert [m["Body"] for m in result["r"].json()["Messages"]] == ["hello"]
    sock = conn.sock
    conn.request("POST", "/", body=json.dumps({"QueueUrl": url}),
                 headers={"X-Amz-Target": "AmazonSQS.GetQueueAttributes",
                          "Content-Type": "application/x-amz-json-1.0"})
    r = Resp(conn.getresponse())
    assert r.status == 200
    assert conn.sock is sock
    conn.close()


# ---- SigV4 ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def auth_server():
    with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
        f.write("# test keys\nAKIDLQSDTEST wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n")
        path = f.name
    s = Lqsd("--auth-file", path)
    yield s
    assert s.stop() == 0
    os.unlink(path)


def boto_client(server, key="AKIDLQSDTEST", secret="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                unsigned=False):
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config
    cfg = Config(retries={"max_attempts": 1, "mode": "standard"},
                 signature_version=UNSIGNED if unsigned else None)
    return boto3.client("sqs", endpoint_url=server.url, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret, config=cfg)


def error_of(fn, **kw):
    from botocore.exceptions import ClientError
    try:
        fn(**kw)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    return None


def test_sigv4_query(auth_server):
    good = boto_client(auth_server)
    url = good.create_queue(QueueName="signed")["QueueUrl"]
    good.send_message(QueueUrl=url, MessageBody="signed body \r\n")
    assert good.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "signed body \r\n"
    assert error_of(boto_client(auth_server, secret="wrong").list_queues) == \
        ("SignatureDoesNotMatch", 403)
    assert error_of(boto_client(auth_server, key="AKIDUNKNOWN").list_queues) == \
        ("InvalidClientTokenId", 403)
    assert error_of(boto_client(auth_server, unsigned=True).list_queues) == \
        ("MissingAuthenticationToken", 403)
    # A presigned URL (query-string SigV4). botocore signs SQS's method, POST,
    # with the parameters moved into the URL and an empty body.
    presigned = good.generate_presigned_url("list_queues", Params={"QueueNamePrefix": "sig"})
    parsed = urllib.parse.urlsplit(presigned)
    assert "X-Amz-Signature=" in parsed.query
    r = Client(auth_server).request("POST", parsed.path + "?" + parsed.query)
    assert r.status == 200 and "signed" in r.text, r.text
    tampered = parsed.query.replace("QueueNamePrefix=sig", "QueueNamePrefix=si")
    r = Client(auth_server).request("POST", parsed.path + "?" + tampered)
    assert r.status == 403 and "<Code>SignatureDoesNotMatch</Code>" in r.text


def test_sigv4_json_and_malformed(auth_server):
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    def signed(body, secret="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", tamper=False):
        req = AWSRequest(method="POST", url=auth_server.url + "/", data=body, headers={
            "X-Amz-Target": "AmazonSQS.ListQueues",
            "Content-Type": "application/x-amz-json-1.0"})
        SigV4Auth(Credentials("AKIDLQSDTEST", secret), "sqs", "us-east-1").add_auth(req)
        headers = dict(req.headers.items())
        data = body + " " if tamper else body
        return Client(auth_server).request("POST", "/", data, headers)

    r = signed('{"QueueNamePrefix": "signed"}')
    assert r.status == 200, r.text
    r = signed('{"QueueNamePrefix": "signed"}', tamper=True)
    assert r.status == 403
    assert r.headers["x-amzn-query-error"] == "SignatureDoesNotMatch;Sender"
    r = signed("{}", secret="wrong")
    assert r.status == 403 and r.headers["x-amzn-query-error"] == "SignatureDoesNotMatch;Sender"
    r = Client(auth_server).json("ListQueues", {}, headers={
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDLQSDTEST/garbage"})
    assert r.status == 400 and r.headers["x-amzn-query-error"] == "IncompleteSignature;Sender"
    r = Client(auth_server).json("ListQueues", {})
    assert r.status == 403
    assert r.headers["x-amzn-query-error"] == "MissingAuthenticationToken;Sender"
    r = Client(auth_server).query({"Action": "ListQueues"})
    assert r.status == 403 and "<Code>MissingAuthenticationToken</Code>" in r.text


# ---- Process ---------------------------------------------------------------------------

def test_account_id_flag():
    with Lqsd("--account-id", "000000000000", "--region", "eu-west-1") as s:
        c = Client(s)
        url = create(c, "acct")
        assert url == "http://%s:%d/000000000000/acct" % (s.host, s.port)
        arn = c.json("GetQueueAttributes", {"QueueUrl": url, "AttributeNames": ["QueueArn"]})
        assert arn.json()["Attributes"]["QueueArn"] == "arn:aws:sqs:eu-west-1:000000000000:acct"


def test_regions_keep_their_queues_apart(tmp_path):
    data = str(tmp_path / "db")
    s = Lqsd("--data", data, stderr=subprocess.PIPE)
    c = Client(s)
    base = "http://%s:%d" % (s.host, s.port)
    home = create(c, "r")
    eu = c.json("CreateQueue", {"QueueName": "r"}, headers=signed_for("eu-west-1")).json()
    assert home == base + "/%s/r" % ACCOUNT
    assert eu["QueueUrl"] == base + "/queue/eu-west-1/%s/r" % ACCOUNT
    # The region of a queue path or URL wins over the signature (here: none).
    r = c.query({"Action": "SendMessage", "MessageBody": "via-path"},
                path="/queue/eu-west-1/%s/r" % ACCOUNT, method="GET")
    assert r.status == 200, r.text
    r = c.json("SendMessage", {"QueueUrl": eu["QueueUrl"], "MessageBody": "via-url"})
    assert r.status == 200, r.text
    assert c.json("ReceiveMessage", {"QueueUrl": home}).json() == {}
    assert c.json("ListQueues", {}).json()["QueueUrls"] == [home]
    r = c.query({"Action": "ListQueues"}, headers=signed_for("eu-west-1"))
    assert eu["QueueUrl"] in r.text and home not in r.text
    # A credential scope that is no region name is refused.
    r = c.query({"Action": "ListQueues"}, headers=signed_for("EU-WEST-1"))
    assert r.status == 400 and "<Code>IncompleteSignature</Code>" in r.text, r.text
    assert "'EU-WEST-1' is not a region name" in r.text
    assert s.stop() == 0
    log = s.proc.stderr.read().decode()
    assert "region eu-west-1: database %s/regions/eu-west-1" % data in log, log

    # Each region's messages survive a restart, in their own database.
    with Lqsd("--data", data) as s2:
        c2 = Client(s2)
        url = c2.json("GetQueueUrl", {"QueueName": "r"},
                      headers=signed_for("eu-west-1")).json()["QueueUrl"]
        got = c2.json("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10}).json()
        assert sorted(m["Body"] for m in got["Messages"]) == ["via-path", "via-url"]

    # --single-region: every region shares the default region's queues.
    with Lqsd("--data", data, "--single-region") as s3:
        c3 = Client(s3)
        r = c3.json("GetQueueUrl", {"QueueName": "r"}, headers=signed_for("eu-west-1"))
        assert r.json()["QueueUrl"] == "http://%s:%d/%s/r" % (s3.host, s3.port, ACCOUNT)
        r = c3.json("ListQueues", {}, headers=signed_for("EU-WEST-1"))
        assert r.status == 200, r.text

    # --max-regions counts the default region: 2 serves one other region.
    with Lqsd("--data", data, "--max-regions", "2") as s4:
        c4 = Client(s4)
        assert c4.json("ListQueues", {}, headers=signed_for("eu-west-1")).status == 200
        r = c4.json("ListQueues", {}, headers=signed_for("ap-south-1"))
        assert r.status == 403 and r.json()["__type"].endswith("OverLimit"), r.text
        assert "serves 2 regions, its limit" in r.json()["message"]


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def test_busy_polling_stops_when_requests_stop():
    """With the longest window lqsd takes (10 ms), a burst of back-to-back
    requests makes the I/O thread poll between them; once they stop, it goes
    to sleep: an idle lqsd uses no CPU."""
    with Lqsd("--busy-poll-us", "10000", "--threads", "1", stderr=subprocess.PIPE) as s:
        c = Client(s)
        url = create(c, "burst")
        for i in range(300):
            assert c.json("SendMessage", {"QueueUrl": url, "MessageBody": str(i)}).status == 200
        time.sleep(0.2)  # past the window: the thread sleeps
        before = cpu_seconds(s.proc.pid)
        time.sleep(1.0)
        idle = cpu_seconds(s.proc.pid) - before
        assert idle < 0.2, "idle lqsd used %.2f s of CPU in 1 s" % idle
        r = c.json("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10})
        assert len(r.json()["Messages"]) == 10
    log = s.proc.stderr.read().decode()
    assert "1 I/O thread (busy polling up to 10000 us)" in log, log
    with Lqsd("--busy-poll-us", "0", stderr=subprocess.PIPE) as s:
        assert Client(s).json("ListQueues", {}).status == 200
    assert "busy polling" not in s.proc.stderr.read().decode()


def test_shutdown_answers_long_polls_and_keeps_data(tmp_path):
    data = str(tmp_path / "db")
    s = Lqsd("--data", data)
    c = Client(s)
    url = create(c, "durable")
    assert c.json("SendMessage", {"QueueUrl": url, "MessageBody": "kept"}).status == 200
    empty = create(c, "waiting")
    results = []

    def poll():
        results.append(c.json("ReceiveMessage", {"QueueUrl": empty, "WaitTimeSeconds": 20}))

    threads = [threading.Thread(target=poll) for _ in range(5)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    start = time.time()
    assert s.stop() == 0
    for t in threads:
        t.join(10)
    assert time.time() - start < 5
    assert [r.status for r in results] == [200] * 5
    assert all(r.json() == {} for r in results)

    with Lqsd("--data", data) as s2:
        c2 = Client(s2)
        url2 = c2.json("GetQueueUrl", {"QueueName": "durable"}).json()["QueueUrl"]
        m = c2.json("ReceiveMessage", {"QueueUrl": url2}).json()
        assert m["Messages"][0]["Body"] == "kept"


def test_temporary_database_is_removed():
    s = Lqsd(stderr=subprocess.PIPE)
    c = Client(s)
    create(c, "tmpq")
    assert s.stop() == 0
    err = s.proc.stderr.read().decode()
    m = re.search(r"database (\S+) \(temporary\)", err)
    assert m, err
    assert not os.path.exists(m.group(1))


def test_cli_errors():
    from lqsd_harness import lqsd_binary
    r = subprocess.run([lqsd_binary(), "--region", "Not/A/Region"], capture_output=True)
    assert r.returncode == 2 and b"--region must be" in r.stderr
    r = subprocess.run([lqsd_binary(), "--listen", "nonsense"], capture_output=True)
    assert r.returncode == 2 and b"--listen" in r.stderr
    r = subprocess.run([lqsd_binary(), "--auth-file", "/nonexistent/keys"], capture_output=True)
    assert r.returncode == 2
    # Every bad command line exits 2, CLI11's own checks too.
    for bad in (["--max-regions", "0"], ["--durability", "sometimes"], ["--threads", "x"],
                ["--busy-poll-us", "-1"], ["--busy-poll-us", "10001"], ["--no-such-flag"]):
        r = subprocess.run([lqsd_binary()] + bad, capture_output=True)
        assert r.returncode == 2 and r.stderr, (bad, r.returncode, r.stderr)
    r = subprocess.run([lqsd_binary(), "--help"], capture_output=True)
    assert r.returncode == 0 and b"--data" in r.stdout
    r = subprocess.run([lqsd_binary(), "--version"], capture_output=True)
    assert r.returncode == 0 and r.stdout.startswith(b"lqsd "), r
    # A port in use.
    with Lqsd() as s:
        r = subprocess.run([lqsd_binary(), "--listen", "127.0.0.1:%d" % s.port],
                           capture_output=True, timeout=30)
        assert r.returncode != 0 and b"cannot listen" in r.stderr


# ---- Robustness ------------------------------------------------------------------------

def test_random_requests_never_crash(c, server):
    """Bounded random inputs over both protocols: every request gets an SQS
    answer (no 5xx, no dropped connection) and the server keeps serving."""
    import random
    rng = random.Random(1234)
    url = create(c, "fuzz")
    actions = ["CreateQueue", "DeleteQueue", "GetQueueUrl", "ListQueues", "GetQueueAttributes",
               "SetQueueAttributes", "PurgeQueue", "SendMessage", "SendMessageBatch",
               "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility",
               "ChangeMessageVisibilityBatch", "TagQueue", "UntagQueue", "ListQueueTags",
               "AddPermission", "RemovePermission", "ListDeadLetterSourceQueues",
               "StartMessageMoveTask", "CancelMessageMoveTask", "ListMessageMoveTasks"]
    keys = ["QueueUrl", "QueueName", "MessageBody", "DelaySeconds", "MaxNumberOfMessages",
            "WaitTimeSeconds", "VisibilityTimeout", "ReceiptHandle", "Label", "TaskHandle",
            "SourceArn", "MaxResults", "NextToken", "Attribute.1.Name", "Attribute.1.Value",
            "Attribute.x.Name", "AttributeName.1", "AttributeName.99999999999999999999",
            "MessageAttribute.1.Name", "MessageAttribute.1.Value.DataType",
            "MessageAttribute.1.Value.StringValue", "MessageAttribute.1.Value.BinaryValue",
            "SendMessageBatchRequestEntry.1.Id", "SendMessageBatchRequestEntry.1.MessageBody",
            "SendMessageBatchRequestEntry.2..Id", "DeleteMessageBatchRequestEntry.1.Id",
            "Tag.1.Key", "Tag.1.Value", "TagKey.1", "AWSAccountId.1", "ActionName.1", "...", ".",
            "Entries", "MessageAttributeName"]
    values = ["", "0", "-1", "20", "21", "99999999999999999999", "abc", url, "\r\n", "\x00",
              "\xff", "%zz", "All", ".*", "String", "Binary", "Number", "AAE=", "!!",
              "x" * 300, "arn:aws:sqs:us-east-1:%s:fuzz" % ACCOUNT]
    json_values = [None, True, 0, -5, 2 ** 40, 1.5, "", "x", [], {}, ["All"], {"a": "b"},
                   {"a": {"DataType": "String", "StringValue": "v"}}, [{"Id": "a"}], [1, 2],
                   url]
    for i in range(400):
        action = rng.choice(actions)
        if i % 2:
            params = {"Action": action}
            for _ in range(rng.randint(0, 6)):
                params[rng.choice(keys)] = rng.choice(values)
            r = c.query(params, method=rng.choice(["GET", "POST"]),
                        path=rng.choice(["/", "/%s/fuzz" % ACCOUNT, "/x/y/z"]))
        else:
            payload = {rng.choice(keys).split(".")[0]: rng.choice(json_values)
                       for _ in range(rng.randint(0, 6))}
            if rng.random() < 0.3:
                payload["QueueUrl"] = url
            r = c.json(action, payload)
        assert r.status in (200, 400, 403, 404), (action, r.status, r.text)
        assert_request_id(r)
    assert c.json("ListQueues", {}).status == 200


def test_hostile_bodies_are_refused_quickly(c):
    start = time.time()
    r = c.json("ListQueues", "[" * 30000 + "]" * 30000)
    assert r.status == 400 and r.json()["__type"].endswith("#SerializationException")
    many = "{" + ",".join('"k%d":1' % i for i in range(5000)) + "}"
    r = c.json("ListQueues", many)
    assert r.status == 400 and r.json()["__type"].endswith("#SerializationException")
    r = c.request("POST", "/", "&".join("p%d=x" % i for i in range(6000)) + "&Action=ListQueues",
                  {"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status == 400 and "<Code>MalformedQueryString</Code>" in r.text
    assert time.time() - start < 5
