"""lqs's pytest plugin: SQS fixtures on an in-process lqsd, or on any SQS endpoint.

Installed with pip, the package registers it through the ``pytest11`` entry point;
otherwise load it with ``pytest -p lqs.pytest`` (or ``pytest_plugins = ["lqs.pytest"]``
in a conftest.py). Fixtures:

``lqs_server``
    An :class:`lqs.Server` over a temporary database, with a manual clock, started once
    per test session (skips the test under ``--sqs-endpoint``). The clock runs with real
    time and ``lqs_clock.advance`` jumps it forward (lqsd's ``--manual-clock=running``), so
    a step short of a deadline needs a margin, as against SQS; ``--lqs-clock frozen``
    stops it between advances instead, for exact steps.
``sqs_client``
    A boto3 SQS client bound to the endpoint, with dummy credentials and region ``us-east-1``
    in process (whichever botocore is installed: the query protocol of botocore < 1.31 and
    the JSON protocol of later ones both work).
``sqs_queue``
    The URL of a fresh queue, with a unique name, deleted after the test. The
    ``@pytest.mark.sqs_queue(fifo=False, attributes=None)`` marker chooses its kind.
``lqs_clock``
    The endpoint's manual clock: ``lqs_clock.advance(seconds)`` expires visibility
    timeouts, delays and retention and ends long polls whose wait has passed, without
    sleeping; ``lqs_clock.now_millis()`` reads it. On the running clock (the default) a
    long poll on an empty queue also ends after its real ``WaitTimeSeconds``, as on SQS;
    under ``--lqs-clock frozen`` nothing expires by itself, and such a long poll waits
    until the clock is moved past its ``WaitTimeSeconds``.
``sqs_endpoint_url``
    The endpoint the fixtures use.

``--sqs-endpoint URL`` points the fixtures at another endpoint: a separately started
lqsd, or real SQS. There the client uses the default AWS credentials (dummy ones when
there are none) and the region of ``--sqs-region``, else ``AWS_REGION`` /
``AWS_DEFAULT_REGION``, else us-east-1. ``lqs_clock`` then moves the endpoint's clock
through ``POST /_lqs/clock/advance`` (SigV4-signed with the client's credentials), and
skips the test, saying why, when ``GET /_lqs/clock`` does not answer (an lqsd started
without ``--manual-clock``, real SQS).
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
import uuid
from typing import Any, Dict, Iterator, Optional

import pytest

from ._mock import DUMMY_ACCESS_KEY_ID, DUMMY_SECRET_ACCESS_KEY

__all__ = ["LqsClock", "SqsTarget"]

DEFAULT_REGION = "us-east-1"


class LqsClock:
    """The manual clock of the endpoint under test (the ``lqs_clock`` fixture).

    In process it moves the :class:`lqs.ManualClock` directly; for an ``--sqs-endpoint``
    it sends signed ``GET /_lqs/clock`` and ``POST /_lqs/clock/advance`` requests."""

    def __init__(self, target: "SqsTarget") -> None:
        self._target = target

    def advance(self, seconds: float) -> int:
        """Moves the clock forward by ``seconds`` (>= 0; a fraction for milliseconds)
        and returns the new time in milliseconds since the epoch. Raises ValueError for
        a negative step."""
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0, not {seconds!r}")
        server = self._target.server
        if server is not None:
            return int(server.advance_clock(seconds))
        answer = self._target.clock_request("POST", "/_lqs/clock/advance",
                                            {"seconds": seconds})
        return int(answer["now_millis"])

    def now_millis(self) -> int:
        """The clock's time in milliseconds since the epoch."""
        server = self._target.server
        if server is not None:
            return int(server.clock.now_millis())
        return int(self._target.clock_request("GET", "/_lqs/clock")["now_millis"])

    @property
    def running(self) -> bool:
        """True when the clock also runs with real time (``--manual-clock=running``, the
        in-process default), False when it moves only in :meth:`advance`."""
        server = self._target.server
        if server is not None:
            return bool(server.clock.running)
        return bool(self._target.clock_request("GET", "/_lqs/clock").get("running", False))

    def __repr__(self) -> str:
        return f"<LqsClock of {self._target.url}>"


class SqsTarget:
    """The endpoint the fixtures use: the in-process ``server``, or a remote ``url``."""

    def __init__(self, url: str, region: str, server: Any = None) -> None:
        import boto3
        self.url = url.rstrip("/")
        self.region = region
        self.server = server
        if server is not None:
            self.session = boto3.Session(aws_access_key_id=DUMMY_ACCESS_KEY_ID,
                                         aws_secret_access_key=DUMMY_SECRET_ACCESS_KEY,
                                         region_name=region)
        else:
            self.session = boto3.Session(region_name=region)
            if self.session.get_credentials() is None:  # an lqsd that verifies nothing
                self.session = boto3.Session(aws_access_key_id=DUMMY_ACCESS_KEY_ID,
                                             aws_secret_access_key=DUMMY_SECRET_ACCESS_KEY,
                                             region_name=region)
        self._clock_problem: Optional[str] = None
        self._clock_checked = False

    def client(self) -> Any:
        """A new SQS client on the endpoint."""
        return self.session.client("sqs", endpoint_url=self.url, region_name=self.region)

    def clock_request(self, method: str, path: str,
                      body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """A SigV4-signed request to the endpoint's manual clock; its JSON answer.
        Raises RuntimeError with the endpoint's error when it is not 200."""
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        data = None if body is None else json.dumps(body).encode()
        request = AWSRequest(method=method, url=self.url + path, data=data,
                             headers={"Content-Type": "application/json"} if data else {})
        credentials = self.session.get_credentials()
        SigV4Auth(credentials.get_frozen_credentials(), "sqs", self.region).add_auth(request)
        prepared = urllib.request.Request(self.url + path, data=data, method=method,
                                          headers=dict(request.headers.items()))
        try:
            with urllib.request.urlopen(prepared, timeout=30) as response:
                return dict(json.loads(response.read().decode()))
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")[:300]
            raise RuntimeError(f"{method} {self.url}{path} answered {e.code}: {text}") from e

    def clock_problem(self) -> Optional[str]:
        """Why this endpoint has no usable manual clock, or None when it has one."""
        if self.server is not None:
            return None if self.server.clock is not None else "lqs_server has no manual clock"
        if not self._clock_checked:
            self._clock_checked = True
            try:
                answer = self.clock_request("GET", "/_lqs/clock")
                if not isinstance(answer.get("now_millis"), int):
                    raise ValueError(f"unexpected answer {answer!r}")
            except Exception as e:  # noqa: BLE001 - any failure means "no clock here"
                self._clock_problem = (
                    f"the SQS endpoint {self.url} has no manual clock (GET /_lqs/clock: {e}); "
                    "lqs_clock needs an lqsd started with --manual-clock (real SQS has none)")
        return self._clock_problem


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("lqs", "lqs SQS fixtures")
    group.addoption("--sqs-endpoint", metavar="URL", default=None,
                    help="run the SQS fixtures (sqs_client, sqs_queue, lqs_clock) against this "
                         "endpoint (an lqsd, or real SQS) instead of an in-process lqsd")
    group.addoption("--sqs-region", metavar="REGION", default=None,
                    help="region of --sqs-endpoint's client (default: AWS_REGION, "
                         "AWS_DEFAULT_REGION, else us-east-1)")
    group.addoption("--lqs-clock", choices=("running", "frozen"), default="running",
                    help="lqs_server's manual clock: running (real time runs, lqs_clock.advance "
                         "jumps ahead; the default) or frozen (time moves only in "
                         "lqs_clock.advance)")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "sqs_queue(fifo=False, attributes=None): the kind of queue the sqs_queue "
                   "fixture creates (lqs.pytest)")


def _remote_url(config: Any) -> Optional[str]:
    url = config.getoption("--sqs-endpoint", default=None)
    return str(url) if url else None


@pytest.fixture(scope="session")
def lqs_server(request: Any) -> Iterator[Any]:
    """An in-process lqsd (:class:`lqs.Server` over a temporary database, manual
    clock on) for the whole session. Skips the test when ``--sqs-endpoint`` is given."""
    if _remote_url(request.config):
        pytest.skip("lqs_server is the in-process lqsd; --sqs-endpoint points the "
                    "fixtures elsewhere")
    from . import Server
    server = Server(manual_clock=request.config.getoption("--lqs-clock"))
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def _lqs_sqs_target(request: Any) -> SqsTarget:
    url = _remote_url(request.config)
    if url is None:
        server = request.getfixturevalue("lqs_server")
        return SqsTarget(server.url, DEFAULT_REGION, server=server)
    region = (request.config.getoption("--sqs-region", default=None)
              or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
              or DEFAULT_REGION)
    return SqsTarget(url, region)


@pytest.fixture(scope="session")
def sqs_endpoint_url(_lqs_sqs_target: SqsTarget) -> str:
    """The SQS endpoint the fixtures use (the in-process lqsd's, or --sqs-endpoint)."""
    return _lqs_sqs_target.url


@pytest.fixture
def sqs_client(_lqs_sqs_target: SqsTarget) -> Iterator[Any]:
    """A boto3 SQS client on the endpoint, closed after the test."""
    client = _lqs_sqs_target.client()
    try:
        yield client
    finally:
        close = getattr(client, "close", None)
        if close is not None:
            close()


def _queue_name(node_name: str, fifo: bool) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", node_name).strip("-")[:48] or "test"
    name = f"{stem}-{uuid.uuid4().hex[:12]}"
    return name + ".fifo" if fifo else name


@pytest.fixture
def sqs_queue(request: Any, sqs_client: Any) -> Iterator[str]:
    """The URL of a new queue with a unique name, deleted after the test.
    ``@pytest.mark.sqs_queue(fifo=True, attributes={...})`` makes a FIFO queue and/or
    sets its attributes (string values, as CreateQueue takes them)."""
    marker = request.node.get_closest_marker("sqs_queue")
    fifo = bool(marker.kwargs.get("fifo", False)) if marker else False
    attributes = {k: str(v) for k, v in
                  ((marker.kwargs.get("attributes") or {}) if marker else {}).items()}
    if fifo:
        attributes["FifoQueue"] = "true"
    url = sqs_client.create_queue(QueueName=_queue_name(request.node.name, fifo),
                                  Attributes=attributes)["QueueUrl"]
    try:
        yield url
    finally:
        from botocore.exceptions import ClientError
        try:
            sqs_client.delete_queue(QueueUrl=url)
        except ClientError as e:
            code = e.response.get("Error", {}).get("Code", "")
            if code not in ("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue"):
                raise  # anything but "the test deleted it"


@pytest.fixture
def lqs_clock(_lqs_sqs_target: SqsTarget) -> LqsClock:
    """The endpoint's manual clock (see :class:`LqsClock`); skips the test when the
    endpoint has none."""
    problem = _lqs_sqs_target.clock_problem()
    if problem is not None:
        pytest.skip(problem)
    return LqsClock(_lqs_sqs_target)
