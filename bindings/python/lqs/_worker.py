"""lqs.Worker: the SQS consumer loop (lqs/worker.h) driving a Python handler.

The loop, the heartbeats, the retries, the dead-letter moves, the rate limits and
the shutdown all run in C++ threads (lqs::Worker); those threads take the GIL only
to call the handler (and the logger) and to convert the message. This module only
turns the handler's outcome into the worker's verdict:

* the handler returns (anything)        -> success: the message is deleted;
* it raises ``lqs.NonRetryableError``    -> the message goes to the DLQ at once;
* it raises anything else                -> retried after a backoff.

With ``transaction=True`` the handler also gets a :class:`lqs.Transaction`; on
success the C++ worker adds the message's delete (and the inbox record) to it and
commits it, so the handler's records and the acknowledgement are one write.

Threads, not asyncio: handlers mostly block on I/O (a database, an HTTP call),
which releases the GIL, so a pool of threads runs them concurrently; and the
heartbeats that keep long handlers' leases alive run in C++ threads that never
need the GIL, so a handler hogging the interpreter cannot make its lease lapse.
An ``async def`` handler is accepted too: its coroutines run on one private
event-loop thread per worker.
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import inspect
import logging
import signal
import threading
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from . import _lqs
from . import MessageAttribute, Queue, Transaction  # lqs/__init__.py imports this last

__all__ = ["Worker", "WorkerMessage", "NonRetryableError", "WORKER_OPTIONS"]

_log = logging.getLogger("lqs.worker")


class NonRetryableError(Exception):
    """Raise from a Worker handler for a failure that retrying cannot fix (invalid
    input, a permanent refusal downstream): the message moves to the queue's
    dead-letter queue at once, with ``str(error)`` in the worker's
    ``error_attribute`` message attribute. Any other exception is retried."""


@dataclasses.dataclass(frozen=True)
class WorkerMessage:
    """What a Worker handler receives: a received message (frozen)."""

    queue_name: str
    message_id: str
    receipt_handle: str
    body: str
    attributes: Dict[str, str]                 # all system attributes
    message_attributes: Dict[str, Any]         # name -> lqs.MessageAttribute
    receive_count: int                         # 1 on the first delivery
    message_group_id: Optional[str]
    idempotency_key: str                       # what the inbox records

    def __repr__(self) -> str:
        body = self.body if len(self.body) <= 40 else self.body[:37] + "..."
        return (f"<lqs.WorkerMessage {self.message_id} receive_count={self.receive_count} "
                f"body={body!r}>")


# The WorkerOptions fields (lqs/worker.h) and how each keyword is converted.
_INT32 = ("max_messages_per_receive", "wait_time_seconds", "visibility_timeout_seconds",
          "concurrency", "max_in_progress", "backoff_base_seconds", "backoff_max_seconds")
_INT64 = ("inbox_ttl_seconds",)
_FLOAT = ("rate_limit_per_second", "rate_limit_per_group_per_second", "backoff_jitter")
_BOOL = ("inbox",)
_STR = ("error_attribute", "idempotency_attribute")
WORKER_OPTIONS = _INT32 + _INT64 + _FLOAT + _BOOL + _STR + ("clock", "logger")

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR}


def _option_values(options: Mapping[str, Any]) -> Dict[str, Any]:
    """Checks the types of the WorkerOptions keywords; the C++ side checks ranges
    (lqs.InvalidParameterValue naming the option)."""
    out: Dict[str, Any] = {}
    for name, v in options.items():
        if name in _INT32 or name in _INT64:
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Worker option {name} must be an int, not {type(v).__name__}")
            bits = 31 if name in _INT32 else 63
            # Out of the C++ type's range: clamp, so that the C++ range check names it.
            out[name] = max(-(1 << bits), min((1 << bits) - 1, v))
        elif name in _FLOAT:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"Worker option {name} must be a number, not {type(v).__name__}")
            out[name] = float(v)
        elif name in _BOOL:
            out[name] = bool(v)
        elif name in _STR:
            if not isinstance(v, str):
                raise TypeError(f"Worker option {name} must be a str, not {type(v).__name__}")
            out[name] = v
        else:
            raise TypeError(f"unknown Worker option {name!r} (options: "
                            f"{', '.join(WORKER_OPTIONS)})")
    return out


def _message(row: tuple) -> WorkerMessage:
    (queue_name, message_id, receipt_handle, body, attributes, message_attributes,
     receive_count, group, key) = row
    return WorkerMessage(queue_name, message_id, receipt_handle, body, attributes,
                         {k: MessageAttribute(t, v) for k, (t, v) in message_attributes.items()},
                         receive_count, group, key)


def _describe(e: BaseException) -> str:
    """The error text the worker logs (and records in the DLQ attribute)."""
    if isinstance(e, NonRetryableError):
        return str(e) or type(e).__name__
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _verdict(e: Any) -> tuple:
    """(outcome, error) for the C++ side: 1 retry, 2 non-retryable."""
    if isinstance(e, type) and issubclass(e, BaseException):
        e = e()
    if isinstance(e, NonRetryableError):
        return (2, _describe(e))
    if isinstance(e, BaseException):
        return (1, _describe(e))
    return (1, str(e) if e is not None else "failed")


class _LoopThread:
    """One private asyncio event loop on a daemon thread, for async handlers."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="lqs-worker-asyncio", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()
        self.loop.close()

    def run(self, awaitable: Any) -> Any:
        # Blocks this handler thread (GIL released while waiting) until the
        # coroutine finished on the loop; its exception propagates.
        return asyncio.run_coroutine_threadsafe(_await(awaitable), self.loop).result()

    def close(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self.thread:
            self.thread.join(10)


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _default_logger(level: str, line: str) -> None:
    _log.log(_LEVELS.get(level, logging.ERROR), "%s", line)


# Started workers, kept alive until stopped (like running threads): dropping the
# last reference to a running Worker does not stop it.
_running: "set[Worker]" = set()
_running_lock = threading.Lock()


def _prune_running() -> None:
    with _running_lock:
        for w in [w for w in _running if w._rep.stopped]:
            _running.discard(w)


@atexit.register
def _stop_running_workers() -> None:
    # Worker threads must not wait for the GIL of a finalizing interpreter:
    # stop every worker still running when the interpreter exits.
    with _running_lock:
        workers = list(_running)
    for w in workers:
        try:
            w.stop(w._exit_timeout)
        except Exception:  # pragma: no cover - best effort at exit
            pass


class Worker:
    """Runs ``handler`` for every message of ``queue`` on a pool of threads.

    ``handler(msg: WorkerMessage)`` returns normally for success (the message is
    deleted), raises :class:`NonRetryableError` to dead-letter it at once, or
    raises anything else to retry it after a backoff. With ``batch=True``,
    ``handler(msgs: list[WorkerMessage])`` returns None / {} when all succeeded
    or a dict ``{message_id: exception}`` of the failed ones (a raise fails the
    whole batch). ``async def`` handlers run on a private event-loop thread.

    With ``transaction=True``, ``handler(msg, tx)`` also gets an :class:`lqs.Transaction`
    (put, get, delete, scan, send, delete_message, change_visibility) to record its
    effect in: when it returns normally, the worker deletes the message in that same
    transaction (with ``inbox=True``, records its idempotency key too) and commits it,
    so the effect is applied exactly when the message is acknowledged. A raise rolls
    the transaction back. A commit refused with TransactionConflict (a key it read
    changed, or the lease was lost) applies nothing; the message is redelivered and
    counted in ``stats()["transaction_conflicts"]``. The handler must not commit or
    roll back ``tx`` itself, and ``tx`` is usable only during the call. Not with
    ``batch=True``.

    ``options`` are the WorkerOptions fields (lqs/worker.h) as keywords:
    max_messages_per_receive, wait_time_seconds, visibility_timeout_seconds,
    concurrency, max_in_progress, rate_limit_per_second,
    rate_limit_per_group_per_second, backoff_base_seconds, backoff_max_seconds,
    backoff_jitter, error_attribute, inbox, idempotency_attribute,
    inbox_ttl_seconds; ``clock`` (default: the database's clock, which it must
    be) and ``logger`` (``callable(level, line)`` with level "debug", "info",
    "warning" or "error"; default: the ``logging`` logger "lqs.worker").

    Raises lqs.InvalidParameterValue for an option out of range, TypeError for an
    unknown option or a wrong type, lqs.Closed when the database is closed.
    """

    def __init__(self, queue: Any, handler: Callable[..., Any], *, batch: bool = False,
                 transaction: bool = False, **options: Any) -> None:
        if not isinstance(queue, Queue):
            raise TypeError(f"queue must be an lqs.Queue, not {type(queue).__name__}")
        if not callable(handler):
            raise TypeError("handler must be callable")
        if batch and transaction:
            raise ValueError("a batch handler cannot take a transaction (batch=True and "
                             "transaction=True): its messages succeed and fail one by one")
        clock = options.pop("clock", None)
        logger = options.pop("logger", None)
        db_clock = getattr(queue.broker, "clock", None)
        if clock is None:
            clock = db_clock
        elif clock is not db_clock:
            raise ValueError("Worker clock must be the database's clock "
                             "(the ManualClock passed to lqs.open, or None for the system clock)")
        values = _option_values(options)
        if logger is None:
            py_logger: Callable[[str, str], None] = _default_logger
            # Lines below the logger's level are dropped in C++ (no GIL taken).
            eff = _log.getEffectiveLevel()
            min_level = 0 if eff <= logging.DEBUG else 1 if eff <= logging.INFO else \
                2 if eff <= logging.WARNING else 3
        elif callable(logger):
            py_logger, min_level = logger, 0
        else:
            raise TypeError("logger must be callable(level: str, line: str)")

        self.queue = queue
        self.handler = handler
        self.batch = bool(batch)
        self.transaction = bool(transaction)
        self._exit_timeout = 30.0
        self._loop: Optional[_LoopThread] = None
        self._loop_lock = threading.Lock()
        self._started = False
        call = ("_call_batch" if self.batch else
                "_call_transactional" if self.transaction else "_call_one")
        self._rep = _lqs.Worker(queue._rep, _CallProxy(weakref.ref(self), call),
                                self.batch, self.transaction, values, clock, py_logger,
                                min_level)

    # -- the handler, called from C++ worker threads with the GIL held

    def _run_handler(self, *args: Any) -> Any:
        r = self.handler(*args)
        if inspect.isawaitable(r):
            with self._loop_lock:
                if self._loop is None:
                    self._loop = _LoopThread()
                loop = self._loop
            r = loop.run(r)
        return r

    def _call_one(self, row: tuple) -> Optional[tuple]:
        try:
            self._run_handler(_message(row))
        except BaseException as e:  # noqa: B902 - every failure is a verdict
            if _log.isEnabledFor(logging.DEBUG):
                _log.debug("handler raised for message %s", row[1], exc_info=True)
            return _verdict(e)
        return None

    def _call_transactional(self, row: tuple, tx_rep: Any) -> Optional[tuple]:
        try:
            self._run_handler(_message(row), Transaction(tx_rep))
        except BaseException as e:  # noqa: B902 - every failure is a verdict
            if _log.isEnabledFor(logging.DEBUG):
                _log.debug("handler raised for message %s", row[1], exc_info=True)
            return _verdict(e)
        return None

    def _call_batch(self, rows: List[tuple]) -> Optional[Dict[str, tuple]]:
        msgs = [_message(r) for r in rows]
        try:
            failures = self._run_handler(msgs)
        except BaseException as e:  # noqa: B902
            if _log.isEnabledFor(logging.DEBUG):
                _log.debug("batch handler raised", exc_info=True)
            v = _verdict(e)
            return {m.message_id: v for m in msgs}
        if not failures:
            return None
        if not isinstance(failures, Mapping):
            v = (1, "batch handler must return None or a dict {message_id: exception}, not "
                    f"{type(failures).__name__}")
            return {m.message_id: v for m in msgs}
        return {str(k): _verdict(e) for k, e in failures.items()}

    # -- control

    def start(self) -> "Worker":
        """Starts receiving and handling. A Worker starts once (a second start
        raises lqs.InvalidParameterValue); lqs.Closed after the database closed."""
        _prune_running()
        self._rep.start()
        self._started = True
        with _running_lock:
            _running.add(self)
        return self

    def pause(self) -> None:
        """Stops receiving new messages until resume(); running handlers go on."""
        self._rep.pause()

    def resume(self) -> None:
        self._rep.resume()

    @property
    def paused(self) -> bool:
        return self._rep.paused

    @property
    def started(self) -> bool:
        return self._started

    @property
    def stopped(self) -> bool:
        """True once stop() (or the database's close()) has finished."""
        return self._rep.stopped

    def stop(self, timeout: float = 30.0) -> bool:
        """Graceful shutdown: stops receiving, releases what was received but not
        started, lets running handlers finish for at most ``timeout`` seconds of
        real time. True when every handler finished in time. Idempotent. Blocks
        with the GIL released; must not be called from this worker's handler."""
        finished = self._rep.stop(float(timeout))
        with _running_lock:
            _running.discard(self)
        if finished:  # no handler can still be waiting for a coroutine
            with self._loop_lock:
                loop, self._loop = self._loop, None
            if loop is not None:
                loop.close()
        return finished

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Blocks until stop() finished (from another thread, a signal handler or
        Broker.close()); False if ``timeout`` seconds passed first. Waits in
        short slices with the GIL released, so Ctrl-C and signal handlers run."""
        if timeout is not None:
            return self._rep.wait(max(0.0, float(timeout)))
        while not self._rep.wait(0.2):
            pass
        return True

    def stats(self) -> Dict[str, Union[int, float]]:
        """Counters since start() (WorkerStats): received, succeeded, retried,
        dead_lettered, duplicates_skipped, released, lease_extensions,
        lease_extension_failures, delete_failures, transaction_conflicts,
        in_progress (a gauge),
        handler_p50_ms, handler_p99_ms."""
        return self._rep.stats()

    def run(self, install_signal_handlers: bool = True, stop_timeout: float = 30.0) -> bool:
        """Starts (unless started) and blocks until SIGTERM or SIGINT (or until
        another thread stops the worker), then stops with ``stop_timeout``.
        Returns stop()'s result. Signal handlers can only be installed from the
        main thread; elsewhere (or with install_signal_handlers=False) it runs
        until stop() is called, and KeyboardInterrupt still stops it cleanly."""
        requested = threading.Event()
        previous: Dict[int, Any] = {}
        if install_signal_handlers and threading.current_thread() is threading.main_thread():
            def on_signal(signum: int, frame: Any) -> None:
                _log.info("signal %d: stopping the worker on queue %s", signum,
                          self.queue.name)
                requested.set()
            for sig in (signal.SIGTERM, signal.SIGINT):
                previous[sig] = signal.signal(sig, on_signal)
        try:
            if not self._started:
                self.start()
            # Short slices: the main thread returns to the interpreter between
            # them, so Python-level signal handlers run promptly.
            while not requested.is_set() and not self._rep.wait(0.2):
                pass
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            finished = self.stop(stop_timeout)
        return finished

    def __enter__(self) -> "Worker":
        if not self._started:
            self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = ("stopped" if self.stopped else "paused" if self.paused
                 else "running" if self._started else "new")
        return f"<lqs.Worker queue={self.queue.name!r} {state}>"


class _CallProxy:
    """What the C++ worker calls: forwards to the Worker's bound method through a
    weak reference, so the C++ side never keeps the Python Worker alive (the Worker
    owns the C++ worker; a strong reference back would be a cycle through C++ that
    the garbage collector cannot see)."""

    __slots__ = ("_ref", "_name")

    def __init__(self, ref: "weakref.ReferenceType[Worker]", name: str) -> None:
        self._ref = ref
        self._name = name

    def __call__(self, arg: Any, *rest: Any) -> Any:
        w = self._ref()
        if w is None:
            failure = (1, "the lqs.Worker object was garbage-collected")
            if isinstance(arg, list):
                return {row[1]: failure for row in arg}
            return failure
        return getattr(w, self._name)(arg, *rest)
