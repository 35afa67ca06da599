"""lqs.client(): boto3's SQS client shape, checked against botocore's service model."""

import hashlib
import os
import sys

import pytest

import lqs
from lqs import _client

# tests/missing_client.py: a skip without botocore, a failure under CI.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests"))
import missing_client  # noqa: E402

botocore = missing_client.pytest_require("botocore")
import botocore.exceptions  # noqa: E402
import botocore.session  # noqa: E402
from botocore import xform_name  # noqa: E402

MODEL = botocore.session.get_session().get_service_model("sqs")


# ---- Checking a response against the model ---------------------------------------------

def check_shape(value, shape, path):
    t = shape.type_name
    if t == "structure":
        assert isinstance(value, dict), path
        for key in value:
            assert key in shape.members, f"{path}: {key} is not in the model's {shape.name}"
            check_shape(value[key], shape.members[key], f"{path}.{key}")
        for key in shape.required_members:
            # SQS leaves out an empty list or map even where the model
            # requires it (a batch's Failed when every entry succeeded).
            if shape.members[key].type_name in ("list", "map"):
                continue
            assert key in value, f"{path}: required {key} missing"
    elif t == "list":
        assert isinstance(value, list), path
        for i, item in enumerate(value):
            check_shape(item, shape.member, f"{path}[{i}]")
    elif t == "map":
        assert isinstance(value, dict), path
        for k, v in value.items():
            check_shape(k, shape.key, f"{path} key")
            check_shape(v, shape.value, f"{path}[{k}]")
    elif t == "string":
        assert isinstance(value, str), f"{path}: {value!r} is not a string"
        if shape.enum:
            assert value in shape.enum, path
    elif t in ("integer", "long"):
        assert isinstance(value, int) and not isinstance(value, bool), path
    elif t == "boolean":
        assert isinstance(value, bool), path
    elif t == "blob":
        assert isinstance(value, bytes), f"{path}: {value!r} is not bytes"
    else:  # pragma: no cover
        raise AssertionError(f"{path}: unexpected model type {t}")


def check(op_name, response):
    """Every key of the response is declared by the model's output shape for op_name
    (plus ResponseMetadata), with the model's types; required members are present
    (but for lists and maps, which SQS leaves out when empty)."""
    meta = response["ResponseMetadata"]
    assert meta["HTTPStatusCode"] == 200
    assert isinstance(meta["RequestId"], str) and meta["RequestId"]
    assert meta["RetryAttempts"] == 0 and isinstance(meta["HTTPHeaders"], dict)
    body = {k: v for k, v in response.items() if k != "ResponseMetadata"}
    if op_name not in MODEL.operation_names:
        pytest.skip(f"{op_name} is not in this botocore's model ({botocore.__version__})")
    output = MODEL.operation_model(op_name).output_shape
    if output is None:
        assert body == {}, op_name
    else:
        check_shape(body, output, op_name)
    return response


def md5(s):
    return hashlib.md5(s.encode()).hexdigest()


# ---- The scenario ---------------------------------------------------------------------

def test_every_action_matches_the_service_model(sqs, clock):
    checked = set()

    def call(method, **kwargs):
        op = sqs.meta.method_to_api_mapping[method]
        response = getattr(sqs, method)(**kwargs)
        if op in MODEL.operation_names:
            check(op, response)
            checked.add(op)
        return response

    url = call("create_queue", QueueName="jobs",
               Attributes={"VisibilityTimeout": "30"}, tags={"team": "core"})["QueueUrl"]
    assert url == "http://localhost:9324/123456789012/jobs"
    dlq_url = call("create_queue", QueueName="jobs-dlq")["QueueUrl"]
    assert call("get_queue_url", QueueName="jobs")["QueueUrl"] == url
    assert call("list_queues")["QueueUrls"] == [url, dlq_url]
    page = call("list_queues", QueueNamePrefix="jobs", MaxResults=1)
    assert page["QueueUrls"] == [url] and "NextToken" in page
    assert "QueueUrls" not in call("list_queues", QueueNamePrefix="zzz")

    dlq_arn = call("get_queue_attributes", QueueUrl=dlq_url,
                   AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    call("set_queue_attributes", QueueUrl=url, Attributes={
        "RedrivePolicy": f'{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":"2"}}'})
    attrs = call("get_queue_attributes", QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attrs["VisibilityTimeout"] == "30"
    assert "Attributes" not in call("get_queue_attributes", QueueUrl=url)
    assert call("list_dead_letter_source_queues", QueueUrl=dlq_url)["queueUrls"] == [url]
    assert "queueUrls" not in call("list_dead_letter_source_queues", QueueUrl=url)

    sent = call("send_message", QueueUrl=url, MessageBody="test", DelaySeconds=0,
                MessageAttributes={
                    "timestamp": {"DataType": "Number", "StringValue": "1493147359900"},
                    "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}},
                MessageSystemAttributes={
                    "AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1-abc"}})
    assert sent["MD5OfMessageBody"] == md5("test")
    assert "MD5OfMessageAttributes" in sent and "MD5OfMessageSystemAttributes" in sent
    assert "SequenceNumber" not in sent
    plain = call("send_message", QueueUrl=url, MessageBody="plain")
    assert "MD5OfMessageAttributes" not in plain
    # The digest SQS documents for one Number attribute (docs/sqs-reference.md §5.5).
    one = call("send_message", QueueUrl=url, MessageBody="test", MessageAttributes={
        "timestamp": {"DataType": "Number", "StringValue": "1493147359900"}})
    assert one["MD5OfMessageAttributes"] == "235c5c510d26fb653d073faed50ae77c"

    batch = call("send_message_batch", QueueUrl=url, Entries=[
        {"Id": "a", "MessageBody": "one"},
        {"Id": "b", "MessageBody": "\x01"},
        {"Id": "c", "MessageBody": "three", "DelaySeconds": 0,
         "MessageAttributes": {"k": {"DataType": "String", "StringValue": "v"}}}])
    assert [e["Id"] for e in batch["Successful"]] == ["a", "c"]
    assert batch["Failed"] == [{"Id": "b", "SenderFault": True,
                                "Code": "InvalidMessageContents",
                                "Message": batch["Failed"][0]["Message"]}]

    got = call("receive_message", QueueUrl=url, MaxNumberOfMessages=10,
               AttributeNames=["All"], MessageAttributeNames=["All"], VisibilityTimeout=60,
               WaitTimeSeconds=0)
    msgs = got["Messages"]
    assert len(msgs) == 5
    first = next(m for m in msgs if m["MessageId"] == sent["MessageId"])
    assert first["Body"] == "test" and first["MD5OfBody"] == md5("test")
    assert first["MessageAttributes"]["blob"] == {"BinaryValue": b"\x00\x01",
                                                  "DataType": "Binary"}
    assert first["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert first["Attributes"]["ApproximateReceiveCount"] == "1"
    assert first["Attributes"]["SentTimestamp"] == str(clock.now_millis())
    assert "MessageAttributes" not in next(m for m in msgs if m["Body"] == "plain")
    assert set(call("receive_message", QueueUrl=url)) == {"ResponseMetadata"}  # no Messages

    handles = [m["ReceiptHandle"] for m in msgs]
    call("change_message_visibility", QueueUrl=url, ReceiptHandle=handles[0],
         VisibilityTimeout=0)
    vis = call("change_message_visibility_batch", QueueUrl=url, Entries=[
        {"Id": "x", "ReceiptHandle": handles[1], "VisibilityTimeout": 10},
        {"Id": "y", "ReceiptHandle": handles[2]},
        {"Id": "z", "ReceiptHandle": "garbage", "VisibilityTimeout": 10}])
    assert vis["Successful"] == [{"Id": "x"}, {"Id": "y"}]
    assert vis["Failed"][0]["Code"] == "ReceiptHandleIsInvalid"
    call("delete_message", QueueUrl=url, ReceiptHandle=handles[0])
    deleted = call("delete_message_batch", QueueUrl=url, Entries=[
        {"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles[1:])])
    assert len(deleted["Successful"]) == 4 and "Failed" not in deleted
    none = call("delete_message_batch", QueueUrl=url, Entries=[{"Id": "g", "ReceiptHandle": "x"}])
    assert "Successful" not in none and none["Failed"][0]["Id"] == "g"

    call("tag_queue", QueueUrl=url, Tags={"env": "test"})
    assert call("list_queue_tags", QueueUrl=url)["Tags"] == {"team": "core", "env": "test"}
    call("untag_queue", QueueUrl=url, TagKeys=["team", "env"])
    assert "Tags" not in call("list_queue_tags", QueueUrl=url)
    call("add_permission", QueueUrl=url, Label="p1", AWSAccountIds=["111122223333"],
         Actions=["SendMessage"])
    call("remove_permission", QueueUrl=url, Label="p1")

    # Dead-letter: two receives past maxReceiveCount=2 move the message.
    call("send_message", QueueUrl=url, MessageBody="poison")
    for _ in range(2):
        assert len(call("receive_message", QueueUrl=url, VisibilityTimeout=1)["Messages"]) == 1
        clock.advance_seconds(2)
    assert "Messages" not in call("receive_message", QueueUrl=url)
    handle = call("start_message_move_task", SourceArn=dlq_arn,
                  MaxNumberOfMessagesPerSecond=5)["TaskHandle"]
    tasks = call("list_message_move_tasks", SourceArn=dlq_arn, MaxResults=10)["Results"]
    assert tasks[0]["Status"] == "RUNNING" and tasks[0]["TaskHandle"] == handle
    assert tasks[0]["MaxNumberOfMessagesPerSecond"] == 5
    assert call("cancel_message_move_task",
                TaskHandle=handle)["ApproximateNumberOfMessagesMoved"] >= 0

    call("purge_queue", QueueUrl=url)
    call("delete_queue", QueueUrl=dlq_url)
    call("delete_queue", QueueUrl=url)
    assert "QueueUrls" not in call("list_queues")

    # Every operation of this botocore's model was exercised and checked.
    assert checked == set(MODEL.operation_names)


def test_client_has_every_boto3_method(sqs):
    for op in MODEL.operation_names:
        assert callable(getattr(sqs, xform_name(op))), op
    # ... and matches a real boto3 client's SQS methods, when boto3 is installed.
    boto3 = missing_client.pytest_require("boto3")
    real = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x",
                        aws_secret_access_key="x")
    for op in real.meta.service_model.operation_names:
        assert callable(getattr(sqs, xform_name(op)))
    assert sqs.can_paginate("list_queues") == real.can_paginate("list_queues")


@pytest.mark.parametrize("call,code,status,exc_name", [
    (lambda s, u: s.get_queue_url(QueueName="nope"),
     "AWS.SimpleQueueService.NonExistentQueue", 400, "QueueDoesNotExist"),
    (lambda s, u: s.send_message(QueueUrl=u.replace("/q", "/nope"), MessageBody="x"),
     "AWS.SimpleQueueService.NonExistentQueue", 400, "QueueDoesNotExist"),
    (lambda s, u: s.receive_message(QueueUrl=u, MaxNumberOfMessages=11),
     "InvalidParameterValue", 400, None),
    (lambda s, u: s.send_message(QueueUrl=u, MessageBody=""),
     "MissingParameter", 400, None),
    (lambda s, u: s.delete_message(QueueUrl=u, ReceiptHandle="garbage"),
     "ReceiptHandleIsInvalid", 404, "ReceiptHandleIsInvalid"),
    (lambda s, u: s.send_message_batch(QueueUrl=u, Entries=[]),
     "AWS.SimpleQueueService.EmptyBatchRequest", 400, "EmptyBatchRequest"),
    (lambda s, u: s.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "31"}),
     "QueueAlreadyExists", 400, "QueueNameExists"),
    (lambda s, u: s.get_queue_attributes(QueueUrl=u, AttributeNames=["Bogus"]),
     "InvalidAttributeName", 400, "InvalidAttributeName"),
    (lambda s, u: s.cancel_message_move_task(TaskHandle="bad"),
     "InvalidParameterValue", 400, None),
])
def test_errors_are_client_errors_shaped_like_boto3(sqs, call, code, status, exc_name):
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        call(sqs, url)
    err = e.value.response["Error"]
    assert err["Code"] == code
    assert err["Type"] == "Sender"
    assert isinstance(err["Message"], str) and err["Message"]
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert e.value.operation_name
    assert str(e.value).startswith(f"An error occurred ({code})")
    if exc_name is not None and hasattr(sqs.exceptions, exc_name):
        assert isinstance(e.value, getattr(sqs.exceptions, exc_name))


def test_purge_twice_is_403(sqs):
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.purge_queue(QueueUrl=url)
    with pytest.raises(sqs.exceptions.PurgeQueueInProgress) as e:
        sqs.purge_queue(QueueUrl=url)
    assert e.value.response["Error"]["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_parameter_validation_like_botocore(sqs):
    with pytest.raises(botocore.exceptions.ParamValidationError):
        sqs.send_message(MessageBody="x")  # no QueueUrl
    with pytest.raises(botocore.exceptions.ParamValidationError):
        sqs.send_message(QueueUrl="u", MessageBody="x", Bogus=1)
    with pytest.raises(botocore.exceptions.ParamValidationError):
        sqs.send_message(QueueUrl="u", MessageBody="x", DelaySeconds="5")
    with pytest.raises(botocore.exceptions.ParamValidationError):
        sqs.delete_message_batch(QueueUrl="u", Entries=[{"Id": "a"}])
    with pytest.raises(TypeError):
        sqs.list_queues("positional")


def _check_against_botocore(spec, shape, where):
    """`spec` ((required, optional) as lqs.client() checks them) says what botocore's
    structure `shape` says: the same members required, and each member botocore knows
    of the same type, in the same order. (An older botocore may lack a member or an
    action that SQS added later.)"""
    def code(member):
        if member.type_name == "string":
            return "s"
        if member.type_name == "integer":
            return "i"
        if member.type_name == "map":
            return "a" if member.value.type_name == "structure" else "m"
        return "e" if member.member.type_name == "structure" else "l"

    required, ours, required_names, string_members = spec
    assert list(required) == list(shape.required_members), where
    assert required_names == set(required), where
    assert string_members == {n for n, k in ours.items() if k == "s"}, where
    assert {n: code(m) for n, m in shape.members.items()} == {
        n: ours.get(n) for n in shape.members}, where
    assert [n for n in ours if n in shape.members] == list(shape.members), where


def test_parameter_table_is_botocores():
    # lqs.client() checks parameters against lqsd's action model
    # (server/action_model.h); it must say what botocore's SQS model says.
    assert set(MODEL.operation_names) <= set(_client._OPS)
    for op in MODEL.operation_names:
        shape = MODEL.operation_model(op).input_shape
        _check_against_botocore(_client._OPS[op], shape, op)
        entries = shape.members.get("Entries")
        if entries is not None:
            _check_against_botocore(_client._ENTRIES[op], entries.member, op + ".Entries")
    assert sorted(_client._ENTRIES) == [
        "ChangeMessageVisibilityBatch", "DeleteMessageBatch", "SendMessageBatch"]


def test_queue_urls_and_paginators(tmp_path, clock):
    sqs = lqs.client(str(tmp_path / "db"), endpoint_url="http://example:1234/", clock=clock,
                     account_id="000000000000")
    urls = [sqs.create_queue(QueueName=f"q{i}")["QueueUrl"] for i in range(5)]
    assert urls[0] == "http://example:1234/000000000000/q0"
    # Any URL whose path ends in /<account>/<name> addresses the queue.
    sqs.send_message(QueueUrl="https://sqs.us-east-1.amazonaws.com/000000000000/q1",
                     MessageBody="x")
    with pytest.raises(botocore.exceptions.ClientError):
        sqs.send_message(QueueUrl="http://example:1234/111111111111/q1", MessageBody="x")
    pages = list(sqs.get_paginator("list_queues").paginate(PaginationConfig={"PageSize": 2}))
    assert [len(p["QueueUrls"]) for p in pages] == [2, 2, 1]
    full = sqs.get_paginator("list_queues").paginate().build_full_result()
    assert full["QueueUrls"] == urls
    sqs.close()
    assert os.path.isdir(tmp_path / "db")  # a given path is kept


def test_temporary_database_is_removed_on_close():
    sqs = lqs.client()
    path = sqs.broker.path
    assert os.path.isdir(path)
    sqs.close()
    sqs.close()
    assert not os.path.exists(path)


def code_written_for_boto3(client, queue_name):
    """A consumer written against boto3, unchanged."""
    url = client.create_queue(QueueName=queue_name)["QueueUrl"]
    client.send_message_batch(QueueUrl=url, Entries=[
        {"Id": str(i), "MessageBody": f"job {i}"} for i in range(3)])
    done = []
    while True:
        resp = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
        if "Messages" not in resp:
            break
        for m in resp["Messages"]:
            done.append(m["Body"])
            client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    try:
        client.get_queue_url(QueueName="missing")
    except client.exceptions.QueueDoesNotExist:
        done.append("missing")
    return sorted(done)


def test_boto3_code_runs_unchanged(sqs):
    assert code_written_for_boto3(sqs, "work") == ["job 0", "job 1", "job 2", "missing"]


def test_client_answers_as_lqsd_does(tmp_path):
    """lqs.client() runs each action through lqsd's own request handling, in
    process: the same queue-URL rules, validation order and errors as boto3
    gets from lqsd over HTTP."""
    boto3 = pytest.importorskip("boto3")
    from botocore.config import Config

    local = lqs.client(str(tmp_path / "local"))
    server = lqs.Server(str(tmp_path / "served"))
    remote = boto3.client("sqs", endpoint_url=server.url, region_name="us-east-1",
                          aws_access_key_id="x", aws_secret_access_key="x",
                          config=Config(retries={"max_attempts": 1}))
    try:
        calls = [
            lambda s, u: s.send_message(QueueUrl=u, MessageBody="x", DelaySeconds=901),
            lambda s, u: s.receive_message(QueueUrl=u, WaitTimeSeconds=21),
            lambda s, u: s.receive_message(QueueUrl=u, MaxNumberOfMessages=0),
            lambda s, u: s.change_message_visibility(QueueUrl=u, ReceiptHandle="bad",
                                                     VisibilityTimeout=1),
            lambda s, u: s.get_queue_url(QueueName="missing"),
            lambda s, u: s.send_message(QueueUrl=u + "-missing", MessageBody="x"),
            lambda s, u: s.send_message(QueueUrl="http://h/111111111111/q", MessageBody="x"),
            lambda s, u: s.set_queue_attributes(QueueUrl=u, Attributes={"DelaySeconds": "x"}),
            lambda s, u: s.tag_queue(QueueUrl=u, Tags={}),
            lambda s, u: s.send_message(QueueUrl=u, MessageBody="x", MessageAttributes={
                "a": {"DataType": "Binary", "StringValue": "not binary"}}),
        ]
        answers = []
        for sqs in (local, remote):
            url = sqs.create_queue(QueueName="q")["QueueUrl"]
            seen = []
            for call in calls:
                with pytest.raises(botocore.exceptions.ClientError) as e:
                    call(sqs, url)
                err = e.value.response["Error"]
                seen.append((err["Code"], e.value.response["ResponseMetadata"]["HTTPStatusCode"],
                             err["Message"] if MODEL.protocol == "json" else None))
            # The router's lenient rule: a bare queue name is a QueueUrl too.
            sqs.send_message(QueueUrl="q", MessageBody="bare",
                             MessageAttributes={"b": {"DataType": "Binary",
                                                      "BinaryValue": b"\x00\xff"}})
            got = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"]
            seen.append((got[0]["Body"], got[0]["MessageAttributes"]["b"]["BinaryValue"],
                         got[0]["MD5OfMessageAttributes"]))
            answers.append(seen)
        assert answers[0] == answers[1]
    finally:
        remote.close()
        server.close()
        local.close()


# ---- The fast path (bindings/python/src/client_codec.h) ---------------------------------

class _PythonPathOnly:
    """A LocalCaller that declines every fast call, so the client checks and encodes in
    Python."""

    def __init__(self, caller):
        self._caller = caller

    def call_with_params(self, action, params):
        return None

    def call(self, action, json_input):
        return self._caller.call(action, json_input)


def _comparable(response):
    """A response without what differs from database to database."""
    out = {k: v for k, v in response.items() if k != "ResponseMetadata"}
    for key in ("MessageId", "ReceiptHandle", "QueueUrl"):
        out.pop(key, None)
    for key in ("Successful", "Messages"):
        if key in out:
            out[key] = [{k: v for k, v in item.items()
                         if k not in ("MessageId", "ReceiptHandle", "Attributes")}
                        for item in out[key]]
    return out


def _outcome(sqs, method, kwargs):
    try:
        return _comparable(getattr(sqs, method)(**kwargs))
    except Exception as e:  # noqa: BLE001 - the comparison is of what was raised
        return (type(e).__name__, str(e))


def test_fast_path_answers_as_the_python_path():
    fast, slow = lqs.client(), lqs.client()
    slow._caller = _PythonPathOnly(slow._caller)
    try:
        calls = []
        for sqs in (fast, slow):
            url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "60"},
                                   tags={"team": "a"})["QueueUrl"]
            attrs = {"b": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
                     "ba": {"DataType": "Binary", "BinaryValue": bytearray(b"\x01")},
                     "bs": {"DataType": "Binary", "BinaryValue": "text as blob"},
                     "n": {"DataType": "Number", "StringValue": "12"},
                     "s": {"DataType": "String", "StringValue": "caf\u00e9 \u2603 \"q\"\n"}}
            calls.append([_outcome(sqs, m, kw) for m, kw in [
                ("send_message", dict(QueueUrl=url, MessageBody="x", MessageAttributes=attrs,
                                      MessageSystemAttributes={"AWSTraceHeader": {
                                          "DataType": "String", "StringValue": "Root=1"}})),
                ("send_message", dict(QueueUrl=url, MessageBody="lone \ud800 surrogate")),
                ("send_message", dict(QueueUrl=url, MessageBody=5)),
                ("send_message", dict(QueueUrl=url, MessageBody="x", DelaySeconds=True)),
                ("send_message", dict(QueueUrl=url, MessageBody="x", DelaySeconds=2**70)),
                ("send_message", dict(QueueUrl=url, MessageBody="x", Unknown="y")),
                ("send_message", dict(QueueUrl=url)),
                ("send_message", dict(QueueUrl=url + "-missing", MessageBody="x")),
                ("send_message", dict(QueueUrl=url, MessageBody="x",
                                      MessageAttributes={"a": {"StringValue": "no type"}})),
                ("send_message_batch", dict(QueueUrl=url, Entries=[
                    {"Id": "1", "MessageBody": "one", "DelaySeconds": 0},
                    {"Id": "2", "MessageBody": "\x01"},
                    {"Id": "3", "MessageBody": "three", "MessageAttributes": attrs}])),
                ("send_message_batch", dict(QueueUrl=url, Entries=[{"Id": "1"}])),
                ("send_message_batch", dict(QueueUrl=url, Entries=["not a dict"])),
                ("receive_message", dict(QueueUrl=url, MaxNumberOfMessages=10,
                                         MessageAttributeNames=["All"], WaitTimeSeconds=0)),
                ("tag_queue", dict(QueueUrl=url, Tags={"k": 1})),
                ("list_queues", dict(QueueNamePrefix="q")),
            ]])
        assert calls[0] == calls[1]
        received = calls[0][12]["Messages"]
        assert sorted(m["MessageAttributes"]["b"]["BinaryValue"] for m in received
                      if "MessageAttributes" in m) == [b"\x00\xff", b"\x00\xff"]
    finally:
        fast.close()
        slow.close()


def test_fast_path_declines_what_python_must_judge():
    sqs = lqs.client()
    try:
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        call = sqs._caller.call_with_params
        status, _, _, document = call("SendMessage", {"QueueUrl": url, "MessageBody": "x"})
        assert status == 200 and document["MD5OfMessageBody"] == md5("x")
        for params in ({"QueueUrl": url, "MessageBody": 5},
                       {"QueueUrl": url, "MessageBody": "\ud800"},
                       {"QueueUrl": url, "MessageBody": "x", "DelaySeconds": False},
                       {"QueueUrl": url, "MessageBody": "x", "DelaySeconds": 2**64},
                       {"QueueUrl": url, "MessageBody": "x", "Other": "y"},
                       {"QueueUrl": url},
                       {"QueueUrl": url, "MessageBody": "x", "MessageAttributes": {
                           "a": {"DataType": "Binary", "BinaryValue": memoryview(b"x")}}},
                       {"QueueUrl": url, "MessageBody": "x", "MessageAttributes": {
                           "a": {"StringValue": "v"}}}):
            assert call("SendMessage", params) is None, params
        assert call("NoSuchAction", {}) is None
        assert call("SendMessageBatch", {"QueueUrl": url, "Entries": [5]}) is None
        assert call("GetQueueUrl", {"QueueName": "q"})[3]["QueueUrl"] == url
    finally:
        sqs.close()
