"""Starts and stops an lqsd for a test.

The binary is $LQSD, else build-server/server/lqsd or build/server/lqsd of
this checkout. lqsd is started on 127.0.0.1:0; the URL it prints ("lqsd
listening on http://127.0.0.1:PORT") tells the port. With --metrics-listen
among the arguments, the line after it ("lqsd metrics on
http://HOST:PORT/metrics") sets metrics_host and metrics_port (else None).
stop() sends SIGTERM and returns the exit code (a clean shutdown is 0).

It also imports, for the tests, missing_client (tests/missing_client.py: how
a missing client is reported) and the AWS SDK: boto3, botocore, Config and
ClientError, each None when boto3 is not installed for this interpreter.
"""

import http.client
import os
import re
import select
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

sys.path.insert(0, os.path.dirname(HERE))
import missing_client  # noqa: E402,F401  (tests/)

try:
    import boto3
    import botocore
    import botocore.exceptions
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError:  # pragma: no cover - each test reports it (missing_client)
    boto3 = botocore = Config = ClientError = None


def require_lqsd_and_boto3():
    """For a pytest module (or a fixture): skips it, and fails it under CI=true, when
    boto3 is not installed for this interpreter or no lqsd binary is found."""
    if boto3 is None:
        missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)
    try:
        lqsd_binary()
    except RuntimeError as e:
        missing_client.pytest_module(str(e))


def lqsd_binary():
    env = os.environ.get("LQSD")
    if env:
        return env
    for build in ("build-server", "build"):
        path = os.path.join(ROOT, build, "server", "lqsd")
        if os.path.exists(path):
            return path
    raise RuntimeError("lqsd not found: set LQSD=/path/to/lqsd")


class Lqsd:
    def __init__(self, *args, listen="127.0.0.1:0", stderr=None):
        # LQS_TEST_PROFILE=small runs every lqsd of the tests with --profile small.
        profile = os.environ.get("LQS_TEST_PROFILE")
        if profile and "--profile" not in args:
            args = ("--profile", profile) + tuple(args)
        self.args = [lqsd_binary(), "--listen", listen, *args]
        self.proc = subprocess.Popen(
            self.args, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL)
        line = self._read_line(timeout=30)
        prefix = b"lqsd listening on "
        if not line.startswith(prefix):
            self.proc.kill()
            raise RuntimeError("lqsd did not start: %r" % line)
        self.url = line[len(prefix):].decode().strip()
        self.host, port = self.url[len("http://"):].rsplit(":", 1)
        self.port = int(port)
        self.metrics_host = self.metrics_port = None
        if "--metrics-listen" in args:
            line = self._read_line(timeout=30)
            m = re.match(rb"lqsd metrics on http://(.+):(\d+)/metrics\n$", line)
            if not m:
                self.proc.kill()
                raise RuntimeError("lqsd printed no metrics address: %r" % line)
            self.metrics_host, self.metrics_port = m.group(1).decode(), int(m.group(2))

    def _read_line(self, timeout):
        deadline = time.time() + timeout
        buf = b""
        fd = self.proc.stdout.fileno()
        while not buf.endswith(b"\n"):
            left = deadline - time.time()
            if left <= 0:
                break
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                break
            chunk = os.read(fd, 1)
            if not chunk:
                break
            buf += chunk
        return buf

    def stop(self, timeout=40):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("lqsd did not stop within %s s of SIGTERM" % timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        code = self.stop()
        if exc[0] is None and code != 0:
            raise RuntimeError("lqsd exited with %d" % code)


def http_request(host, port, method, target, body=None, headers=None):
    """One raw HTTP exchange: (status, headers with lower-case names, body text)."""
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.request(method, target, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read().decode()
    finally:
        conn.close()


def write_keys_file(directory, key, secret):
    """Writes an --auth-file holding the one key pair (key, secret) into
    `directory`; returns its path."""
    path = os.path.join(directory, "keys")
    with open(path, "w") as f:
        f.write("%s %s\n" % (key, secret))
    return path


def sigv4_headers(method, url, key, secret, body=None):
    """The headers of a request to `url` signed (SigV4, botocore's signer) for
    SQS in us-east-1 with (key, secret)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    req = AWSRequest(method=method, url=url, data=body)
    SigV4Auth(Credentials(key, secret), "sqs", "us-east-1").add_auth(req)
    return dict(req.headers.items())


def signed_for(region):
    """An Authorization header scoped to `region`, with a dummy signature: lqsd
    without --auth-file reads the scope's region and verifies nothing."""
    return {"Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20261201/%s/sqs/aws4_request, "
                             "SignedHeaders=host, Signature=00" % region}
