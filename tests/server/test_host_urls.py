#!/usr/bin/env python3
"""Host-style queue URLs (lqsd --url-style host) with an unmodified boto3.

lqsd hands out http://sqs.<region>.localhost:<port>/<account>/<name>. boto3
sends every request to its endpoint_url (here http://127.0.0.1:<port>), with
the queue URL as the QueueUrl parameter (query) or member (JSON), so the URL's
host name needs no name resolution; lqsd reads the region from it.

Runs under pytest (Debian's /usr/bin/python3: botocore 1.29, the query
protocol) and as a plain script (the pyenv python3: boto3 1.43, JSON):

  python3 test_host_urls.py [--expect-protocol json|query]

Exit codes of the script: 0 passed, 1 failed, 77 skipped (boto3 missing, or
not the protocol asked for; under CI those fail: tests/missing_client.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import Config, Lqsd, boto3, botocore, missing_client  # noqa: E402

ACCOUNT = "123456789012"


def client(endpoint, region):
    return boto3.client("sqs", endpoint_url=endpoint, region_name=region,
                        aws_access_key_id="x", aws_secret_access_key="x",
                        config=Config(retries={"max_attempts": 1}))


def check_host_urls(server):
    """Returns the protocol boto3 spoke."""
    home, away = client(server.url, "us-east-1"), client(server.url, "eu-west-1")
    try:
        home_url = home.create_queue(QueueName="jobs")["QueueUrl"]
        away_url = away.create_queue(QueueName="jobs")["QueueUrl"]
        assert home_url == "http://sqs.us-east-1.localhost:%d/%s/jobs" % (server.port, ACCOUNT)
        assert away_url == "http://sqs.eu-west-1.localhost:%d/%s/jobs" % (server.port, ACCOUNT)
        assert home.get_queue_url(QueueName="jobs")["QueueUrl"] == home_url
        assert away.list_queues()["QueueUrls"] == [away_url]

        # Send and receive through the host-style URL.
        home.send_message(QueueUrl=home_url, MessageBody="hello")
        got = home.receive_message(QueueUrl=home_url, WaitTimeSeconds=0)["Messages"]
        assert [m["Body"] for m in got] == ["hello"]
        home.delete_message(QueueUrl=home_url, ReceiptHandle=got[0]["ReceiptHandle"])

        # The URL's region wins over the region the client signs for.
        home.send_message(QueueUrl=away_url, MessageBody="far")
        assert "Messages" not in home.receive_message(QueueUrl=home_url, WaitTimeSeconds=0)
        got = away.receive_message(QueueUrl=away_url, WaitTimeSeconds=0)["Messages"]
        assert [m["Body"] for m in got] == ["far"]
        attrs = home.get_queue_attributes(QueueUrl=away_url, AttributeNames=["QueueArn"])
        assert attrs["Attributes"]["QueueArn"] == "arn:aws:sqs:eu-west-1:%s:jobs" % ACCOUNT

        # Path-style URLs keep working.
        path_url = "%s/queue/eu-west-1/%s/jobs" % (server.url, ACCOUNT)
        home.send_message(QueueUrl=path_url, MessageBody="by path")
        got = away.receive_message(QueueUrl=away_url, WaitTimeSeconds=0)["Messages"]
        assert [m["Body"] for m in got] == ["by path"]
        return home.meta.service_model.protocol
    finally:
        home.close()
        away.close()


if boto3 is None and __name__ != "__main__":
    missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)


def test_host_style_queue_urls():
    with Lqsd("--url-style", "host") as server:
        check_host_urls(server)


def main(argv):
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--expect-protocol", choices=["json", "query"])
    args = parser.parse_args(argv)
    if boto3 is None:
        return missing_client.script_exit("boto3 is not installed for %s" % sys.executable)
    protocol = boto3.client("sqs", region_name="us-east-1", endpoint_url="http://127.0.0.1:1",
                            aws_access_key_id="x",
                            aws_secret_access_key="x").meta.service_model.protocol
    print("%s: boto3 %s, botocore %s, protocol %s" % (
        sys.executable, boto3.__version__, botocore.__version__, protocol))
    if args.expect_protocol and protocol != args.expect_protocol:
        return missing_client.script_exit("botocore %s of %s speaks %s, not %s" % (
            botocore.__version__, sys.executable, protocol, args.expect_protocol))
    with Lqsd("--url-style", "host") as server:
        check_host_urls(server)
    print("PASS host-style queue URLs (%s)" % protocol)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
