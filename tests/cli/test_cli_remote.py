"""The `lqs` CLI's remote mode (--endpoint) against a real lqsd.

Run by ctest (cli_remote) with LQS_CLI and LQSD set. When lqsd is not built
(LQSD empty or missing) it prints why and exits 77, which ctest reports as
skipped (under CI, CI=true, it fails instead: tests/missing_client.py):
    LQS_CLI=build/tools/lqs LQSD=build/server/lqsd /usr/bin/python3 tests/cli/test_cli_remote.py
"""

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(TESTS, "server"))
import missing_client  # noqa: E402  (tests/)
from lqsd_harness import Lqsd  # noqa: E402  (tests/server/)

LQS = os.environ.get("LQS_CLI", "lqs")
LQSD = os.environ.get("LQSD", "")


# The CLI signs its requests when AWS credentials are in its environment:
# every run starts from an environment without AWS_* variables.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}


def start_lqsd(data, *flags):
    """lqsd (tests/server/lqsd_harness.py) on database `data`, without the
    background purge, logging warnings and errors only."""
    return Lqsd("--data", data, "--no-purge-interval", "--log-level", "warn", *flags)


def run(endpoint, *args, stdin=None, json_out=False, expect=0, env=None):
    cmd = [LQS, "--endpoint", endpoint] + (["--json"] if json_out else []) + [str(a) for a in args]
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=60,
                       env={**CLEAN_ENV, **(env or {})})
    assert p.returncode == expect, (
        f"{cmd} -> {p.returncode} (want {expect})\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return json.loads(p.stdout) if json_out else p


def scenario(url, local_db):
    run(url, "queue", "create", "dlq")
    created = run(url, "queue", "create", "jobs", "-a", "VisibilityTimeout=40", "-t", "team=a",
                  json_out=True)
    assert created["url"].endswith("/jobs")
    assert run(url, "queue", "list", json_out=True)["queues"] == ["dlq", "jobs"]
    run(url, "queue", "set", "jobs",
        'RedrivePolicy={"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq",'
        '"maxReceiveCount":"1"}')
    assert run(url, "queue", "get", "jobs", "VisibilityTimeout",
               json_out=True)["attributes"] == {"VisibilityTimeout": "40"}
    run(url, "queue", "tag", "jobs", "env=test")
    run(url, "queue", "untag", "jobs", "team")
    assert run(url, "queue", "tags", "jobs", json_out=True)["tags"] == {"env": "test"}
    assert run(url, "queue", "dlq-sources", "dlq", json_out=True)["sources"] == ["jobs"]

    # Messages: argument, attributes (binary as base64), JSON lines in batches.
    run(url, "send", "jobs", "hello", "-a", "b:Binary=AAE=", "-a", "n:Number=7")
    out = run(url, "send", "jobs", stdin="".join('"m%d"\n' % i for i in range(14)),
              json_out=True)
    assert out["sent"] == 14
    got = run(url, "receive", "jobs", "-n", "15", "--visibility", "0", json_out=True)["messages"]
    assert len(got) == 15
    hello = [m for m in got if m["Body"] == "hello"][0]
    assert hello["MessageAttributes"]["b"] == {"DataType": "Binary", "BinaryValue": "AAE="}
    # Receive count reached: the next receive moves them to the DLQ.
    assert run(url, "receive", "jobs", "-n", "15", json_out=True)["messages"] == []
    rows = {r["queue"]: r for r in run(url, "stats", json_out=True)["queues"]}
    assert rows["dlq"]["visible"] == 15 and rows["jobs"]["dlq_depth"] == 15
    assert "sent_total" not in rows["jobs"]  # SQS has no counters: not shown

    # Redrive back, with progress.
    done = run(url, "redrive", "start", "dlq", "--rate", "500", json_out=True)
    assert done["Status"] == "COMPLETED" and done["ApproximateNumberOfMessagesMoved"] == 15
    assert run(url, "redrive", "list", "dlq", json_out=True)["tasks"][0]["Status"] == "COMPLETED"

    # Delete by handle, purge, import.
    got = run(url, "receive", "jobs", "-n", "2", json_out=True)["messages"]
    run(url, "delete", "jobs", "--stdin", stdin="".join(m["ReceiptHandle"] + "\n" for m in got))
    run(url, "purge", "jobs")
    dump = ('{"type":"header","format":"lqs-export","version":1}\n'
            '{"type":"queue","name":"imported","attributes":{"DelaySeconds":"0"},"tags":{}}\n'
            '{"type":"message","queue":"imported","Body":"x","MessageAttributes":'
            '{"k":{"DataType":"String","StringValue":"v"}}}\n')
    out = run(url, "import", stdin=dump, json_out=True)
    assert out["queues"] == {"imported": {"imported": 1, "failed": 0}}

    # peek reads lqsd's GET /_aws/sqs/messages: every state, nothing changed.
    run(url, "queue", "create", "peeked")
    run(url, "send", "peeked", "taken")
    taken = run(url, "receive", "peeked", "--visibility", "60", json_out=True)["messages"]
    assert [m["Body"] for m in taken] == ["taken"]
    run(url, "send", "peeked", "waiting", "-a", "k:String=v")
    run(url, "send", "peeked", "later", "--delay", "60")
    before = {r["queue"]: r for r in run(url, "stats", json_out=True)["queues"]}["peeked"]
    for _ in range(2):
        peeked = run(url, "peek", "peeked", json_out=True)["messages"]
        states = {m["Body"]: m["state"] for m in peeked}
        assert states == {"taken": "in_flight", "waiting": "visible", "later": "delayed"}, peeked
        counts = {m["Body"]: m["Attributes"]["ApproximateReceiveCount"] for m in peeked}
        assert counts == {"taken": "1", "waiting": "0", "later": "0"}, peeked
        assert all("IsVisible" not in m["Attributes"] for m in peeked)
        waiting = [m for m in peeked if m["Body"] == "waiting"][0]
        assert waiting["MessageAttributes"]["k"] == {"DataType": "String", "StringValue": "v"}
    after = {r["queue"]: r for r in run(url, "stats", json_out=True)["queues"]}["peeked"]
    assert (after["visible"], after["in_flight"], after["delayed"]) == (1, 1, 1), after
    assert after == before
    delayed = run(url, "peek", "peeked", "--state", "delayed", json_out=True)["messages"]
    assert [m["Body"] for m in delayed] == ["later"]
    table = run(url, "peek", "peeked").stdout
    assert "in_flight" in table and "waiting" in table, table
    # The next receive gets the one visible message, received for the first time.
    got = run(url, "receive", "peeked", "-n", "10", json_out=True)["messages"]
    assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in got] == [
        ("waiting", "1")], got
    p = run(url, "peek", "nope", expect=2)
    assert "QueueDoesNotExist" in p.stderr, p.stderr
    run(url, "queue", "delete", "peeked")

    # What the SQS protocol cannot do: a clear error, exit 2.
    p = run(url, "export", expect=2)
    assert "UnsupportedOperation" in p.stderr and "--data" in p.stderr
    run(url, "verify", expect=2)

    # Errors from the server keep their SQS code.
    p = run(url, "queue", "get", "nope", expect=2)
    assert "QueueDoesNotExist" in p.stderr
    run(url, "queue", "delete", "imported")

    # The database is held: local mode says so and points to --endpoint.
    p = subprocess.run([LQS, "--data", local_db, "queue", "list"], capture_output=True, text=True)
    assert p.returncode == 3 and "DatabaseLocked" in p.stderr and "--endpoint" in p.stderr

    # --region without credentials signs with a placeholder key, which an lqsd
    # without --auth-file accepts: the region's own queues.
    eu = run(url, "--region", "eu-west-1", "queue", "create", "jobs", json_out=True)["url"]
    assert "/queue/eu-west-1/123456789012/jobs" in eu, eu
    assert run(url, "--region", "eu-west-1", "queue", "list", json_out=True)["queues"] == ["jobs"]
    assert "imported" not in run(url, "queue", "list", json_out=True)["queues"]


def signed_scenario(tmp):
    """lqsd with --auth-file: the CLI signs with the environment's credentials,
    for the region of --region or AWS_REGION."""
    keys = os.path.join(tmp, "keys")
    with open(keys, "w") as f:
        f.write("AKIDCLI SECRETCLI\n")
    with start_lqsd(os.path.join(tmp, "authdb"), "--auth-file", keys) as server:
        url = server.url
        creds = {"AWS_ACCESS_KEY_ID": "AKIDCLI", "AWS_SECRET_ACCESS_KEY": "SECRETCLI"}
        p = run(url, "queue", "list", expect=2)
        assert "MissingAuthenticationToken" in p.stderr, p.stderr
        p = run(url, "--region", "eu-west-1", "queue", "list", expect=2)
        assert "InvalidClientTokenId" in p.stderr, p.stderr
        p = run(url, "queue", "list", expect=2, env={**creds, "AWS_SECRET_ACCESS_KEY": "nope"})
        assert "SignatureDoesNotMatch" in p.stderr, p.stderr

        home = run(url, "queue", "create", "jobs", json_out=True, env=creds)["url"]
        assert home.endswith("/123456789012/jobs") and "/queue/" not in home, home
        run(url, "send", "jobs", "from us-east-1", env=creds)
        arn = {"AWS_REGION": "ap-south-1", **creds, "AWS_SESSION_TOKEN": "session"}
        run(url, "queue", "create", "jobs", env=arn)
        assert run(url, "queue", "get", "jobs", "QueueArn", json_out=True, env=arn)[
            "attributes"] == {"QueueArn": "arn:aws:sqs:ap-south-1:123456789012:jobs"}
        # --region wins over AWS_REGION; each region has its own messages.
        assert run(url, "--region", "us-east-1", "receive", "jobs", json_out=True,
                   env=arn)["messages"][0]["Body"] == "from us-east-1"
        assert run(url, "receive", "jobs", json_out=True, env=arn)["messages"] == []
        # peek's GET is signed too, its query string included.
        run(url, "send", "jobs", "peek me", env=creds)
        peeked = run(url, "peek", "jobs", json_out=True, env=creds)["messages"]
        assert sorted((m["Body"], m["state"]) for m in peeked) == [
            ("from us-east-1", "in_flight"), ("peek me", "visible")], peeked
        p = run(url, "peek", "jobs", expect=2, env={**creds, "AWS_SECRET_ACCESS_KEY": "nope"})
        assert "SignatureDoesNotMatch" in p.stderr, p.stderr


class NotLqsd(http.server.BaseHTTPRequestHandler):
    """An SQS endpoint without the developer endpoint: GetQueueUrl answers,
    any GET gets 404 (as from a server that has no such path)."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps({"QueueUrl": "http://%s/123456789012/jobs" % self.headers["Host"]})
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def do_GET(self):
        body = b"<html>not found</html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def not_lqsd_scenario():
    """peek against an endpoint that does not serve /_aws/sqs/messages."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotLqsd)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = "http://127.0.0.1:%d" % server.server_address[1]
        p = run(url, "peek", "jobs", expect=2)
        assert "UnsupportedOperation" in p.stderr and "/_aws/sqs/messages" in p.stderr, p.stderr
        assert "HTTP 404" in p.stderr, p.stderr
    finally:
        server.shutdown()
        server.server_close()


def run_env(*args, env, json_out=False, expect=0):
    """lqs without --endpoint: the endpoint (or database) comes from `env`."""
    cmd = [LQS] + (["--json"] if json_out else []) + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env={**CLEAN_ENV, **env})
    assert p.returncode == expect, (
        f"{cmd} {env} -> {p.returncode} (want {expect})\nstdout:\n{p.stdout}\n"
        f"stderr:\n{p.stderr}")
    return json.loads(p.stdout) if json_out else p


def aws_endpoint_conventions(tmp):
    """The endpoint as the AWS CLI finds it: --endpoint, AWS_ENDPOINT_URL_SQS,
    AWS_ENDPOINT_URL, LQS_ENDPOINT; a database given with -d or LQS_DATA wins
    over the AWS_ variables."""
    with start_lqsd(os.path.join(tmp, "a")) as a, start_lqsd(os.path.join(tmp, "b")) as b:
        all_three = {"AWS_ENDPOINT_URL_SQS": a.url, "AWS_ENDPOINT_URL": b.url,
                     "LQS_ENDPOINT": b.url}
        run_env("queue", "create", "by-sqs-variable", env=all_three)
        run_env("queue", "create", "by-endpoint-url",
                env={"AWS_ENDPOINT_URL": a.url, "LQS_ENDPOINT": b.url})
        run_env("queue", "create", "by-lqs-endpoint", env={"LQS_ENDPOINT": a.url})
        run_env("--endpoint", b.url, "queue", "create", "by-flag", env=all_three)
        assert run(a.url, "queue", "list", json_out=True)["queues"] == [
            "by-endpoint-url", "by-lqs-endpoint", "by-sqs-variable"]
        assert run(b.url, "queue", "list", json_out=True)["queues"] == ["by-flag"]

        # An explicit database wins over the AWS_ variables.
        local = os.path.join(tmp, "local")
        aws_only = {"AWS_ENDPOINT_URL_SQS": a.url, "AWS_ENDPOINT_URL": b.url}
        run_env("-d", local, "queue", "create", "by-data", env=aws_only)
        assert run_env("queue", "list", json_out=True,
                       env={**aws_only, "LQS_DATA": local})["queues"] == ["by-data"]
        assert "by-data" not in run(a.url, "queue", "list", json_out=True)["queues"]
        # LQS_DATA with LQS_ENDPOINT stays ambiguous: refused.
        p = run_env("queue", "list", expect=1, env={"LQS_DATA": local, "LQS_ENDPOINT": a.url})
        assert "not both" in p.stderr, p.stderr


def aws_profile_conventions(tmp):
    """Credentials from ~/.aws/credentials at --profile or AWS_PROFILE, and
    the region from --region, AWS_REGION, AWS_DEFAULT_REGION, checked by an
    lqsd with --auth-file that knows only the "ci" profile's key."""
    home = os.path.join(tmp, "home")
    os.makedirs(os.path.join(home, ".aws"))
    with open(os.path.join(home, ".aws", "credentials"), "w") as f:
        f.write("[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = S1\n\n"
                "[ci]\naws_access_key_id = AKIDCI\naws_secret_access_key = SECRETCI\n")
    keys = os.path.join(tmp, "profile-keys")
    with open(keys, "w") as f:
        f.write("AKIDCI SECRETCI\n")
    with start_lqsd(os.path.join(tmp, "profiledb"), "--auth-file", keys) as server:
        base = {"HOME": home, "AWS_ENDPOINT_URL_SQS": server.url}
        # [default] is read, and its key is not lqsd's.
        p = run_env("queue", "list", expect=2, env=base)
        assert "InvalidClientTokenId" in p.stderr, p.stderr
        ci = {**base, "AWS_PROFILE": "ci"}
        created = run_env("queue", "create", "jobs", json_out=True, env=ci)["url"]
        assert "/queue/" not in created, created  # us-east-1, lqsd's default region
        assert run_env("--profile", "ci", "queue", "list", json_out=True,
                       env=base)["queues"] == ["jobs"]
        # --profile wins over AWS_PROFILE.
        p = run_env("--profile", "default", "queue", "list", expect=2, env=ci)
        assert "InvalidClientTokenId" in p.stderr, p.stderr
        # The environment's key wins over the file.
        run_env("queue", "list", env={**ci, "AWS_ACCESS_KEY_ID": "AKIDCI",
                                      "AWS_SECRET_ACCESS_KEY": "SECRETCI"})
        p = run_env("queue", "list", expect=1, env={**base, "AWS_PROFILE": "missing"})
        assert 'profile "missing" is not in' in p.stderr, p.stderr

        # The region: AWS_DEFAULT_REGION, overridden by AWS_REGION, then by --region.
        eu = {**ci, "AWS_DEFAULT_REGION": "eu-west-1"}
        run_env("queue", "create", "regional", env=eu)
        assert run_env("queue", "get", "regional", "QueueArn", json_out=True, env=eu)[
            "attributes"] == {"QueueArn": "arn:aws:sqs:eu-west-1:123456789012:regional"}
        both = {**eu, "AWS_REGION": "ap-south-1"}
        assert run_env("queue", "list", json_out=True, env=both)["queues"] == []
        assert run_env("--region", "eu-west-1", "queue", "list", json_out=True,
                       env=both)["queues"] == ["regional"]


def main():
    if not LQSD or not os.path.exists(LQSD):
        return missing_client.script_exit(
            "lqsd is not built (LQSD=%r); build the `lqsd` target to test the CLI's remote "
            "mode" % LQSD)
    with tempfile.TemporaryDirectory() as tmp:
        # The CLI reads ~/.aws/credentials: the runner's own must not sign.
        CLEAN_ENV["HOME"] = os.path.join(tmp, "empty-home")
        data = os.path.join(tmp, "db")
        with start_lqsd(data) as server:
            url = server.url
            scenario(url, data)
        # Unreachable server: exit 3.
        p = subprocess.run([LQS, "--endpoint", url, "queue", "list"], capture_output=True,
                           text=True, env=CLEAN_ENV)
        assert p.returncode == 3, p.stderr
        signed_scenario(tmp)
        aws_endpoint_conventions(tmp)
        aws_profile_conventions(tmp)
    not_lqsd_scenario()
    print("cli_remote: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
