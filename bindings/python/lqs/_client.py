"""A boto3-shaped SQS client over an lqs database: ``lqs.client()``.

Every SQS action is a method named as boto3 names it (``send_message``,
``receive_message``, ...), taking the same keyword arguments and returning dicts
shaped like boto3's responses (same keys and types, SQS's MD5 digests, bytes for
BinaryValue, a ResponseMetadata). Errors raise ``botocore.exceptions.ClientError``
(the modeled subclasses in ``client.exceptions`` when botocore knows the code) with
``response["Error"]["Code"]`` as boto3 reports it against Amazon SQS (for example
``AWS.SimpleQueueService.NonExistentQueue``) and the HTTP status SQS uses. Without
botocore, the lqs exception of the code is raised, with the same ``.response``.
"""

from __future__ import annotations

import email.utils
import shutil
import tempfile
import types
import urllib.parse
import uuid
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import _errors
from ._lqs import limits

try:  # botocore is optional
    import botocore.exceptions as _bc_exceptions
    import botocore.session as _bc_session
    from botocore.errorfactory import ClientExceptionsFactory as _BcExceptionsFactory
except ImportError:  # pragma: no cover - exercised only without botocore
    _bc_exceptions = None  # type: ignore[assignment]
    _bc_session = None  # type: ignore[assignment]
    _BcExceptionsFactory = None  # type: ignore[assignment,misc]

DEFAULT_ENDPOINT = "http://localhost:9324"


class ParamValidationError(ValueError):
    """Raised for invalid parameters when botocore is not importable (botocore's
    ParamValidationError otherwise)."""

    def __init__(self, report: str) -> None:
        super().__init__(f"Parameter validation failed:\n{report}")
        self.kwargs = {"report": report}


# ---- Parameter specifications ------------------------------------------------------------
# type codes: s str, i int, b bool, m {str: str}, l [str], a {name: MessageAttributeValue},
# e [entry dict] (entries checked against _ENTRIES[op]).

_S, _I, _M, _L, _A, _E = "s", "i", "m", "l", "a", "e"

# operation name -> (required, optional), each {param: type}
_OPS: Dict[str, Tuple[Dict[str, str], Dict[str, str]]] = {
    "AddPermission": ({"QueueUrl": _S, "Label": _S, "AWSAccountIds": _L, "Actions": _L}, {}),
    "CancelMessageMoveTask": ({"TaskHandle": _S}, {}),
    "ChangeMessageVisibility": ({"QueueUrl": _S, "ReceiptHandle": _S, "VisibilityTimeout": _I},
                                {}),
    "ChangeMessageVisibilityBatch": ({"QueueUrl": _S, "Entries": _E}, {}),
    "CreateQueue": ({"QueueName": _S}, {"Attributes": _M, "tags": _M}),
    "DeleteMessage": ({"QueueUrl": _S, "ReceiptHandle": _S}, {}),
    "DeleteMessageBatch": ({"QueueUrl": _S, "Entries": _E}, {}),
    "DeleteQueue": ({"QueueUrl": _S}, {}),
    "GetQueueAttributes": ({"QueueUrl": _S}, {"AttributeNames": _L}),
    "GetQueueUrl": ({"QueueName": _S}, {"QueueOwnerAWSAccountId": _S}),
    "ListDeadLetterSourceQueues": ({"QueueUrl": _S}, {"NextToken": _S, "MaxResults": _I}),
    "ListMessageMoveTasks": ({"SourceArn": _S}, {"MaxResults": _I}),
    "ListQueueTags": ({"QueueUrl": _S}, {}),
    "ListQueues": ({}, {"QueueNamePrefix": _S, "NextToken": _S, "MaxResults": _I}),
    "PurgeQueue": ({"QueueUrl": _S}, {}),
    "ReceiveMessage": ({"QueueUrl": _S},
                       {"AttributeNames": _L, "MessageSystemAttributeNames": _L,
                        "MessageAttributeNames": _L, "MaxNumberOfMessages": _I,
                        "VisibilityTimeout": _I, "WaitTimeSeconds": _I,
                        "ReceiveRequestAttemptId": _S}),
    "RemovePermission": ({"QueueUrl": _S, "Label": _S}, {}),
    "SendMessage": ({"QueueUrl": _S, "MessageBody": _S},
                    {"DelaySeconds": _I, "MessageAttributes": _A,
                     "MessageSystemAttributes": _A, "MessageDeduplicationId": _S,
                     "MessageGroupId": _S}),
    "SendMessageBatch": ({"QueueUrl": _S, "Entries": _E}, {}),
    "SetQueueAttributes": ({"QueueUrl": _S, "Attributes": _M}, {}),
    "StartMessageMoveTask": ({"SourceArn": _S},
                             {"DestinationArn": _S, "MaxNumberOfMessagesPerSecond": _I}),
    "TagQueue": ({"QueueUrl": _S, "Tags": _M}, {}),
    "UntagQueue": ({"QueueUrl": _S, "TagKeys": _L}, {}),
}

_ENTRIES: Dict[str, Tuple[Dict[str, str], Dict[str, str]]] = {
    "SendMessageBatch": ({"Id": _S, "MessageBody": _S},
                         {"DelaySeconds": _I, "MessageAttributes": _A,
                          "MessageSystemAttributes": _A, "MessageDeduplicationId": _S,
                          "MessageGroupId": _S}),
    "DeleteMessageBatch": ({"Id": _S, "ReceiptHandle": _S}, {}),
    "ChangeMessageVisibilityBatch": ({"Id": _S, "ReceiptHandle": _S},
                                     {"VisibilityTimeout": _I}),
}

_PAGINATORS = {
    "list_queues": ("ListQueues", "QueueUrls"),
    "list_dead_letter_source_queues": ("ListDeadLetterSourceQueues", "queueUrls"),
}


def _xform(name: str) -> str:
    """CamelCase action name -> boto3 method name."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0 and (not name[i - 1].isupper()):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


_METHOD_TO_API = {_xform(op): op for op in _OPS}

_TYPE_NAMES = {_S: "<class 'str'>", _I: "<class 'int'>", _M: "<class 'dict'>",
               _L: "<class 'list'>, <class 'tuple'>", _A: "<class 'dict'>",
               _E: "<class 'list'>, <class 'tuple'>"}


def _type_ok(kind: str, v: Any) -> bool:
    if kind == _S:
        return isinstance(v, str)
    if kind == _I:
        return isinstance(v, int) and not isinstance(v, bool)
    if kind in (_M, _A):
        return isinstance(v, dict)
    return isinstance(v, (list, tuple))


def _check(path: str, spec: Tuple[Dict[str, str], Dict[str, str]], params: Dict[str, Any],
           errors: List[str]) -> None:
    required, optional = spec
    allowed = {**required, **optional}
    for name in required:
        if name not in params:
            errors.append(f'Missing required parameter in {path}: "{name}"')
    for name, v in params.items():
        kind = allowed.get(name)
        if kind is None:
            errors.append(f'Unknown parameter in {path}: "{name}", must be one of: '
                          + ", ".join(allowed))
            continue
        where = name if path == "input" else f"{path}.{name}"
        if not _type_ok(kind, v):
            errors.append(f"Invalid type for parameter {where}, value: {v!r}, "
                          f"type: {type(v)}, valid types: {_TYPE_NAMES[kind]}")
            continue
        if kind == _M:
            for k, x in v.items():
                if not isinstance(x, str):
                    errors.append(f"Invalid type for parameter {where}.{k}, value: {x!r}, "
                                  f"type: {type(x)}, valid types: <class 'str'>")
        elif kind == _L:
            for i, x in enumerate(v):
                if not isinstance(x, str):
                    errors.append(f"Invalid type for parameter {where}[{i}], value: {x!r}, "
                                  f"type: {type(x)}, valid types: <class 'str'>")
        elif kind == _A:
            for k, x in v.items():
                if not isinstance(x, dict) or "DataType" not in x:
                    errors.append(f'Missing required parameter in {where}.{k}: "DataType"')


def _validate(op: str, params: Dict[str, Any]) -> None:
    errors: List[str] = []
    _check("input", _OPS[op], params, errors)
    entries = params.get("Entries")
    if op in _ENTRIES and isinstance(entries, (list, tuple)):
        for i, e in enumerate(entries):
            if not isinstance(e, dict):
                errors.append(f"Invalid type for parameter Entries[{i}], value: {e!r}, "
                              f"type: {type(e)}, valid types: <class 'dict'>")
                continue
            _check(f"Entries[{i}]", _ENTRIES[op], e, errors)
    if errors:
        report = "\n".join(errors)
        if _bc_exceptions is not None:
            raise _bc_exceptions.ParamValidationError(report=report)
        raise ParamValidationError(report)


# ---- Conversions ------------------------------------------------------------------------

def _attrs_in(attrs: Optional[Dict[str, Dict[str, Any]]]) -> Optional[Dict[str, Tuple[str, Any]]]:
    if not attrs:
        return None
    out: Dict[str, Tuple[str, Any]] = {}
    for name, v in attrs.items():
        data_type = v.get("DataType", "")
        if "BinaryValue" in v:
            b = v["BinaryValue"]
            out[name] = (data_type, b.encode("utf-8") if isinstance(b, str) else bytes(b))
        else:
            out[name] = (data_type, v.get("StringValue", ""))
    return out


def _attrs_out(attrs: Dict[str, Tuple[str, Any]]) -> Dict[str, Dict[str, Any]]:
    out: Dict[str, Dict[str, Any]] = {}
    for name, (data_type, value) in attrs.items():
        if isinstance(value, bytes):
            out[name] = {"BinaryValue": value, "DataType": data_type}
        else:
            out[name] = {"StringValue": value, "DataType": data_type}
    return out


def _send_out(r: Dict[str, Any]) -> Dict[str, Any]:
    out = {"MD5OfMessageBody": r["md5_of_message_body"], "MessageId": r["message_id"]}
    if r["md5_of_message_attributes"] is not None:
        out["MD5OfMessageAttributes"] = r["md5_of_message_attributes"]
    if r["md5_of_message_system_attributes"] is not None:
        out["MD5OfMessageSystemAttributes"] = r["md5_of_message_system_attributes"]
    if r["sequence_number"] is not None:
        out["SequenceNumber"] = r["sequence_number"]
    return out


def _failed_out(rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [{"Id": f["id"], "SenderFault": f["sender_fault"], "Code": f["code"],
             "Message": f["message"]} for f in rows]


_SERVICE_MODEL: Any = None
_EXCEPTIONS: Any = None


def _botocore_exceptions() -> Any:
    """client.exceptions as boto3 builds it (from botocore's SQS service model)."""
    global _SERVICE_MODEL, _EXCEPTIONS
    if _EXCEPTIONS is None and _bc_session is not None:
        _SERVICE_MODEL = _bc_session.get_session().get_service_model("sqs")
        _EXCEPTIONS = _BcExceptionsFactory().create_client_exceptions(_SERVICE_MODEL)
    return _EXCEPTIONS


class _LqsExceptions:
    """client.exceptions without botocore: the lqs classes under their SQS shape names."""

    ClientError = _errors.Error

    def __init__(self) -> None:
        for cls in _errors._BY_CODE.values():
            setattr(self, cls.shape or cls.__name__, cls)
            setattr(self, cls.__name__, cls)

    def from_code(self, code: str) -> Any:
        for cls in _errors._BY_CODE.values():
            if code in (cls.code, cls.shape):
                return cls
        return _errors.Error


# ---- Pagination -------------------------------------------------------------------------

class _PageIterator:
    def __init__(self, method: Callable[..., Dict[str, Any]], result_key: str,
                 kwargs: Dict[str, Any]) -> None:
        config = dict(kwargs.pop("PaginationConfig", None) or {})
        self._method = method
        self._result_key = result_key
        self._kwargs = kwargs
        self._max_items = config.get("MaxItems")
        self._page_size = config.get("PageSize")
        self._token = config.get("StartingToken")
        self.resume_token: Optional[str] = None

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        token = self._token
        seen = 0
        while True:
            args = dict(self._kwargs)
            if self._page_size is not None:
                args["MaxResults"] = self._page_size
            elif "MaxResults" not in args:
                args["MaxResults"] = limits.MAX_LIST_QUEUES_RESULTS
            if token:
                args["NextToken"] = token
            page = self._method(**args)
            items = page.get(self._result_key, [])
            if self._max_items is not None and seen + len(items) >= self._max_items:
                page[self._result_key] = items[: self._max_items - seen]
                yield page
                return
            seen += len(items)
            yield page
            token = page.get("NextToken")
            if not token:
                return

    def build_full_result(self) -> Dict[str, Any]:
        items: List[Any] = []
        for page in self:
            items.extend(page.get(self._result_key, []))
        return {self._result_key: items}


class _Paginator:
    def __init__(self, method: Callable[..., Dict[str, Any]], result_key: str) -> None:
        self._method = method
        self._result_key = result_key

    def paginate(self, **kwargs: Any) -> _PageIterator:
        return _PageIterator(self._method, self._result_key, kwargs)


# ---- The client -------------------------------------------------------------------------

def _remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


class SQSClient:
    """boto3-compatible SQS client over an lqs database. Create with lqs.client()."""

    def __init__(self, path: Optional[str] = None, *, endpoint_url: str = DEFAULT_ENDPOINT,
                 **options: Any) -> None:
        from . import open as _open  # late: lqs/__init__ imports this module

        self._tempdir: Optional[str] = None
        self._finalizer: Optional[weakref.finalize] = None
        if path is None:
            self._tempdir = tempfile.mkdtemp(prefix="lqs-client-")
            path = self._tempdir
        try:
            self.broker = _open(path, **options)
        except BaseException:
            if self._tempdir:
                _remove_tree(self._tempdir)
            raise
        if self._tempdir:
            self._finalizer = weakref.finalize(self, _close_and_remove, self.broker,
                                               self._tempdir)
        self._endpoint = endpoint_url.rstrip("/")
        self._account = self.broker.account_id
        exc = _botocore_exceptions()
        self.exceptions = exc if exc is not None else _LqsExceptions()
        self.meta = types.SimpleNamespace(
            region_name=self.broker.region, endpoint_url=self._endpoint,
            service_model=_SERVICE_MODEL, partition="aws", config=None,
            method_to_api_mapping=dict(_METHOD_TO_API), events=None)

    # lifetime

    def close(self) -> None:
        """Closes the database (and removes it if it was temporary). Idempotent."""
        if self._finalizer is not None:
            self._finalizer()
        else:
            self.broker.close()

    def __enter__(self) -> "SQSClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<lqs.client {self.broker.path!r}>"

    # boto3 conveniences

    def can_paginate(self, operation_name: str) -> bool:
        return operation_name in _PAGINATORS

    def get_paginator(self, operation_name: str) -> _Paginator:
        if operation_name not in _PAGINATORS:
            raise ValueError(f"Operation cannot be paginated: {operation_name}")
        return _Paginator(getattr(self, operation_name), _PAGINATORS[operation_name][1])

    def get_waiter(self, waiter_name: str) -> Any:
        raise ValueError(f"Waiter does not exist: {waiter_name}")

    @property
    def waiter_names(self) -> List[str]:
        return []

    def queue_url(self, name: str) -> str:
        """The QueueUrl of queue ``name``: <endpoint>/<account_id>/<name>."""
        return f"{self._endpoint}/{self._account}/{name}"

    # plumbing

    def _metadata(self, status: int = 200) -> Dict[str, Any]:
        rid = str(uuid.uuid4())
        return {"RequestId": rid, "HTTPStatusCode": status,
                "HTTPHeaders": {"x-amzn-requestid": rid,
                                "date": email.utils.formatdate(usegmt=True),
                                "content-type": "text/xml"},
                "RetryAttempts": 0}

    def _raise(self, err: _errors.Error, op: str) -> None:
        response = {
            "Error": {"Type": "Sender" if err.sender_fault else "Receiver",
                      "Code": err.code, "Message": err.message, "QueryErrorCode": err.shape},
            "ResponseMetadata": self._metadata(err.http_status),
        }
        if _bc_exceptions is not None:
            cls = self.exceptions.from_code(err.code)
            if cls is _bc_exceptions.ClientError:
                cls = self.exceptions.from_code(err.shape)
            raise cls(response, op) from None
        raise type(err)(err.message, response=response, operation_name=op) from None

    def _queue_name(self, url: str) -> str:
        parts = [p for p in urllib.parse.urlparse(url).path.split("/") if p]
        if len(parts) < 2 or parts[-2] != self._account:
            raise _errors.QueueDoesNotExist("The specified queue does not exist.")
        return urllib.parse.unquote(parts[-1])

    def _queue(self, url: str) -> Any:
        return self.broker._rep.get_queue(self._queue_name(url))

    def _call(self, op: str, params: Dict[str, Any]) -> Dict[str, Any]:
        _validate(op, params)
        try:
            out = getattr(self, "_op_" + op)(**params)
        except _errors.Error as e:
            self._raise(e, op)
            raise  # unreachable
        # As SQS answers (and boto3 reads): an empty list or map is left out
        # (a batch's Failed when every entry succeeded, queueUrls, Results).
        out = {k: v for k, v in out.items() if not (isinstance(v, (list, dict)) and not v)}
        out["ResponseMetadata"] = self._metadata()
        return out

    # ---- actions (each returns the response without ResponseMetadata)

    def _op_CreateQueue(self, QueueName: str, Attributes: Optional[Dict[str, str]] = None,
                        tags: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        self.broker._rep.create_queue(QueueName, Attributes or {}, tags or {})
        return {"QueueUrl": self.queue_url(QueueName)}

    def _op_DeleteQueue(self, QueueUrl: str) -> Dict[str, Any]:
        self.broker._rep.delete_queue(self._queue_name(QueueUrl))
        return {}

    def _op_GetQueueUrl(self, QueueName: str,
                        QueueOwnerAWSAccountId: Optional[str] = None) -> Dict[str, Any]:
        if QueueOwnerAWSAccountId is not None and QueueOwnerAWSAccountId != self._account:
            raise _errors.QueueDoesNotExist("The specified queue does not exist.")
        self.broker._rep.get_queue(QueueName)
        return {"QueueUrl": self.queue_url(QueueName)}

    def _op_ListQueues(self, QueueNamePrefix: str = "", NextToken: Optional[str] = None,
                       MaxResults: Optional[int] = None) -> Dict[str, Any]:
        r = self.broker._rep.list_queues(QueueNamePrefix, MaxResults, NextToken)
        out: Dict[str, Any] = {}
        if r["queue_names"]:
            out["QueueUrls"] = [self.queue_url(n) for n in r["queue_names"]]
        if r["next_token"]:
            out["NextToken"] = r["next_token"]
        return out

    def _op_ListDeadLetterSourceQueues(self, QueueUrl: str, NextToken: Optional[str] = None,
                                       MaxResults: Optional[int] = None) -> Dict[str, Any]:
        r = self.broker._rep.list_dead_letter_source_queues(self._queue_name(QueueUrl),
                                                             MaxResults, NextToken)
        out: Dict[str, Any] = {"queueUrls": [self.queue_url(n) for n in r["queue_names"]]}
        if r["next_token"]:
            out["NextToken"] = r["next_token"]
        return out

    def _op_GetQueueAttributes(self, QueueUrl: str,
                               AttributeNames: Optional[List[str]] = None) -> Dict[str, Any]:
        attrs = self._queue(QueueUrl).get_attributes(list(AttributeNames or []))
        return {"Attributes": attrs} if attrs else {}

    def _op_SetQueueAttributes(self, QueueUrl: str, Attributes: Dict[str, str]) -> Dict[str, Any]:
        self._queue(QueueUrl).set_attributes(Attributes)
        return {}

    def _op_PurgeQueue(self, QueueUrl: str) -> Dict[str, Any]:
        self._queue(QueueUrl).purge()
        return {}

    def _op_SendMessage(self, QueueUrl: str, MessageBody: str, DelaySeconds: Optional[int] = None,
                        MessageAttributes: Optional[Dict[str, Any]] = None,
                        MessageSystemAttributes: Optional[Dict[str, Any]] = None,
                        MessageDeduplicationId: Optional[str] = None,
                        MessageGroupId: Optional[str] = None) -> Dict[str, Any]:
        r = self._queue(QueueUrl).send_message(
            MessageBody, DelaySeconds, _attrs_in(MessageAttributes),
            _attrs_in(MessageSystemAttributes), MessageGroupId, MessageDeduplicationId)
        return _send_out(r)

    def _op_SendMessageBatch(self, QueueUrl: str, Entries: List[Dict[str, Any]]) -> Dict[str, Any]:
        rows = [(e["Id"], e["MessageBody"], e.get("DelaySeconds"),
                 _attrs_in(e.get("MessageAttributes")), _attrs_in(e.get("MessageSystemAttributes")),
                 e.get("MessageGroupId"), e.get("MessageDeduplicationId")) for e in Entries]
        r = self._queue(QueueUrl).send_message_batch(rows)
        return {"Successful": [{"Id": i, **_send_out(s)} for i, s in r["successful"]],
                "Failed": _failed_out(r["failed"])}

    def _op_ReceiveMessage(self, QueueUrl: str, AttributeNames: Optional[List[str]] = None,
                           MessageSystemAttributeNames: Optional[List[str]] = None,
                           MessageAttributeNames: Optional[List[str]] = None,
                           MaxNumberOfMessages: int = 1, VisibilityTimeout: Optional[int] = None,
                           WaitTimeSeconds: Optional[int] = None,
                           ReceiveRequestAttemptId: Optional[str] = None) -> Dict[str, Any]:
        system = list(AttributeNames or []) + list(MessageSystemAttributeNames or [])
        rows = self._queue(QueueUrl).receive_message(
            MaxNumberOfMessages, VisibilityTimeout, WaitTimeSeconds, system,
            list(MessageAttributeNames or []), ReceiveRequestAttemptId)
        if not rows:
            return {}
        messages = []
        for row in rows:
            m: Dict[str, Any] = {"MessageId": row["message_id"],
                                 "ReceiptHandle": row["receipt_handle"],
                                 "MD5OfBody": row["md5_of_body"], "Body": row["body"]}
            if row["attributes"]:
                m["Attributes"] = row["attributes"]
            if row["md5_of_message_attributes"] is not None:
                m["MD5OfMessageAttributes"] = row["md5_of_message_attributes"]
            if row["message_attributes"]:
                m["MessageAttributes"] = _attrs_out(row["message_attributes"])
            messages.append(m)
        return {"Messages": messages}

    def _op_DeleteMessage(self, QueueUrl: str, ReceiptHandle: str) -> Dict[str, Any]:
        self._queue(QueueUrl).delete_message(ReceiptHandle)
        return {}

    def _op_DeleteMessageBatch(self, QueueUrl: str, Entries: List[Dict[str, Any]]) -> Dict[str, Any]:
        r = self._queue(QueueUrl).delete_message_batch(
            [(e["Id"], e["ReceiptHandle"]) for e in Entries])
        return {"Successful": [{"Id": i} for i in r["successful"]],
                "Failed": _failed_out(r["failed"])}

    def _op_ChangeMessageVisibility(self, QueueUrl: str, ReceiptHandle: str,
                                    VisibilityTimeout: int) -> Dict[str, Any]:
        self._queue(QueueUrl).change_message_visibility(ReceiptHandle, VisibilityTimeout)
        return {}

    def _op_ChangeMessageVisibilityBatch(self, QueueUrl: str,
                                         Entries: List[Dict[str, Any]]) -> Dict[str, Any]:
        r = self._queue(QueueUrl).change_message_visibility_batch(
            [(e["Id"], e["ReceiptHandle"], e.get("VisibilityTimeout")) for e in Entries])
        return {"Successful": [{"Id": i} for i in r["successful"]],
                "Failed": _failed_out(r["failed"])}

    def _op_TagQueue(self, QueueUrl: str, Tags: Dict[str, str]) -> Dict[str, Any]:
        self._queue(QueueUrl).tag(Tags)
        return {}

    def _op_UntagQueue(self, QueueUrl: str, TagKeys: List[str]) -> Dict[str, Any]:
        self._queue(QueueUrl).untag(list(TagKeys))
        return {}

    def _op_ListQueueTags(self, QueueUrl: str) -> Dict[str, Any]:
        tags = self._queue(QueueUrl).list_tags()
        return {"Tags": tags} if tags else {}

    def _op_AddPermission(self, QueueUrl: str, Label: str, AWSAccountIds: List[str],
                          Actions: List[str]) -> Dict[str, Any]:
        self._queue(QueueUrl).add_permission(Label, list(AWSAccountIds), list(Actions))
        return {}

    def _op_RemovePermission(self, QueueUrl: str, Label: str) -> Dict[str, Any]:
        self._queue(QueueUrl).remove_permission(Label)
        return {}

    def _op_StartMessageMoveTask(self, SourceArn: str, DestinationArn: Optional[str] = None,
                                 MaxNumberOfMessagesPerSecond: Optional[int] = None
                                 ) -> Dict[str, Any]:
        handle = self.broker._rep.start_message_move_task(SourceArn, DestinationArn,
                                                           MaxNumberOfMessagesPerSecond)
        return {"TaskHandle": handle}

    def _op_CancelMessageMoveTask(self, TaskHandle: str) -> Dict[str, Any]:
        moved = self.broker._rep.cancel_message_move_task(TaskHandle)
        return {"ApproximateNumberOfMessagesMoved": moved}

    def _op_ListMessageMoveTasks(self, SourceArn: str, MaxResults: int = 1) -> Dict[str, Any]:
        results = []
        for t in self.broker._rep.list_message_move_tasks(SourceArn, MaxResults):
            r: Dict[str, Any] = {}
            if t["task_handle"] is not None:
                r["TaskHandle"] = t["task_handle"]
            r["Status"] = t["status"]
            r["SourceArn"] = t["source_arn"]
            if t["destination_arn"] is not None:
                r["DestinationArn"] = t["destination_arn"]
            if t["max_number_of_messages_per_second"] is not None:
                r["MaxNumberOfMessagesPerSecond"] = t["max_number_of_messages_per_second"]
            r["ApproximateNumberOfMessagesMoved"] = t["approximate_number_of_messages_moved"]
            r["ApproximateNumberOfMessagesToMove"] = t["approximate_number_of_messages_to_move"]
            if t["failure_reason"] is not None:
                r["FailureReason"] = t["failure_reason"]
            r["StartedTimestamp"] = t["started_timestamp"]
            results.append(r)
        return {"Results": results}


def _close_and_remove(broker: Any, path: str) -> None:
    try:
        broker.close()
    finally:
        _remove_tree(path)


def _make_method(op: str) -> Callable[..., Dict[str, Any]]:
    def method(self: SQSClient, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        if args:
            raise TypeError(f"{_xform(op)}() only accepts keyword arguments.")
        return self._call(op, kwargs)

    method.__name__ = _xform(op)
    method.__qualname__ = f"SQSClient.{method.__name__}"
    method.__doc__ = (f"SQS {op}, as boto3's ``client('sqs').{method.__name__}(**kwargs)``: "
                      f"same keyword arguments, same response shape.")
    return method


for _op in _OPS:
    setattr(SQSClient, _xform(_op), _make_method(_op))


def client(path: Optional[str] = None, *, endpoint_url: str = DEFAULT_ENDPOINT,
           **options: Any) -> SQSClient:
    """A boto3-shaped SQS client over the lqs database in ``path``.

    ``path=None`` uses a temporary database, removed by ``close()`` (or when the
    client is garbage-collected). ``endpoint_url`` sets the host part of queue URLs
    (``<endpoint_url>/<account_id>/<queue_name>``); any URL whose path ends in
    ``/<account_id>/<queue_name>`` is accepted. ``options`` are those of
    :func:`lqs.open` (``clock=``, ``account_id=``, ``durability=``, ...)."""
    return SQSClient(path, endpoint_url=endpoint_url, **options)
