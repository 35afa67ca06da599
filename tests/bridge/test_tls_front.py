"""tests/bridge/tls_front.py: boto3 over HTTPS, through nginx, to an lqsd that verifies SigV4.

Run with /usr/bin/python3 (Debian's boto3: the query protocol). With the
throwaway CA boto3 verifies the certificate, for 127.0.0.1 and for localhost;
without it verification fails. lqsd runs with --auth-file, so each request
that succeeds shows that the Host header the client signed reached lqsd
unchanged. Without nginx or openssl the module is skipped (under CI=true it
fails: tests/missing_client.py).
"""

import os
import ssl
import sys
import tempfile
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "server"))

from lqsd_harness import boto3, botocore, Config, Lqsd, missing_client, require_lqsd_and_boto3  # noqa: E402
from tls_front import TlsFront, nginx_binary, openssl_binary  # noqa: E402

if nginx_binary() is None:
    missing_client.pytest_module("nginx is not installed (scripts/install-deps.sh installs it)")
if openssl_binary() is None:
    missing_client.pytest_module("openssl is not installed")
require_lqsd_and_boto3()

KEY, SECRET = "AKIDBRIDGETEST", "bridge/test/secret/key"


@pytest.fixture(scope="module")
def front():
    with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
        f.write("%s %s\n" % (KEY, SECRET))
        keys = f.name
    try:
        with Lqsd("--auth-file", keys) as server, TlsFront(server.port) as tls:
            yield tls
    finally:
        os.unlink(keys)


def sqs(endpoint, verify, secret=SECRET):
    return boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1", verify=verify,
                        aws_access_key_id=KEY, aws_secret_access_key=secret,
                        config=Config(retries={"total_max_attempts": 1}))


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_boto3_verifies_the_certificate_and_lqsd_the_signature(front, host):
    endpoint = "https://%s:%d" % (host, front.port)
    client = sqs(endpoint, verify=front.ca_file)
    url = client.create_queue(QueueName="tls-" + host.replace(".", "-"))["QueueUrl"]
    assert url.startswith("http://%s:%d/" % (host, front.port))  # lqsd saw the client's Host
    big = "b" * (200 * 1024)  # larger than nginx's default body buffer
    client.send_message(QueueUrl=url, MessageBody="over tls")
    client.send_message(QueueUrl=url, MessageBody=big)
    got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
    assert sorted(m["Body"] for m in got["Messages"]) == sorted(["over tls", big])

    with pytest.raises(botocore.exceptions.ClientError) as e:
        sqs(endpoint, verify=front.ca_file, secret="wrong").list_queues()
    assert e.value.response["Error"]["Code"] == "SignatureDoesNotMatch"


def test_url_is_https_on_loopback(front):
    assert front.url == "https://127.0.0.1:%d" % front.port
    assert os.path.exists(front.ca_file)


def test_without_the_ca_verification_fails(front):
    with pytest.raises(botocore.exceptions.SSLError) as e:
        sqs(front.url, verify=True).list_queues()
    assert "CERTIFICATE_VERIFY_FAILED" in str(e.value)
    # The standard library agrees, with the system's CAs and with the throwaway one
    # (lqsd answers the unsigned request: 403).
    with pytest.raises(urllib.request.URLError) as e:
        urllib.request.urlopen(front.url + "/health", timeout=5)
    assert isinstance(e.value.reason, ssl.SSLCertVerificationError)
    ok = ssl.create_default_context(cafile=front.ca_file)
    with pytest.raises(urllib.request.HTTPError) as e:
        urllib.request.urlopen(front.url + "/health", timeout=5, context=ok)
    assert e.value.code == 403


def test_stop_removes_its_files_and_port():
    with Lqsd() as server:
        tls = TlsFront(server.port, url_host="localhost")
        assert tls.url == "https://localhost:%d" % tls.port
        assert tls.stop() == 0
        assert not os.path.exists(tls.dir)
        with pytest.raises(OSError):
            urllib.request.urlopen(tls.url, timeout=5,
                                   context=ssl.create_default_context(cafile=None))
