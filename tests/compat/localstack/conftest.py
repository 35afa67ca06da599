"""pytest glue that runs LocalStack's AWS-validated SQS tests against lqsd.

Written for lqs; it reproduces the fixture and marker surface that tests/aws/services/sqs/
test_sqs.py and test_sqs_move_task.py use, not LocalStack's harness. See README.md.

run.sh puts this file at the root of an extracted LocalStack test tree, with shims/ (the
`localstack.*` names the tests import), the localstack-snapshot library and pytest on
PYTHONPATH, and the lqs_compat_env settings (LQS_COMPAT_*) in the environment.
"""

import inspect
import json
import logging
import os
import re
import socket
import sys
import types

import boto3
import botocore.auth
import botocore.config
import botocore.credentials
import pytest
import requests
from botocore.awsrequest import AWSRequest
from botocore.exceptions import ClientError

import lqs_compat_env as env
import lqs_compat_snapshot
from localstack.utils.aws.arns import get_partition
from localstack.utils.strings import short_uid
from localstack.utils.sync import poll_condition

import pluggy  # noqa: E402

if not hasattr(pluggy, "Result"):  # pluggy < 1.1 (Debian's) calls it _Result
    from pluggy._callers import _Result

    pluggy.Result = _Result

pytest_plugins = ["localstack_snapshot.pytest.snapshot"]

LOG = logging.getLogger("lqs-compat")

# --- name resolution ------------------------------------------------------------------------
# lqsd --url-style host hands out http://sqs.<region>.localhost:<port>/... URLs. RFC 6761 has
# every *.localhost name resolve to loopback (systemd-resolved and browsers do so), glibc's
# resolver without it does not; the tests' HTTP clients follow those URLs, so resolve them here.
_getaddrinfo = socket.getaddrinfo


def _getaddrinfo_localhost(host, *args, **kwargs):
    if isinstance(host, str) and host.endswith(".localhost"):
        host = "127.0.0.1"
    return _getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _getaddrinfo_localhost

# --- modules of other LocalStack test packages that test_sqs.py imports at module level ------
# (only the Lambda tests use them, and those are skipped: lqsd serves SQS only)


def _stub_module(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    mod.__path__ = []  # importable as a package
    sys.modules[name] = mod
    return mod


_lambda_functions = _stub_module("tests.aws.services.lambda_.functions")
_lambda_functions.lambda_integration = _stub_module(
    "tests.aws.services.lambda_.functions.lambda_integration", __file__="lambda_integration.py"
)
_stub_module("tests.aws.services.lambda_.test_lambda", TEST_LAMBDA_PYTHON="lambda_integration.py")
_stub_module("tests.aws.services.lambda_", functions=_lambda_functions)

# --- selection ----------------------------------------------------------------------------

_MARKERS = {
    "aws_validated": "validated against AWS",
    "aws_needs_fixing": "LocalStack's recording needs fixing",
    "aws_only_localstack": "checks LocalStack-only behaviour",
    "aws_manual_setup_required": "needs manual setup on AWS",
    "aws_unknown": "validation state unknown",
    "requires_in_process": "needs LocalStack running inside the test process",
    "requires_in_container": "needs LocalStack in a container",
    "requires_docker": "needs docker",
    "multiruntime": "Lambda multi-runtime",
    "resource_heavy": "resource heavy",
    "skip_offline": "needs internet",
    "acceptance_test": "acceptance test",
}


def pytest_configure(config):
    for name, text in _MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def _skip_reason(item):
    names = {m.name for m in item.iter_markers()}
    if "aws_only_localstack" in names:
        return "only_localstack: tests LocalStack-specific behaviour, not AWS's"
    if "requires_in_process" in names:
        return "requires_in_process: patches LocalStack's in-process config/provider"
    if "aws_needs_fixing" in names:
        return "needs_fixing: LocalStack marks the test as not (yet) matching AWS"
    if "aws_validated" not in names:
        return "not marked aws.validated"
    return None


# Validated tests that LocalStack itself skips unconditionally (@pytest.mark.skip) because
# LocalStack does not implement the behaviour yet are run here: their recordings are AWS's.
# These stay skipped, with LocalStack's reason:
KEEP_LOCALSTACK_SKIP = {
    "test_deduplication_interval",  # sleeps through SQS' 5-minute deduplication interval
}

# Tests whose is_aws_cloud() branch selects the behaviour asserted (AWS's answer), not only
# timings or the endpoint; is_aws_cloud() answers True inside them (the AWS endpoint they then
# address is rewritten to lqsd by SigningHttpClient).
AWS_BRANCH_TESTS = {
    "test_marker_serialization_json_protocol",  # else asserts LocalStack's own (wrong) shape
}

# requires_in_process tests whose monkeypatching only switches LocalStack to an AWS behaviour
# that lqsd has unless started with --no-purge-interval / --no-queue-reuse-delay (the
# 60-second PurgeQueue interval and queue-name reuse delay, message retention). They run in a
# second pass (LQS_COMPAT_PASS=aws-delays) against an lqsd started without those flags, with
# is_aws_cloud() True so that they use AWS's timings (lqsd, like SQS, refuses retention < 60 s).
AWS_DELAY_TESTS = {
    "test_create_queue_recently_deleted",
    "test_successive_purge_calls_fail",
    "test_message_retention",
    "test_message_retention_fifo",
    "test_message_retention_with_inflight",
}
DELAY_PASS = os.environ.get("LQS_COMPAT_PASS") == "aws-delays"

STRICT = os.environ.get("LQS_COMPAT_STRICT") == "1"
KEEP_ALL_SKIPS = os.environ.get("LQS_COMPAT_KEEP_LOCALSTACK_SKIPS") == "1"


def _protocol(item):
    """Which wire protocol(s) a test exercises, for the per-protocol counts of run.sh."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "aws_sqs_client" in callspec.params:
        return "json" if callspec.params["aws_sqs_client"] == "sqs" else "query"
    try:
        source = inspect.getsource(item.function)
    except (OSError, TypeError):
        source = ""
    names = set(getattr(item, "fixturenames", ()))
    query = "sqs_query" in source or names & {"sqs_http_client", "aws_http_client_factory"}
    return "json+query (unparametrized)" if query else "json (unparametrized)"


_recordings = {}


def _has_recording(item):
    """False for a test matching snapshots whose AWS recording is missing or empty in the
    .snapshot.json. (Every test requests the snapshot fixture, through an autouse fixture of
    test_sqs.py; what counts is whether its body calls snapshot.match.)"""
    try:
        if "snapshot.match" not in inspect.getsource(item.function):
            return True
    except (OSError, TypeError):
        pass
    path = str(item.path.with_suffix(".snapshot.json"))
    if path not in _recordings:
        try:
            with open(path) as f:
                _recordings[path] = {
                    key for key, rec in json.load(f).items() if rec.get("recorded-content")
                }
        except OSError:
            _recordings[path] = set()
    return item.nodeid in _recordings[path]


def pytest_collection_modifyitems(config, items):
    if DELAY_PASS:
        keep = [i for i in items if getattr(i, "originalname", i.name) in AWS_DELAY_TESTS]
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep
    for item in items:
        item.user_properties.append(("protocol", _protocol(item)))
        name = getattr(item, "originalname", item.name)
        if name in AWS_DELAY_TESTS:
            if not DELAY_PASS:
                item.add_marker(
                    pytest.mark.skip(reason="requires_in_process: runs in the aws-delays pass"),
                    append=False,
                )
            continue
        reason = _skip_reason(item)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason), append=False)
            continue
        skips = [m for m in item.own_markers if m.name == "skip"]
        if skips and not KEEP_ALL_SKIPS and name not in KEEP_LOCALSTACK_SKIP:
            why = skips[0].kwargs.get("reason") or (skips[0].args or ["unconditional skip"])[0]
            item.own_markers[:] = [m for m in item.own_markers if m.name != "skip"]
            if _has_recording(item):
                item.user_properties.append(("localstack_skip_overridden", why))
            else:
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"LocalStack skips it ({why}) and its AWS recording is empty"
                    ),
                    append=False,
                )
        if STRICT:
            # compare every path of the AWS recording, also those LocalStack exempts for itself
            item.own_markers[:] = [m for m in item.own_markers if m.name != "skip_snapshot_verify"]


@pytest.fixture(autouse=True)
def _aws_branch(request):
    from localstack.testing.aws import util

    name = getattr(request.node, "originalname", request.node.name)
    util.AWS_BRANCH = name in AWS_BRANCH_TESTS or (DELAY_PASS and name in AWS_DELAY_TESTS)
    yield
    util.AWS_BRANCH = False


# --- clients ------------------------------------------------------------------------------

_SERVED = {"sqs": "sqs", "sqs_query": "sqs-query"}


def _session(access_key=None, secret_key=None):
    session = boto3.Session(
        aws_access_key_id=access_key or env.ACCESS_KEY,
        aws_secret_access_key=secret_key or env.SECRET_KEY,
        region_name=env.REGION,
    )
    if env.DATA_PATH:
        # the sqs-query service model (query protocol) lives there, beside botocore's own data
        session._session.get_component("data_loader").search_paths.insert(0, env.DATA_PATH)
    return session


class ClientBundle:
    """aws_client: `.sqs` (JSON protocol) and `.sqs_query` (query protocol) talk to lqsd; any
    other service skips the test, since lqsd serves SQS only."""

    def __init__(self, session, region_name, endpoint_url, config):
        self._session = session
        self._region = region_name
        self._endpoint = endpoint_url
        self._config = config
        self._clients = {}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in _SERVED:
            pytest.skip(f"needs AWS service '{name}', which lqsd does not serve")
        if name not in self._clients:
            self._clients[name] = self._session.client(
                _SERVED[name],
                region_name=self._region,
                endpoint_url=self._endpoint,
                config=self._config,
            )
        return self._clients[name]


class ClientFactory:
    def __init__(self, session):
        self._session = session

    def __call__(
        self,
        *,
        region_name=None,
        endpoint_url=None,
        config=None,
        aws_access_key_id=None,
        aws_secret_access_key=None,
        aws_session_token=None,
    ):
        session = self._session
        if aws_access_key_id:
            session = _session(aws_access_key_id, aws_secret_access_key)
        return ClientBundle(
            session, region_name or env.REGION, endpoint_url or env.ENDPOINT, config
        )

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self(), name)


AWS_ENDPOINT_RE = re.compile(r"^https://(?:queue|sqs\.[a-z0-9-]+)\.amazonaws\.com")


class SigningHttpClient:
    """Plain HTTP requests to lqsd, signed with a botocore signer (SigV4 query auth by
    default), for the tests that speak the query protocol by hand."""

    def __init__(self, signer, endpoint_url):
        self.signer = signer
        self.endpoint_url = endpoint_url
        self.http = requests.Session()

    def request(self, method, url, **kwargs):
        if url.startswith("/"):
            url = self.endpoint_url.rstrip("/") + url
        # the AWS endpoints tests address when is_aws_cloud() answers True
        url = AWS_ENDPOINT_RE.sub(env.ENDPOINT, url)
        req = AWSRequest(
            method=method,
            url=url,
            data=kwargs.pop("data", None),
            params=kwargs.pop("params", None),
            headers=kwargs.pop("headers", None),
        )
        self.signer.add_auth(req)
        prepared = req.prepare()
        return self.http.request(
            method, prepared.url, data=prepared.body, headers=dict(prepared.headers), **kwargs
        )

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)

    def put(self, url, **kwargs):
        return self.request("PUT", url, **kwargs)

    def delete(self, url, **kwargs):
        return self.request("DELETE", url, **kwargs)


@pytest.fixture(scope="session")
def aws_session():
    return _session()


@pytest.fixture(scope="session")
def aws_client_factory(aws_session):
    return ClientFactory(aws_session)


@pytest.fixture(scope="session")
def aws_client(aws_client_factory):
    return aws_client_factory()


@pytest.fixture(scope="session")
def aws_http_client_factory():
    def factory(
        service,
        region=None,
        signer_factory=botocore.auth.SigV4QueryAuth,
        endpoint_url=None,
        aws_access_key_id=None,
        aws_secret_access_key=None,
    ):
        creds = botocore.credentials.Credentials(
            aws_access_key_id or env.ACCESS_KEY, aws_secret_access_key or env.SECRET_KEY
        )
        signer = signer_factory(creds, service, region or env.REGION)
        return SigningHttpClient(signer, endpoint_url or env.ENDPOINT)

    return factory


@pytest.fixture(scope="session")
def account_id():
    return env.ACCOUNT_ID


@pytest.fixture(scope="session")
def region_name():
    return env.REGION


@pytest.fixture(scope="session")
def secondary_region_name():
    return env.SECONDARY_REGION


@pytest.fixture(scope="session")
def partition(region_name):
    return get_partition(region_name)


def _single_account():
    pytest.skip("needs a second AWS account; lqsd serves a single account (--account-id)")


@pytest.fixture
def secondary_aws_client():
    _single_account()


@pytest.fixture
def secondary_aws_client_factory():
    _single_account()


@pytest.fixture
def secondary_account_id():
    _single_account()


@pytest.fixture
def create_lambda_function():
    pytest.skip("needs AWS Lambda, which lqsd does not serve")


# --- SQS helpers --------------------------------------------------------------------------


@pytest.fixture
def sqs_create_queue(aws_client):
    created = []

    def create(**kwargs):
        kwargs.setdefault("QueueName", f"test-queue-{short_uid()}")
        url = aws_client.sqs.create_queue(**kwargs)["QueueUrl"]
        created.append(url)
        return url

    yield create
    for url in created:
        try:
            aws_client.sqs.delete_queue(QueueUrl=url)
        except Exception as e:  # already deleted by the test, mostly
            LOG.debug("cleanup of %s: %s", url, e)


@pytest.fixture
def sqs_queue(sqs_create_queue):
    return sqs_create_queue()


@pytest.fixture
def sqs_get_queue_arn(aws_client):
    def get_arn(queue_url):
        attrs = aws_client.sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])
        return attrs["Attributes"]["QueueArn"]

    return get_arn


@pytest.fixture
def sqs_queue_exists(aws_client):
    def exists(queue_url):
        try:
            url = aws_client.sqs.get_queue_url(QueueName=queue_url.split("/")[-1])["QueueUrl"]
        except ClientError as e:
            if "NonExistentQueue" in e.response["Error"]["Code"]:
                return False
            raise
        return url == queue_url

    return exists


@pytest.fixture
def sqs_collect_messages(aws_client):
    def collect(
        queue_url,
        expected,
        timeout,
        delete=True,
        attribute_names=None,
        message_attribute_names=None,
        max_number_of_messages=1,
        wait_time_seconds=5,
        sqs_client=None,
    ):
        client = sqs_client or aws_client.sqs
        got = []

        def receive_some():
            response = client.receive_message(
                QueueUrl=queue_url,
                WaitTimeSeconds=wait_time_seconds,
                MaxNumberOfMessages=max_number_of_messages,
                AttributeNames=attribute_names or [],
                MessageAttributeNames=message_attribute_names or [],
            )
            for message in response.get("Messages", []):
                got.append(message)
                if delete:
                    client.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
            return len(got) >= expected

        if not poll_condition(receive_some, timeout=timeout):
            raise TimeoutError(f"expected {expected} messages, got {len(got)}")
        return got

    return collect


@pytest.fixture
def cleanups():
    fns = []
    yield fns
    for fn in reversed(fns):
        try:
            fn()
        except Exception as e:
            LOG.debug("cleanup failed: %s", e)


# --- snapshot -----------------------------------------------------------------------------


@pytest.fixture
def snapshot(_snapshot_session, account_id, region_name):
    return lqs_compat_snapshot.setup_session(
        _snapshot_session, env.ENDPOINT, account_id, region_name, get_partition(region_name)
    )
