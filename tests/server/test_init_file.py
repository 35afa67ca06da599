"""lqsd --init FILE: queues created at startup (server/init_file.h).

Run with /usr/bin/python3 (Debian's boto3). Starts lqsd on a database with an
init file and checks with boto3 the queues, their attributes, redrive
policies and tags; restarts it (idempotent; the file's values win over
values changed since); and starts it with bad files, each of which must stop
lqsd with exit 2, a message naming the file, the queue and the parameter, and
no queue created.
"""

import json
import os
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import Lqsd, boto3, lqsd_binary, require_lqsd_and_boto3  # noqa: E402

require_lqsd_and_boto3()

ACCOUNT = "123456789012"
REGION = "us-east-1"

GOOD = {
    "queues": [
        # The source before its dead-letter queue: lqsd orders them.
        {"name": "jobs",
         "attributes": {"VisibilityTimeout": 60,
                        "RedrivePolicy": {"deadLetterTargetQueue": "jobs-dlq",
                                          "maxReceiveCount": 5}},
         "tags": {"team": "core"}},
        {"name": "jobs-dlq", "attributes": {"MessageRetentionPeriod": "1209600"}},
        {"name": "orders-dlq.fifo"},
        {"name": "orders.fifo",
         "attributes": {"ContentBasedDeduplication": True,
                        "RedrivePolicy": json.dumps({
                            "deadLetterTargetArn":
                                "arn:aws:sqs:%s:%s:orders-dlq.fifo" % (REGION, ACCOUNT),
                            "maxReceiveCount": "3"})}},
    ]
}


def write(directory, name, content):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content, indent=2))
    return path


def client(server):
    return boto3.client("sqs", endpoint_url=server.url, region_name=REGION,
                        aws_access_key_id="x", aws_secret_access_key="x")


def queue_names(sqs):
    return sorted(url.rsplit("/", 1)[1] for url in sqs.list_queues().get("QueueUrls", []))


def attributes(sqs, name):
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]


def test_queues_attributes_redrive_and_tags_and_restarts():
    with tempfile.TemporaryDirectory() as tmp:
        init = write(tmp, "init.json", GOOD)
        data = os.path.join(tmp, "db")
        with Lqsd("--data", data, "--init", init) as server:
            sqs = client(server)
            assert queue_names(sqs) == ["jobs", "jobs-dlq", "orders-dlq.fifo", "orders.fifo"]
            jobs = attributes(sqs, "jobs")
            assert jobs["VisibilityTimeout"] == "60"
            assert json.loads(jobs["RedrivePolicy"]) == {
                "deadLetterTargetArn": "arn:aws:sqs:%s:%s:jobs-dlq" % (REGION, ACCOUNT),
                "maxReceiveCount": 5}
            assert attributes(sqs, "jobs-dlq")["MessageRetentionPeriod"] == "1209600"
            orders = attributes(sqs, "orders.fifo")
            assert orders["FifoQueue"] == "true"
            assert orders["ContentBasedDeduplication"] == "true"
            assert json.loads(orders["RedrivePolicy"])["maxReceiveCount"] == 3
            url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
            assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "core"}
            dlq_url = sqs.get_queue_url(QueueName="jobs-dlq")["QueueUrl"]
            assert sqs.list_dead_letter_source_queues(QueueUrl=dlq_url)["queueUrls"] == [url]
            # Changed while lqsd runs: a restart with the same file puts it back.
            sqs.send_message(QueueUrl=url, MessageBody="kept")
            sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "7",
                                                               "DelaySeconds": "2"})
            sqs.tag_queue(QueueUrl=url, Tags={"team": "other", "owner": "me"})

        with Lqsd("--data", data, "--init", init) as server:
            sqs = client(server)
            assert queue_names(sqs) == ["jobs", "jobs-dlq", "orders-dlq.fifo", "orders.fifo"]
            jobs = attributes(sqs, "jobs")
            assert jobs["VisibilityTimeout"] == "60"
            assert jobs["DelaySeconds"] == "2"  # not in the file: kept
            assert jobs["ApproximateNumberOfMessages"] == "1"  # the queue was not re-created
            url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
            assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "core", "owner": "me"}

        # A third start with nothing changed: nothing to log but the start.
        with Lqsd("--data", data, "--init", init, stderr=subprocess.PIPE) as server:
            assert queue_names(client(server)) == [
                "jobs", "jobs-dlq", "orders-dlq.fifo", "orders.fifo"]
        assert b"--init" not in server.proc.stderr.read()


def test_a_dead_letter_queue_already_in_the_database():
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "db")
        with Lqsd("--data", data) as server:
            client(server).create_queue(QueueName="old-dlq")
        init = write(tmp, "init.json", {"queues": [
            {"name": "new", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "old-dlq",
                                                             "maxReceiveCount": 2}}}]})
        with Lqsd("--data", data, "--init", init) as server:
            sqs = client(server)
            assert queue_names(sqs) == ["new", "old-dlq"]
            assert json.loads(attributes(sqs, "new")["RedrivePolicy"])["deadLetterTargetArn"] \
                .endswith(":old-dlq")


BAD = [
    ("syntax", '{"queues": [\n  {"name": "a"},\n  {"name": "b",}\n]}',
     ["not valid JSON", "line 3"]),
    ("unknown top-level key", {"queues": [{"name": "a"}], "queue": []},
     ['unknown key "queue"']),
    ("unknown queue key", {"queues": [{"name": "a"}, {"name": "b", "attribute": {}}]},
     ['queue "b"', 'unknown key "attribute"']),
    ("bad name", {"queues": [{"name": "a"}, {"name": "no spaces"}]},
     ['queue "no spaces"', "name: InvalidParameterValue"]),
    ("bad value", {"queues": [{"name": "a"}, {"name": "b", "attributes": {"DelaySeconds": 901}}]},
     ['queue "b"', "InvalidAttributeValue", "DelaySeconds"]),
    ("unknown attribute", {"queues": [{"name": "a", "attributes": {"Colour": "red"}}]},
     ['queue "a"', "InvalidAttributeName", "Colour"]),
    ("fifo attribute on a standard queue",
     {"queues": [{"name": "a", "attributes": {"ContentBasedDeduplication": "true"}}]},
     ['queue "a"', "InvalidAttributeName", "ContentBasedDeduplication"]),
    ("bad maxReceiveCount", {"queues": [
        {"name": "d"},
        {"name": "a", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "d",
                                                       "maxReceiveCount": 0}}}]},
     ['queue "a"', "InvalidParameterValue", "maxReceiveCount"]),
    ("missing dead-letter queue", {"queues": [
        {"name": "a"},
        {"name": "b", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "nowhere",
                                                       "maxReceiveCount": 3}}}]},
     ['queue "b"', "attributes.RedrivePolicy", '"nowhere"', "QueueDoesNotExist"]),
    ("cycle", {"queues": [
        {"name": "a", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "b",
                                                       "maxReceiveCount": 3}}},
        {"name": "b", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "a",
                                                       "maxReceiveCount": 3}}}]},
     ["attributes.RedrivePolicy", "cycle (a -> b -> a)"]),
    ("duplicate", {"queues": [{"name": "a"}, {"name": "a"}]},
     ['queue "a"', "twice"]),
    ("bad tags", {"queues": [{"name": "a"}, {"name": "b", "tags": {"k": 1}}]},
     ['queue "b"', "tags.k"]),
]


@pytest.mark.parametrize("content, expected", [(c, e) for _, c, e in BAD],
                         ids=[name for name, _, _ in BAD])
def test_a_bad_file_stops_lqsd_before_anything_is_created(content, expected):
    with tempfile.TemporaryDirectory() as tmp:
        init = write(tmp, "init.json", content)
        data = os.path.join(tmp, "db")
        proc = subprocess.run([lqsd_binary(), "--listen", "127.0.0.1:0", "--data", data,
                               "--init", init], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=60)
        assert proc.returncode == 2, proc
        assert proc.stdout == b""  # never listened
        err = proc.stderr.decode()
        assert err.startswith("lqsd: --init %s: " % init), err
        for part in expected:
            assert part in err, (part, err)
        # Nothing created: a plain start shows an empty database.
        with Lqsd("--data", data) as server:
            assert queue_names(client(server)) == []


def test_a_missing_file_is_a_usage_error():
    proc = subprocess.run([lqsd_binary(), "--listen", "127.0.0.1:0", "--init",
                           "/nonexistent/init.json"], stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert b"/nonexistent/init.json" in proc.stderr
