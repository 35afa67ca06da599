"""lqs -- an embedded, persistent message queue with Amazon SQS semantics.

Two APIs over the same database:

* the Pythonic one::

      import lqs
      with lqs.open("/var/lib/myapp/queues") as broker:
          jobs = broker.create_queue("jobs", attributes={"VisibilityTimeout": "60"})
          jobs.send("resize photo 42", message_attributes={"size": 1024})
          for msg in jobs.messages(wait_time_seconds=20):
              handle(msg.body)
              msg.delete()

* a boto3-shaped client, for tests and for code written against boto3::

      sqs = lqs.client()            # a temporary database, removed on close()
      url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
      sqs.send_message(QueueUrl=url, MessageBody="hello")

* lqsd's SQS endpoint in this process, :class:`lqs.Server`, for code that talks to
  SQS over HTTP (boto3, the AWS CLI, any SDK)::

      with lqs.Server() as server:   # a temporary database, any free port
          sqs = boto3.client("sqs", endpoint_url=server.url, region_name="us-east-1",
                             aws_access_key_id="x", aws_secret_access_key="x")

* a consumer runtime, :class:`lqs.Worker`: long polling, a thread pool, heartbeats,
  retries with backoff, dead-lettering, an idempotency inbox, graceful shutdown::

      def handle(msg: lqs.WorkerMessage) -> None:
          apply(msg.body)            # raise lqs.NonRetryableError to dead-letter it
      lqs.Worker(jobs, handle, concurrency=8, inbox=True).run()   # until SIGTERM

Errors are exceptions under :class:`lqs.Error`, one class per SQS error code
(:class:`QueueDoesNotExist`, :class:`InvalidParameterValue`, ...), each with
``.code`` (the SQS error code boto3 reports), ``.http_status`` and ``.message``.

Every call that touches the database releases the GIL, so a long poll blocks
only its own thread. Broker, Queue and ManualClock objects may be shared
between threads.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import re
import shutil
import tempfile
import time
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional,
                    Sequence, Tuple, TypeVar, Union)

from . import _errors
from ._errors import (BatchEntryIdsNotDistinct, BatchRequestTooLong, Closed, Corruption,
                      DatabaseLocked, EmptyBatchRequest, Error, InternalError,
                      InvalidAttributeName, InvalidAttributeValue, InvalidBatchEntryId,
                      InvalidMessageContents, InvalidParameterValue, MessageNotInflight,
                      MissingParameter, OverLimit, OverStorageBudget, PurgeQueueInProgress,
                      QueueDeletedRecently, QueueDoesNotExist, QueueNameExists,
                      ReceiptHandleIsInvalid, ResourceNotFound, StorageIOError,
                      TooManyEntriesInBatchRequest, TransactionConflict, UnsupportedOperation, error_class)
from . import _lqs
from ._lqs import ManualClock
from ._lqs import limits  # SQS's limits and defaults (lqs/limits.h)

_errors._install_table(_lqs.error_table())

_Self = TypeVar("_Self")

__version__: str = _lqs.version()

__all__ = [
    "open", "client", "Server", "Broker", "Queue", "Message", "MessageAttribute", "SendResult",
    "BatchResult", "BatchResultError", "MoveTask", "ManualClock", "limits", "DURABILITY_NONE",
    "DURABILITY_PROCESS", "DURABILITY_FSYNC", "Error", "error_class",
    "InvalidParameterValue", "MissingParameter", "InvalidAttributeName",
    "InvalidAttributeValue", "QueueDoesNotExist", "QueueNameExists", "QueueDeletedRecently",
    "PurgeQueueInProgress", "ReceiptHandleIsInvalid", "InvalidMessageContents",
    "EmptyBatchRequest", "TooManyEntriesInBatchRequest", "BatchEntryIdsNotDistinct",
    "InvalidBatchEntryId", "BatchRequestTooLong", "OverLimit", "ResourceNotFound",
    "UnsupportedOperation", "MessageNotInflight", "StorageIOError", "Corruption",
    "DatabaseLocked", "Closed", "InternalError", "OverStorageBudget", "Worker", "WorkerMessage",
    "NonRetryableError", "Bridge", "Transaction", "TransactionConflict", "mock_sqs",
]

class _ClosesOnExit:
    """A context manager over ``close()``: ``with`` gives the object itself and
    closes it on the way out (Broker, Server, SQSClient)."""

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()  # type: ignore[attr-defined]


def _rep_property(name: str) -> Any:
    """A read-only property with the value of the attribute ``name`` of ``self._rep``."""
    return property(lambda self: getattr(self._rep, name))


DURABILITY_NONE = "none"
DURABILITY_PROCESS = "process"
DURABILITY_FSYNC = "fsync"
_DURABILITY = {"none": 0, "process": 1, "fsync": 2}


# ---- Values ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class MessageAttribute:
    """A user message attribute. ``data_type`` is "String", "Number" or "Binary"
    (optionally with a ".label"); ``value`` is str, or bytes for Binary types."""

    data_type: str
    value: Union[str, bytes]


AttributeValue = Union[str, bytes, int, float, MessageAttribute, Tuple[str, Union[str, bytes]],
                       Mapping[str, Any]]


def _attribute(name: str, v: Any) -> Tuple[str, Union[str, bytes]]:
    """Accepts str (String), bytes (Binary), int/float (Number), a MessageAttribute,
    a (data_type, value) pair, or a boto3-style {"DataType", "StringValue" |
    "BinaryValue"} dict."""
    if isinstance(v, MessageAttribute):
        return (v.data_type, v.value)
    if isinstance(v, bool):
        raise TypeError(f"message attribute {name!r}: bool is not an SQS type; use a str")
    if isinstance(v, str):
        return ("String", v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return ("Binary", bytes(v))
    if isinstance(v, (int, float)):
        return ("Number", repr(v) if isinstance(v, float) else str(v))
    if isinstance(v, tuple) and len(v) == 2:
        return (str(v[0]), v[1])
    if isinstance(v, Mapping):
        data_type = v.get("DataType", "")
        if "BinaryValue" in v:
            b = v["BinaryValue"]
            return (data_type, b.encode() if isinstance(b, str) else bytes(b))
        return (data_type, v.get("StringValue", ""))
    raise TypeError(f"message attribute {name!r}: unsupported value {v!r}")


def _attributes(attrs: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Tuple[str, Any]]]:
    if not attrs:
        return None
    return {k: _attribute(k, v) for k, v in attrs.items()}


@dataclasses.dataclass(frozen=True)
class SendResult:
    """What a send returns. Digests are SQS's (hex MD5)."""

    message_id: str
    md5_of_message_body: str
    md5_of_message_attributes: Optional[str] = None
    md5_of_message_system_attributes: Optional[str] = None
    sequence_number: Optional[str] = None  # FIFO queues only


@dataclasses.dataclass(frozen=True)
class BatchResultError:
    """A failed batch entry: ``code`` is the SQS code (e.g. "ReceiptHandleIsInvalid")."""

    id: str
    code: str
    message: str
    sender_fault: bool = True


@dataclasses.dataclass(frozen=True)
class BatchResult:
    """Per-entry outcome of a batch call. ``successful`` maps each successful entry id to
    its SendResult (send batches) or None (delete and change-visibility batches)."""

    successful: Dict[str, Optional[SendResult]]
    failed: List[BatchResultError]

    @property
    def ok(self) -> bool:
        return not self.failed


@dataclasses.dataclass(frozen=True)
class MoveTask:
    """A message move task (ListMessageMoveTasks)."""

    status: str
    source_arn: str
    approximate_number_of_messages_moved: int
    approximate_number_of_messages_to_move: int
    started_timestamp: int  # epoch milliseconds
    task_handle: Optional[str] = None  # only while RUNNING
    destination_arn: Optional[str] = None
    max_number_of_messages_per_second: Optional[int] = None
    failure_reason: Optional[str] = None


def _failed(rows: Iterable[Mapping[str, Any]]) -> List[BatchResultError]:
    return [BatchResultError(id=r["id"], code=r["code"], message=r["message"],
                             sender_fault=r["sender_fault"]) for r in rows]


class Message:
    """A received message. ``attributes`` holds the requested system attributes
    (e.g. "ApproximateReceiveCount" -> "1"), ``message_attributes`` the requested
    user attributes as :class:`MessageAttribute` values."""

    __slots__ = ("queue", "message_id", "receipt_handle", "body", "md5_of_body",
                 "attributes", "message_attributes", "md5_of_message_attributes")

    def __init__(self, queue: "Queue", row: Mapping[str, Any]) -> None:
        self.queue = queue
        self.message_id: str = row["message_id"]
        self.receipt_handle: str = row["receipt_handle"]
        self.body: str = row["body"]
        self.md5_of_body: str = row["md5_of_body"]
        self.attributes: Dict[str, str] = row["attributes"]
        self.message_attributes: Dict[str, MessageAttribute] = {
            k: MessageAttribute(t, v) for k, (t, v) in row["message_attributes"].items()}
        self.md5_of_message_attributes: Optional[str] = row["md5_of_message_attributes"]

    @property
    def receive_count(self) -> Optional[int]:
        """ApproximateReceiveCount, when it was requested."""
        v = self.attributes.get("ApproximateReceiveCount")
        return int(v) if v is not None else None

    @property
    def sent_timestamp(self) -> Optional[int]:
        """SentTimestamp (epoch ms), when it was requested."""
        v = self.attributes.get("SentTimestamp")
        return int(v) if v is not None else None

    def delete(self) -> None:
        """Deletes this message (its queue's DeleteMessage with this receipt handle)."""
        self.queue.delete(self.receipt_handle)

    def change_visibility(self, visibility_timeout: int) -> None:
        """Ends this message's lease ``visibility_timeout`` seconds from now."""
        self.queue.change_visibility(self.receipt_handle, visibility_timeout)

    def delete_and_record(self, idempotency_key: str,
                          ttl_seconds: int = limits.DEFAULT_INBOX_TTL_SECONDS) -> None:
        """Deletes this message and records ``idempotency_key`` in the queue's inbox,
        atomically (see :meth:`Queue.delete_and_record`)."""
        self.queue.delete_and_record(self.receipt_handle, idempotency_key, ttl_seconds)

    def move_to_dead_letter_queue(
            self, extra_attributes: Optional[Mapping[str, "AttributeValue"]] = None) -> None:
        """Moves this (leased) message to the queue's dead-letter queue at once
        (see :meth:`Queue.move_to_dead_letter_queue`)."""
        self.queue.move_to_dead_letter_queue(self.receipt_handle, extra_attributes)

    def __repr__(self) -> str:
        body = self.body if len(self.body) <= 40 else self.body[:37] + "..."
        return f"<lqs.Message {self.message_id} body={body!r}>"


HandleLike = Union[str, Message]


def _handle(h: HandleLike) -> str:
    return h.receipt_handle if isinstance(h, Message) else h


# ---- Queue ----------------------------------------------------------------------------

class Queue:
    """One queue of a :class:`Broker`. Obtained from Broker.create_queue /
    get_queue; valid until the queue is deleted (then calls raise QueueDoesNotExist)
    or the broker is closed (then they raise Closed)."""

    def __init__(self, broker: "Broker", rep: Any) -> None:
        self._broker = broker
        self._rep = rep

    name = _rep_property("name")
    arn = _rep_property("arn")
    is_fifo = _rep_property("is_fifo")

    @property
    def broker(self) -> "Broker":
        return self._broker

    def __repr__(self) -> str:
        return f"<lqs.Queue {self.name!r}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Queue) and other._broker is self._broker and other.name == self.name

    def __hash__(self) -> int:
        return hash((id(self._broker), self.name))

    # -- sending

    def send(self, body: str, *, delay_seconds: Optional[int] = None,
             message_attributes: Optional[Mapping[str, AttributeValue]] = None,
             message_system_attributes: Optional[Mapping[str, AttributeValue]] = None,
             message_group_id: Optional[str] = None,
             message_deduplication_id: Optional[str] = None) -> SendResult:
        """Sends one message; durable when this returns.

        ``message_attributes`` values may be str (String), int/float (Number), bytes
        (Binary), a MessageAttribute or a (data_type, value) pair.
        ``message_system_attributes`` accepts only "AWSTraceHeader".
        ``message_group_id`` / ``message_deduplication_id``: FIFO queues.
        Raises MissingParameter (empty body), InvalidMessageContents,
        InvalidParameterValue (size, delay, attributes), QueueDoesNotExist."""
        r = self._rep.send_message(body, delay_seconds, _attributes(message_attributes),
                                   _attributes(message_system_attributes), message_group_id,
                                   message_deduplication_id)
        return SendResult(**r)

    def send_batch(self, entries: Iterable[Union[str, Mapping[str, Any]]]) -> BatchResult:
        """Sends 1..10 messages; each succeeds or fails on its own.

        Each entry is a body string (its id is its position, "0", "1", ...) or a dict
        with "body" and optionally "id" and the keyword arguments of :meth:`send`.
        Raises EmptyBatchRequest, TooManyEntriesInBatchRequest, InvalidBatchEntryId,
        BatchEntryIdsNotDistinct, BatchRequestTooLong for the request as a whole."""
        rows = []
        for i, e in enumerate(entries):
            if isinstance(e, str):
                e = {"body": e}
            unknown = set(e) - {"id", "body", "delay_seconds", "message_attributes",
                                "message_system_attributes", "message_group_id",
                                "message_deduplication_id"}
            if unknown:
                raise TypeError(f"unknown batch entry keys: {sorted(unknown)}")
            rows.append((str(e.get("id", i)), e["body"], e.get("delay_seconds"),
                         _attributes(e.get("message_attributes")),
                         _attributes(e.get("message_system_attributes")),
                         e.get("message_group_id"), e.get("message_deduplication_id")))
        r = self._rep.send_message_batch(rows)
        return BatchResult(successful={i: SendResult(**s) for i, s in r["successful"]},
                           failed=_failed(r["failed"]))

    # -- receiving

    def receive(self, *, max_number_of_messages: int = 1,
                wait_time_seconds: Optional[int] = None,
                visibility_timeout: Optional[int] = None,
                message_system_attribute_names: Sequence[str] = ("All",),
                message_attribute_names: Sequence[str] = ("All",),
                receive_request_attempt_id: Optional[str] = None) -> List[Message]:
        """Leases up to ``max_number_of_messages`` (1..10) messages.

        ``wait_time_seconds`` (0..20; default: the queue's
        ReceiveMessageWaitTimeSeconds) > 0 long-polls: the call blocks this thread
        (never others: the GIL is released) until a message is available or the
        wait ends, and returns [] when it ends with nothing (also when the queue is
        deleted during the wait). Unlike SQS, all system and user attributes are
        returned by default. Raises InvalidParameterValue, OverLimit,
        QueueDoesNotExist (the queue was deleted before the call), Closed."""
        rows = self._rep.receive_message(max_number_of_messages, visibility_timeout,
                                         wait_time_seconds,
                                         list(message_system_attribute_names),
                                         list(message_attribute_names),
                                         receive_request_attempt_id)
        return [Message(self, row) for row in rows]

    @contextlib.contextmanager
    def receive_one(self, *, wait_time_seconds: Optional[int] = None,
                    visibility_timeout: Optional[int] = None) -> Iterator[Optional[Message]]:
        """Receives at most one message for a ``with`` block: the message is deleted
        when the block ends normally and made visible again at once when it raises.
        Yields None when nothing arrived in the wait time."""
        got = self.receive(wait_time_seconds=wait_time_seconds,
                           visibility_timeout=visibility_timeout)
        msg = got[0] if got else None
        try:
            yield msg
        except BaseException:
            if msg is not None:
                with contextlib.suppress(Error):
                    msg.change_visibility(0)
            raise
        if msg is not None:
            msg.delete()

    def messages(self, *, wait_time_seconds: int = limits.MAX_WAIT_TIME_SECONDS,
                 max_number_of_messages: int = limits.MAX_RECEIVE_MESSAGES,
                 visibility_timeout: Optional[int] = None,
                 stop_when_empty: bool = False,
                 message_system_attribute_names: Sequence[str] = ("All",),
                 message_attribute_names: Sequence[str] = ("All",)) -> Iterator[Message]:
        """Iterates over messages as they arrive, long-polling in between. Runs until
        the broker is closed (the iterator then ends) or, with
        ``stop_when_empty=True``, until a receive returns nothing. The caller deletes
        each message it has processed."""
        while True:
            try:
                batch = self.receive(max_number_of_messages=max_number_of_messages,
                                     wait_time_seconds=wait_time_seconds,
                                     visibility_timeout=visibility_timeout,
                                     message_system_attribute_names=message_system_attribute_names,
                                     message_attribute_names=message_attribute_names)
            except Closed:
                return
            if not batch and stop_when_empty:
                return
            yield from batch

    def __iter__(self) -> Iterator[Message]:
        """``for msg in queue``: the messages currently available (short polls until
        one returns nothing)."""
        return self.messages(wait_time_seconds=0, stop_when_empty=True)

    # -- deleting and visibility

    def delete(self, receipt_handle: HandleLike) -> None:
        """Deletes a message by receipt handle (or Message). Deleting an already
        deleted message succeeds. Raises ReceiptHandleIsInvalid."""
        self._rep.delete_message(_handle(receipt_handle))

    def delete_batch(self, handles: Union[Sequence[HandleLike], Mapping[str, HandleLike]]
                     ) -> BatchResult:
        """Deletes 1..10 messages. ``handles``: a list (ids "0", "1", ...) or a dict
        id -> receipt handle (or Message)."""
        items = handles.items() if isinstance(handles, Mapping) else enumerate(handles)
        r = self._rep.delete_message_batch([(str(i), _handle(h)) for i, h in items])
        return BatchResult(successful={i: None for i in r["successful"]},
                           failed=_failed(r["failed"]))

    def change_visibility(self, receipt_handle: HandleLike, visibility_timeout: int) -> None:
        """Ends the message's lease ``visibility_timeout`` (0..43200) seconds from now;
        0 makes it visible at once."""
        self._rep.change_message_visibility(_handle(receipt_handle), visibility_timeout)

    def change_visibility_batch(
            self, entries: Union[Sequence[Tuple[HandleLike, Optional[int]]],
                                 Mapping[str, Tuple[HandleLike, Optional[int]]]]
    ) -> BatchResult:
        """Changes 1..10 leases: a list of (handle, timeout) pairs (ids "0", "1", ...)
        or a dict id -> (handle, timeout). A None timeout leaves that lease as is."""
        items = entries.items() if isinstance(entries, Mapping) else enumerate(entries)
        rows = [(str(i), _handle(h), t) for i, (h, t) in items]
        r = self._rep.change_message_visibility_batch(rows)
        return BatchResult(successful={i: None for i in r["successful"]},
                           failed=_failed(r["failed"]))

    def purge(self) -> None:
        """Deletes every message. Raises PurgeQueueInProgress within 60 s of the last."""
        self._rep.purge()

    # -- consumer support (lqs extensions, used by lqs.Worker)

    def delete_and_record(self, receipt_handle: HandleLike, idempotency_key: str,
                          ttl_seconds: int = limits.DEFAULT_INBOX_TTL_SECONDS) -> None:
        """Deletes the message exactly as :meth:`delete` does and, in the same atomic
        write, records ``idempotency_key`` (1..512 bytes) in the queue's idempotency
        inbox for ``ttl_seconds`` (1..1209600); re-recording a key renews it. Either
        both happen or neither. Raises the errors of delete, InvalidParameterValue."""
        self._rep.delete_message_and_record(_handle(receipt_handle), idempotency_key,
                                            int(ttl_seconds))

    def inbox_contains(self, idempotency_key: str) -> bool:
        """True when ``idempotency_key`` is recorded in the inbox and not expired."""
        return self._rep.inbox_contains(idempotency_key)

    def move_to_dead_letter_queue(
            self, receipt_handle: HandleLike,
            extra_attributes: Optional[Mapping[str, AttributeValue]] = None) -> None:
        """Moves the leased message to this queue's dead-letter queue (its
        RedrivePolicy's target) at once, whatever its receive count, adding
        ``extra_attributes`` (values as in :meth:`send`; they overwrite same-named
        ones). Raises ReceiptHandleIsInvalid; InvalidParameterValue when the queue
        has no RedrivePolicy or the message's lease has ended; QueueDoesNotExist."""
        self._rep.move_to_dead_letter_queue(_handle(receipt_handle),
                                            _attributes(extra_attributes))

    # -- attributes, tags, permissions

    def get_attributes(self, *names: str) -> Dict[str, str]:
        """The named attributes (default: "All") as SQS strings."""
        return self._rep.get_attributes(list(names) or ["All"])

    @property
    def attributes(self) -> Dict[str, str]:
        """All attributes (GetQueueAttributes "All")."""
        return self.get_attributes("All")

    def set_attributes(self, attributes: Optional[Mapping[str, Any]] = None,
                       **kwargs: Any) -> None:
        """Sets attributes given as a dict and/or keywords
        (``q.set_attributes(VisibilityTimeout=60)``). Values are converted with str()
        (bools to "true"/"false"). All are validated before any is applied."""
        merged = dict(attributes or {})
        merged.update(kwargs)
        self._rep.set_attributes(_attr_strings(merged))

    def tag(self, tags: Optional[Mapping[str, str]] = None, **kwargs: str) -> None:
        """Adds or overwrites tags."""
        merged = dict(tags or {})
        merged.update(kwargs)
        self._rep.tag(merged)

    def untag(self, *keys: str) -> None:
        """Removes tags; unknown keys are ignored."""
        self._rep.untag(list(keys))

    @property
    def tags(self) -> Dict[str, str]:
        return self._rep.list_tags()

    def add_permission(self, label: str, account_ids: Sequence[str],
                       actions: Sequence[str]) -> None:
        """Adds a Policy statement ``label`` granting ``actions`` to ``account_ids``."""
        self._rep.add_permission(label, list(account_ids), list(actions))

    def remove_permission(self, label: str) -> None:
        self._rep.remove_permission(label)


def _attr_strings(attrs: Mapping[str, Any]) -> Dict[str, str]:
    out = {}
    for k, v in attrs.items():
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        else:
            out[k] = str(v)
    return out


# ---- Broker ---------------------------------------------------------------------------

class Broker(_ClosesOnExit):
    """An open lqs database (a directory): its queues and their messages. Use as a
    context manager or call close().
    Safe to share between threads; close() must not race with other calls."""

    def __init__(self, rep: Any, clock: Optional[ManualClock] = None) -> None:
        self._rep = rep
        self.clock = clock

    # lifetime

    def close(self) -> None:
        """Flushes and closes the database. Idempotent. Long-polling receivers wake
        and raise Closed; later calls on this broker and its queues raise Closed."""
        if not self._rep.closed:
            self._rep.close()

    @property
    def closed(self) -> bool:
        return bool(self._rep.closed)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<lqs.Broker {self.path!r} {state}>"

    path = _rep_property("path")
    region = _rep_property("region")
    account_id = _rep_property("account_id")

    def arn_for(self, name: str) -> str:
        """arn:aws:sqs:<region>:<account_id>:<name>"""
        return self._rep.arn_for(name)

    # catalogue

    def create_queue(self, name: str, *, attributes: Optional[Mapping[str, Any]] = None,
                     tags: Optional[Mapping[str, str]] = None) -> Queue:
        """Creates queue ``name``, or returns the existing one when every given attribute
        equals its current value (SQS's rule). Attribute values are converted with
        str() (bools to "true"/"false"). Raises InvalidParameterValue (bad name),
        InvalidAttributeName, InvalidAttributeValue, QueueNameExists,
        QueueDeletedRecently, UnsupportedOperation."""
        return Queue(self, self._rep.create_queue(name, _attr_strings(attributes or {}),
                                                  dict(tags or {})))

    def get_queue(self, name: str) -> Queue:
        """The queue called ``name``. Raises QueueDoesNotExist."""
        return Queue(self, self._rep.get_queue(name))

    def __getitem__(self, name: str) -> Queue:
        return self.get_queue(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self._rep.get_queue(name)
        except QueueDoesNotExist:
            return False
        return True

    def get_queue_by_arn(self, arn: str) -> Queue:
        return Queue(self, self._rep.get_queue_by_arn(arn))

    def delete_queue(self, name: Union[str, Queue]) -> None:
        """Deletes a queue and its messages. Raises QueueDoesNotExist."""
        self._rep.delete_queue(name.name if isinstance(name, Queue) else name)

    def list_queues(self, prefix: str = "", *, max_results: Optional[int] = None,
                    next_token: Optional[str] = None) -> Tuple[List[str], Optional[str]]:
        """One page of queue names in name order, and the next token (None at the end).
        Without max_results: at most 1000 names and no token (SQS's rule)."""
        r = self._rep.list_queues(prefix, max_results, next_token)
        return r["queue_names"], r["next_token"]

    def queue_names(self, prefix: str = "") -> Iterator[str]:
        """Every queue name with ``prefix``, paging through all of them."""
        token: Optional[str] = None
        while True:
            names, token = self.list_queues(prefix, max_results=limits.MAX_LIST_QUEUES_RESULTS,
                                            next_token=token)
            yield from names
            if token is None:
                return

    def queues(self, prefix: str = "") -> Iterator[Queue]:
        """Every queue with ``prefix`` (skipping any deleted meanwhile)."""
        for name in self.queue_names(prefix):
            try:
                yield self.get_queue(name)
            except QueueDoesNotExist:
                continue

    def list_dead_letter_source_queues(self, dlq: Union[str, Queue], *,
                                       max_results: Optional[int] = None,
                                       next_token: Optional[str] = None
                                       ) -> Tuple[List[str], Optional[str]]:
        """Names of the queues whose RedrivePolicy targets ``dlq``, paginated."""
        r = self._rep.list_dead_letter_source_queues(
            dlq.name if isinstance(dlq, Queue) else dlq, max_results, next_token)
        return r["queue_names"], r["next_token"]

    # move tasks

    def start_message_move_task(self, source_arn: str, *, destination_arn: Optional[str] = None,
                                max_number_of_messages_per_second: Optional[int] = None) -> str:
        """Starts moving a dead-letter queue's messages back to their sources (or to
        ``destination_arn``); returns the task handle. Raises ResourceNotFound,
        InvalidParameterValue."""
        return self._rep.start_message_move_task(source_arn, destination_arn,
                                                 max_number_of_messages_per_second)

    def cancel_message_move_task(self, task_handle: str) -> int:
        """Cancels a running task; returns the number of messages moved so far."""
        return self._rep.cancel_message_move_task(task_handle)

    def list_message_move_tasks(self, source_arn: str, *, max_results: int = 1) -> List[MoveTask]:
        """The most recent tasks of ``source_arn``, newest first (max_results 1..10)."""
        return [MoveTask(**t) for t in self._rep.list_message_move_tasks(source_arn, max_results)]

    # maintenance

    def run_maintenance(self) -> None:
        """One pass of the background work: retention, move tasks, space reclaim."""
        self._rep.run_maintenance()

    def compact_all(self) -> None:
        self._rep.compact_all()

    def verify(self) -> List[str]:
        """Checks every invariant; returns the problems found (empty = consistent)."""
        return list(self._rep.verify())

    # tables and transactions (docs/transactions.md)

    def transaction(self) -> "Transaction":
        """A new transaction: table records and queue operations committed as one atomic
        write. Use it as a context manager (commits at the end, rolls back on an
        exception) or call commit() / rollback()."""
        return Transaction(self._rep.begin_transaction())

    def get(self, table: str, key: Union[str, bytes]) -> Optional[bytes]:
        """The committed value of ``key`` in ``table``, or None."""
        return self._rep.get(table, key)

    def scan(self, table: str, prefix: Union[str, bytes] = b"") -> Iterator[Tuple[bytes, bytes]]:
        """The committed ``(key, value)`` pairs of ``table`` whose key starts with
        ``prefix``, in key byte order (read from one consistent view)."""
        return iter(self._rep.scan(table, prefix))


KeyLike = Union[str, bytes]


def _queue_name(queue: Union[str, "Queue"]) -> str:
    return queue.name if isinstance(queue, Queue) else queue


class Transaction:
    """Table records and queue operations that commit together, or not at all
    (docs/transactions.md)::

        with broker.transaction() as tx:       # commits at the end; rolls back on an exception
            tx.put("exports", request_id, "ACCEPTED")
            tx.send("jobs", request_id)

    Keys and values are bytes or str (UTF-8); reads return bytes. Every call checks its
    arguments at once (the errors of the Queue calls); nothing is visible to others before
    the commit. The commit raises :class:`TransactionConflict` when a key the transaction
    read was changed by another commit, or the lease behind one of its deletes or visibility
    changes was lost: nothing was applied, and running the transaction again may succeed.
    One thread at a time; not over HTTP."""

    def __init__(self, rep: Any) -> None:
        self._rep = rep
        self.sent: List[SendResult] = []

    def __enter__(self) -> "Transaction":
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.rollback()

    def put(self, table: str, key: KeyLike, value: KeyLike) -> None:
        """Writes a record (table: 1..64 of [A-Za-z0-9_.-]; key 1..1024 bytes; value up to
        256 KiB)."""
        self._rep.put(table, key, value)

    def get(self, table: str, key: KeyLike) -> Optional[bytes]:
        """The value, or None; sees this transaction's own writes."""
        return self._rep.get(table, key)

    def delete(self, table: str, key: KeyLike) -> None:
        """Deletes a record (an absent key is fine)."""
        self._rep.delete(table, key)

    def scan(self, table: str, prefix: KeyLike = b"") -> Iterator[Tuple[bytes, bytes]]:
        """``(key, value)`` pairs whose key starts with ``prefix``, in key order, with this
        transaction's own writes merged in."""
        return iter(self._rep.scan(table, prefix))

    def send(self, queue: Union[str, "Queue"], body: str, *,
             delay_seconds: Optional[int] = None,
             message_attributes: Optional[Mapping[str, AttributeValue]] = None,
             message_system_attributes: Optional[Mapping[str, AttributeValue]] = None,
             message_group_id: Optional[str] = None,
             message_deduplication_id: Optional[str] = None) -> None:
        """Sends a message at commit (checked now as :meth:`Queue.send` checks it); its
        SendResult is in :attr:`sent` after the commit."""
        self._rep.send_message(_queue_name(queue), body, delay_seconds,
                               _attributes(message_attributes),
                               _attributes(message_system_attributes), message_group_id,
                               message_deduplication_id)

    def delete_message(self, message: "Message") -> None:
        """Deletes a received message at commit, if its lease is still current then
        (else the commit raises TransactionConflict)."""
        self._rep.delete_message(message.queue.name, message.receipt_handle)

    def change_visibility(self, message: "Message", visibility_timeout: int) -> None:
        """Changes a received message's visibility at commit, if its lease is still current
        then (else the commit raises TransactionConflict)."""
        self._rep.change_message_visibility(message.queue.name, message.receipt_handle,
                                            visibility_timeout)

    def commit(self) -> List[SendResult]:
        """Applies everything as one atomic write; returns (and keeps in :attr:`sent`) the
        results of the sends, in call order. The transaction is finished afterwards."""
        self.sent = [SendResult(**r) for r in self._rep.commit()]
        return self.sent

    def rollback(self) -> None:
        """Discards the transaction (nothing was written). Idempotent."""
        self._rep.rollback()


def open(path: str, *, create_if_missing: bool = True, durability: str = "process",
         clock: Optional[ManualClock] = None, region: str = "us-east-1",
         account_id: str = "123456789012", sender_id: str = "AIDAIT2UOQQY3AUEKVGXU",
         enforce_queue_name_reuse_delay: bool = True, enforce_purge_interval: bool = True,
         max_inflight_per_queue: int = limits.MAX_INFLIGHT_MESSAGES,
         background_maintenance: bool = True,
         maintenance_interval_ms: int = 1000, block_cache_bytes: Optional[int] = None,
         write_buffer_bytes: Optional[int] = None, flush_on_close: bool = True,
         deferred_commits: bool = False, max_disk_bytes: int = 0,
         profile: str = "default") -> Broker:
    """Opens (or creates) the database in directory ``path``; use it as a context
    manager. ``durability`` is "none", "process" (default; survives kill -9) or
    "fsync" (survives power loss). ``clock``: a :class:`ManualClock` for tests.
    The other keywords are lqs::Options fields (``flush_on_close=False``: closing
    writes no table files, for a database removed right after;
    ``deferred_commits=True``: a :class:`Server` on this database makes each round
    of requests durable with one log write; calls made from Python are durable
    when they return either way; ``max_disk_bytes``: the storage budget, past
    which sends raise :class:`OverStorageBudget` until deleted messages are
    reclaimed, 0 for none). ``profile``: "default", or "small" for a device
    with little memory (lqs::Options::SmallDevice(): 2 MiB block cache, 1 MiB
    memtables, one background job); ``block_cache_bytes`` and
    ``write_buffer_bytes`` default to the profile's (32 MiB and 16 MiB by
    default). Raises ValueError for an unknown profile, DatabaseLocked
    (another process holds it), StorageIOError, Corruption."""
    if durability not in _DURABILITY:
        raise ValueError(f"durability must be one of {sorted(_DURABILITY)}, not {durability!r}")
    rep = _lqs._Broker.open(str(path), create_if_missing, _DURABILITY[durability], clock, region,
                            account_id, sender_id, enforce_queue_name_reuse_delay,
                            enforce_purge_interval, max_inflight_per_queue,
                            background_maintenance, maintenance_interval_ms,
                            -1 if block_cache_bytes is None else block_cache_bytes,
                            -1 if write_buffer_bytes is None else write_buffer_bytes,
                            flush_on_close, deferred_commits, max_disk_bytes, profile)
    return Broker(rep, clock)


class Server(_ClosesOnExit):
    """lqsd's SQS endpoint (both wire protocols) in this process, on its own threads;
    use it as a context manager. ``url`` is the endpoint for boto3's ``endpoint_url``
    (queue URLs are ``<url>/<account_id>/<name>``, see ``url_style``); ``broker`` is the
    :class:`Broker` it serves, for looking at the queues directly.

    ``path=None``: a temporary database (durability "none" unless given), removed at
    ``close()``. ``port=0``: any free port. The other keywords are those of
    :func:`open` (``region``, ``account_id``, ``enforce_purge_interval``, ...).
    ``threads=0``: lqsd's default number of I/O threads (half the cores, at least
    one). ``busy_poll_us``: as lqsd's ``--busy-poll-us``, how long an I/O thread
    may poll for the next request before it sleeps (adapting to the gaps between
    requests); ``0`` never polls; ``None``, lqsd's default (100 when the cores
    outnumber the I/O threads, else 0). ``metrics_listen``: as lqsd's
    ``--metrics-listen``, ``"HOST:PORT"`` of a second listener that serves only
    ``GET /metrics`` and ``GET /health`` (port 0: any free port); ``metrics_url``
    is then its ``http://HOST:PORT`` (else None). ``url_style``: as lqsd's
    ``--url-style``, the form of the queue URLs handed out: ``"path"`` (the region in
    the path outside ``region``, as above) or ``"host"``
    (``http://sqs.<region>.localhost:<port>/<account_id>/<name>`` in every region);
    requests may use either form.
    Regions, as lqsd's: ``broker`` holds the queues of its ``region`` (and of
    unsigned requests); requests signed for another region are served from that
    region's own database under ``<path>/regions/<region>``, opened on first use.
    ``single_region=True`` serves every region from ``broker``. At most
    ``max_regions`` regions, ``broker``'s included, are served; a request for
    one more gets 403 OverLimit.
    ``manual_clock=True`` (or ``"frozen"``): as lqsd's ``--manual-clock``, every region
    runs on one :class:`ManualClock` starting at the current time (or on ``clock=``,
    when given); ``clock`` is that clock (else None). ``advance_clock(seconds)`` moves
    it, as does ``POST <url>/_lqs/clock/advance`` with ``{"seconds": N}`` from any
    client; ``GET <url>/_lqs/clock`` reads it. A ``clock=`` alone also serves those
    paths. A frozen clock expires visibility timeouts, delays and retention and ends
    long polls only when moved: a long poll on an empty queue waits until it is
    advanced past its WaitTimeSeconds. ``manual_clock="running"`` (lqsd's
    ``--manual-clock=running``): the clock also runs with real time, so a long poll
    ends after its real wait, as on SQS, and advancing skips ahead.
    ``close()`` stops the broker's workers (lqs.Worker), stops accepting
    connections, lets requests in progress finish (waiting long polls are answered
    with no messages) and closes the database.
    Raises ValueError when the address cannot be bound."""

    def __init__(self, path: Optional[str] = None, *, host: str = "127.0.0.1", port: int = 0,
                 threads: int = 0, single_region: bool = False, max_regions: int = 32,
                 busy_poll_us: Optional[int] = None, metrics_listen: Optional[str] = None,
                 url_style: str = "path", manual_clock: Union[bool, str] = False,
                 **options: Any) -> None:
        self._temp: Optional[str] = None
        self._rep: Any = None
        if manual_clock not in (False, True, "frozen", "running"):
            raise ValueError("manual_clock must be False, True, \"frozen\" or \"running\", not "
                             + repr(manual_clock))
        if manual_clock and options.get("clock") is None:
            options["clock"] = ManualClock(int(time.time() * 1000),
                                           running=manual_clock == "running")
        self.clock: Optional[ManualClock] = options.get("clock")
        if path is None:
            self._temp = tempfile.mkdtemp(prefix="lqs-server-")
            path = self._temp
            options.setdefault("durability", "none")
            options["flush_on_close"] = False
        options.setdefault("deferred_commits", True)  # as lqsd
        try:
            self.broker = open(path, **options)
            try:
                self._rep = _lqs.Endpoint.start(self.broker._rep, host, port,
                                                self.broker.account_id, threads,
                                                single_region, max_regions, busy_poll_us,
                                                metrics_listen, url_style, self.clock)
            except BaseException:
                self.broker.close()
                raise
        except BaseException:
            self._remove_temp()
            raise
        self.url = "http://" + self._rep.host_port
        metrics = self._rep.metrics_host_port
        self.metrics_url: Optional[str] = "http://" + metrics if metrics else None

    def advance_clock(self, seconds: float) -> int:
        """Moves the manual clock forward by ``seconds`` (>= 0; a fraction for
        milliseconds), waking long polls whose wait has passed; returns the new time
        in milliseconds since the epoch. Raises ValueError without a manual clock or
        for a negative step."""
        if self.clock is None:
            raise ValueError("this Server has no manual clock: start it with manual_clock=True")
        self.clock.advance_seconds(seconds)
        return self.clock.now_millis()

    def close(self) -> None:
        """Stops the endpoint and closes its database (idempotent)."""
        if self._rep is not None:
            rep, self._rep = self._rep, None
            try:
                rep.shutdown()
            finally:
                self.broker.close()
                self._remove_temp()

    def _remove_temp(self) -> None:
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None

    def __repr__(self) -> str:
        return f"<lqs.Server {self.url}{' (closed)' if self._rep is None else ''}>"


_bridge_log = logging.getLogger("lqs.bridge")


def _log_bridge_line(line: str) -> None:
    """lqs.Bridge's default log: the bridge's lines (lib/bridge/bridge_runtime.cc) to
    the "lqs.bridge" logger, coming back online at INFO, the rest at WARNING."""
    _bridge_log.log(logging.INFO if line.endswith(": online") else logging.WARNING, "%s",
                    line)


class Bridge:
    """A bridge between a queue of ``broker`` and a remote SQS queue (Amazon SQS or an
    lqsd), running on its own threads (``docs/bridge.md``).

    ``direction="forward"`` drains ``local_queue`` into ``remote_queue_url``: a message
    is deleted locally only after the remote acknowledged it with the same MD5s.
    ``direction="pull"`` drains the remote queue into ``local_queue``: a message is
    deleted remotely only after it is stored locally, its MessageId recorded in the
    same write, so a redelivery is dropped.

    Credentials: ``access_key_id``/``secret_access_key`` (and ``session_token``), else
    the environment, else ``~/.aws/credentials`` at ``profile`` (else AWS_PROFILE, else
    default); none: unsigned requests. ``region``: empty takes the queue URL's, else
    AWS_REGION. ``ca_file``: a CA trusted for HTTPS besides the system's. Retries
    back off from ``backoff_base_ms`` to ``backoff_max_ms``. ``once=True`` moves what is
    there and ends: :meth:`wait` returns, or raises lqs.StorageIOError when the remote
    could not be reached ``once_attempts`` times in a row.

    ``log``: ``callable(line)`` for the bridge's lines (one per online/offline
    transition, and one per stuck message), called from the bridge's threads; default:
    the ``logging`` logger "lqs.bridge", "online" at INFO and the rest at WARNING.

    Use it as a context manager (stops on the way out). Raises QueueDoesNotExist
    (``local_queue``) or InvalidParameterValue (a bad URL or option, a FIFO queue
    bridged to a standard one)."""

    def __init__(self, broker: Broker, local_queue: str, remote_queue_url: str, *,
                 direction: str = "forward", region: str = "",
                 access_key_id: Optional[str] = None, secret_access_key: Optional[str] = None,
                 session_token: str = "", profile: str = "", ca_file: str = "",
                 request_timeout_seconds: int = 30, backoff_base_ms: int = 250,
                 backoff_max_ms: int = 300_000, backoff_jitter: float = 0.5,
                 max_batches_in_flight: int = 4, lease_seconds: int = 120,
                 wait_time_seconds: int = 20, dedup_window_seconds: int = 3600,
                 once: bool = False, once_attempts: int = 4,
                 log: Optional[Callable[[str], None]] = None) -> None:
        if log is not None and not callable(log):
            raise TypeError("log must be callable(line: str)")
        self.broker = broker
        self._rep = _lqs._Bridge.start(
            broker._rep, direction, local_queue, remote_queue_url, region, access_key_id,
            secret_access_key, session_token, profile, ca_file, request_timeout_seconds,
            backoff_base_ms, backoff_max_ms, backoff_jitter, max_batches_in_flight,
            lease_seconds, wait_time_seconds, dedup_window_seconds, once, once_attempts,
            log if log is not None else _log_bridge_line)

    def stop(self) -> None:
        """Stops the bridge and waits for its threads; messages it held are released
        (idempotent)."""
        self._rep.stop()
        self._rep.wait()

    def wait(self) -> None:
        """Blocks until the bridge ends (a ``once`` drain, or :meth:`stop`); raises why
        the remote could not be reached, if that ended it."""
        self._rep.wait()

    def stats(self) -> Dict[str, Any]:
        """The bridge's counters and state (``docs/bridge.md``, "Metrics"): bridge (its
        name), direction, running, online, transferred, duplicates, dead_lettered, stuck,
        md5_mismatches, failures (by error code), backoff_ms, last_success_ms,
        last_error_ms, last_error, backlog, oldest_age_seconds."""
        return {re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", k).lower(): v
                for k, v in json.loads(self._rep.stats_json()).items()}

    def __enter__(self) -> "Bridge":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._rep.stop()
        if exc[0] is None:
            self._rep.wait()

    def __repr__(self) -> str:
        return f"<lqs.Bridge {self.stats()['bridge']}>"


from ._client import client  # noqa: E402  (needs the names above)
from ._worker import NonRetryableError, Worker, WorkerMessage  # noqa: E402
from ._mock import mock_sqs  # noqa: E402
