"""lqs.mock_sqs: an in-process lqsd for code that creates its own boto3 clients.

The moto habit (``with mock_aws(): ...``), with lqs's durable, exact semantics: for the
duration of the block an :class:`lqs.Server` runs in this process and the environment
points the AWS SDKs at it (``AWS_ENDPOINT_URL_SQS``, dummy credentials, a default
region); on the way out the environment is restored exactly and the server stopped.

botocore reads ``AWS_ENDPOINT_URL_SQS`` itself from version 1.31 on. For older ones
(Debian's 1.29) the block also makes botocore's ``Session.create_client`` give an "sqs"
client created without an ``endpoint_url`` the variable's value, and puts the original
back afterwards.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import os
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

__all__ = ["mock_sqs", "DUMMY_ACCESS_KEY_ID", "DUMMY_SECRET_ACCESS_KEY"]

DUMMY_ACCESS_KEY_ID = "lqs-test"
DUMMY_SECRET_ACCESS_KEY = "lqs-test"
ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_SQS"


def _botocore_reads_service_endpoints() -> bool:
    """Whether the installed botocore honours AWS_ENDPOINT_URL_<SERVICE> (>= 1.31)."""
    import botocore
    parts: List[int] = []
    for piece in botocore.__version__.split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts) >= (1, 31)


class _EndpointPatch:
    """Makes botocore < 1.31 create "sqs" clients on $AWS_ENDPOINT_URL_SQS while
    installed (see the module's docstring)."""

    def __init__(self) -> None:
        self._saved: Optional[Callable[..., Any]] = None

    def install(self) -> None:
        import botocore.session
        original = botocore.session.Session.create_client
        signature = inspect.signature(original)

        def create_client(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            if (bound.arguments.get("service_name") == "sqs"
                    and bound.arguments.get("endpoint_url") is None
                    and os.environ.get(ENDPOINT_VARIABLE)):
                bound.arguments["endpoint_url"] = os.environ[ENDPOINT_VARIABLE]
            return original(*bound.args, **bound.kwargs)

        create_client.__wrapped__ = original  # type: ignore[attr-defined]
        self._saved = original
        botocore.session.Session.create_client = create_client  # type: ignore[method-assign]

    def remove(self) -> None:
        if self._saved is not None:
            import botocore.session
            botocore.session.Session.create_client = self._saved  # type: ignore[method-assign]
            self._saved = None


class mock_sqs(contextlib.ContextDecorator):
    """An in-process lqsd that code creating its own boto3 clients talks to.

    As a context manager::

        with lqs.mock_sqs() as sqs:
            boto3.client("sqs").create_queue(QueueName="jobs")   # served by sqs.server

    or as a decorator, on a plain function or a test function (each call gets a fresh
    server)::

        @lqs.mock_sqs()
        def test_jobs():
            ...

    On entry it starts :class:`lqs.Server` over a temporary database
    (``**server_options`` are its keywords; ``manual_clock=True``, ``"frozen"`` or
    ``"running"`` gives it a manual clock, as :class:`lqs.Server`; ``clock`` is then that
    clock) and sets ``AWS_ENDPOINT_URL_SQS`` to its URL,
    ``AWS_ACCESS_KEY_ID`` and ``AWS_SECRET_ACCESS_KEY`` to dummy values, and
    ``AWS_DEFAULT_REGION`` to ``region`` when neither it nor ``AWS_REGION`` is set.
    With botocore older than 1.31, which does not read ``AWS_ENDPOINT_URL_SQS``, it also
    patches botocore's client creation to use it for SQS clients made without an
    ``endpoint_url``. On exit it restores every one of those variables as it was (one
    that was unset is unset again), removes the patch and stops the server, whose
    database is removed. boto3 and botocore must be installed.

    Attributes while active: ``server`` (the :class:`lqs.Server`), ``url`` (its
    endpoint), ``clock`` (its :class:`lqs.ManualClock`, or None)."""

    def __init__(self, *, region: str = "us-east-1", manual_clock: Union[bool, str] = False,
                 **server_options: Any) -> None:
        self.region = region
        self._server_options: Dict[str, Any] = dict(server_options, manual_clock=manual_clock)
        self.server: Any = None
        self._saved_env: List[Tuple[str, Optional[str]]] = []
        self._patch: Optional[_EndpointPatch] = None

    @property
    def url(self) -> str:
        """The endpoint of the running server."""
        if self.server is None:
            raise RuntimeError("mock_sqs is not active")
        return str(self.server.url)

    @property
    def clock(self) -> Any:
        """The server's :class:`lqs.ManualClock` (``manual_clock=True``), else None."""
        return None if self.server is None else self.server.clock

    def _recreate_cm(self) -> "mock_sqs":
        # A decorated function gets a fresh copy for each call (calls may nest).
        fresh = copy.copy(self)
        fresh.server, fresh._saved_env, fresh._patch = None, [], None
        return fresh

    def _set(self, name: str, value: str) -> None:
        self._saved_env.append((name, os.environ.get(name)))
        os.environ[name] = value

    def __enter__(self) -> "mock_sqs":
        if self.server is not None:
            raise RuntimeError("this mock_sqs is already active")
        from . import Server  # the package's, imported late (lqs imports this module)
        self.server = Server(region=self.region, **self._server_options)
        try:
            self._set(ENDPOINT_VARIABLE, self.server.url)
            self._set("AWS_ACCESS_KEY_ID", DUMMY_ACCESS_KEY_ID)
            self._set("AWS_SECRET_ACCESS_KEY", DUMMY_SECRET_ACCESS_KEY)
            if not os.environ.get("AWS_DEFAULT_REGION") and not os.environ.get("AWS_REGION"):
                self._set("AWS_DEFAULT_REGION", self.region)
            if not _botocore_reads_service_endpoints():
                self._patch = _EndpointPatch()
                self._patch.install()
        except BaseException:
            self._restore()
            raise
        return self

    def _restore(self) -> None:
        try:
            if self._patch is not None:
                self._patch.remove()
                self._patch = None
            for name, value in reversed(self._saved_env):
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            self._saved_env = []
        finally:
            server, self.server = self.server, None
            if server is not None:
                server.close()

    def __exit__(self, *exc: Any) -> None:
        self._restore()
