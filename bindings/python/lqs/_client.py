"""A boto3-shaped SQS client over an lqs database: ``lqs.client()``.

Every SQS action is a method named as boto3 names it (``send_message``,
``receive_message``, ...), taking the same keyword arguments and returning dicts
shaped like boto3's responses (same keys and types, SQS's MD5 digests, bytes for
BinaryValue, a ResponseMetadata). Errors raise ``botocore.exceptions.ClientError``
(the modeled subclasses in ``client.exceptions`` when botocore knows the code) with
``response["Error"]["Code"]`` as boto3 reports it against Amazon SQS (for example
``AWS.SimpleQueueService.NonExistentQueue``) and the HTTP status SQS uses. Without
botocore, the lqs exception of the code is raised, with the same ``.response``.

Each call is checked as botocore checks parameters (in C++ for the usual call, in
Python, with botocore's messages, for anything else), then runs through lqsd's own
request handling in this process (``_lqs.LocalCaller``, server/local_caller.h): the
AWS JSON 1.0 request boto3 would send, answered by lqsd's router and action handlers
without a socket. The client therefore answers exactly as lqsd does.
"""

from __future__ import annotations

import base64
import email.utils
import json
import shutil
import tempfile
import time
import types
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import _ClosesOnExit  # lqs/__init__.py imports this module last
from . import _errors
from ._lqs import LocalCaller as _LocalCaller
from ._lqs import action_model as _action_model
from ._lqs import limits

_BOTOCORE: Any = False  # False: not looked for yet; None: not installed


def _botocore() -> Any:
    """The botocore package, imported on first use, or None without it (botocore is
    optional). Importing it takes most of a second, so `import lqs` does not: a program that
    never builds a client does not pay for it."""
    global _BOTOCORE
    if _BOTOCORE is False:
        try:
            import botocore.errorfactory
            import botocore.exceptions
            import botocore.session
            _BOTOCORE = botocore
        except ImportError:  # pragma: no cover - exercised only without botocore
            _BOTOCORE = None
    return _BOTOCORE


DEFAULT_ENDPOINT = "http://localhost:9324"


class ParamValidationError(ValueError):
    """Raised for invalid parameters when botocore is not importable (botocore's
    ParamValidationError otherwise)."""

    def __init__(self, report: str) -> None:
        super().__init__(f"Parameter validation failed:\n{report}")
        self.kwargs = {"report": report}


# ---- Parameter specifications ------------------------------------------------------------
# Built from lqsd's action model (server/action_model.h, through _lqs.action_model()): each
# action's input members, their types and which are required, as SQS's API defines them.
# type codes: s str, i int, m {str: str}, l [str], a {name: MessageAttributeValue},
# e [entry dict] (entries checked against _ENTRIES[op]).

_S, _I, _M, _L, _A, _E = "s", "i", "m", "l", "a", "e"

_KINDS = {"string": _S, "integer": _I, "string_map": _M, "string_list": _L,
          "message_attribute_map": _A, "entry_list": _E}

_Spec = Tuple[Dict[str, str], Dict[str, str], frozenset, frozenset]


def _spec(members: List[Tuple[str, str, bool, list]]) -> _Spec:
    """(required, allowed, required names, string members): the required members and every
    member (the required ones first), each {param: type code} in the model's order, then the
    sets _check's fast path compares a call's names with."""
    required: Dict[str, str] = {}
    optional: Dict[str, str] = {}
    for name, kind, is_required, _entry in members:
        (required if is_required else optional)[name] = _KINDS[kind]
    allowed = {**required, **optional}
    return (required, allowed, frozenset(required),
            frozenset(name for name, kind in allowed.items() if kind == _S))


# operation name -> (required, allowed); batch operation name -> the same for one entry
_OPS: Dict[str, _Spec] = {}
_ENTRIES: Dict[str, _Spec] = {}
for _op, _members in sorted(_action_model().items()):
    _OPS[_op] = _spec(_members)
    for _name, _kind, _required, _entry in _members:
        if _kind == "entry_list":
            _ENTRIES[_op] = _spec(_entry)

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


def _check(entry: Optional[int], spec: _Spec, params: Dict[str, Any], errors: List[str]) -> None:
    """Checks `params` (the input, or Entries[entry]) against `spec`, adding to `errors`."""
    required, allowed, required_names, string_members = spec
    names = params.keys()
    if (required_names <= names and names <= string_members
            and all(isinstance(v, str) for v in params.values())):
        return  # the usual call or entry: every member present is a string, none missing
    for name in required:
        if name not in params:
            path = "input" if entry is None else f"Entries[{entry}]"
            errors.append(f'Missing required parameter in {path}: "{name}"')
    for name, v in params.items():
        kind = allowed.get(name)
        if kind == _S and isinstance(v, str):
            continue  # most members: nothing more to check (every call pays this loop)
        path = "input" if entry is None else f"Entries[{entry}]"
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
    _check(None, _OPS[op], params, errors)
    entries = params.get("Entries")
    if op in _ENTRIES and isinstance(entries, (list, tuple)):
        for i, e in enumerate(entries):
            if not isinstance(e, dict):
                errors.append(f"Invalid type for parameter Entries[{i}], value: {e!r}, "
                              f"type: {type(e)}, valid types: <class 'dict'>")
                continue
            _check(i, _ENTRIES[op], e, errors)
    if errors:
        report = "\n".join(errors)
        bc = _botocore()
        if bc is not None:
            raise bc.exceptions.ParamValidationError(report=report)
        raise ParamValidationError(report)


# ---- Conversions ------------------------------------------------------------------------
# The input and output travel as the AWS JSON 1.0 protocol's bodies, as botocore writes and
# reads them: blobs (BinaryValue, BinaryListValues) are base64 text on the wire and bytes in
# Python (a str BinaryValue is sent as its UTF-8 bytes).

_ATTRIBUTE_MAPS = ("MessageAttributes", "MessageSystemAttributes")


def _blob_in(v: Any) -> str:
    return base64.b64encode(v.encode("utf-8") if isinstance(v, str) else bytes(v)).decode("ascii")


def _attrs_in(attrs: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name, v in attrs.items():
        value = dict(v)
        if "BinaryValue" in value:
            value["BinaryValue"] = _blob_in(value["BinaryValue"])
        if "BinaryListValues" in value:
            value["BinaryListValues"] = [_blob_in(b) for b in value["BinaryListValues"]]
        out[name] = value
    return out


def _has_attributes(params: Dict[str, Any]) -> bool:
    return "MessageAttributes" in params or "MessageSystemAttributes" in params


def _with_blobs_encoded(params: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(params)
    for key in _ATTRIBUTE_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = _attrs_in(out[key])
    return out


def _wire_in(params: Dict[str, Any]) -> Dict[str, Any]:
    """``params`` (validated: entries are dicts) with every blob as base64 text (copied only
    where one may be)."""
    if _has_attributes(params):
        params = _with_blobs_encoded(params)
    entries = params.get("Entries")
    if entries and any(_has_attributes(e) for e in entries):
        params = dict(params)
        params["Entries"] = [_with_blobs_encoded(e) if isinstance(e, dict) else e
                             for e in entries]
    return params


_ENCODER = json.JSONEncoder(separators=(",", ":"))

_DATE: List[Any] = [0, ""]  # [whole second, its HTTP date]


def _http_date() -> str:
    """The current time as an HTTP Date header (formatted once a second)."""
    now = int(time.time())
    if _DATE[0] != now:
        _DATE[0], _DATE[1] = now, email.utils.formatdate(now, usegmt=True)
    return _DATE[1]


def _wire_out(output: Dict[str, Any]) -> Dict[str, Any]:
    for message in output.get("Messages", ()):
        for value in message.get("MessageAttributes", {}).values():
            if "BinaryValue" in value:
                value["BinaryValue"] = base64.b64decode(value["BinaryValue"])
            if "BinaryListValues" in value:
                value["BinaryListValues"] = [base64.b64decode(b) for b in value["BinaryListValues"]]
    return output


_SERVICE_MODEL: Any = None
_EXCEPTIONS: Any = None


def _botocore_exceptions() -> Any:
    """client.exceptions as boto3 builds it (from botocore's SQS service model)."""
    global _SERVICE_MODEL, _EXCEPTIONS
    bc = _botocore()
    if _EXCEPTIONS is None and bc is not None:
        _SERVICE_MODEL = bc.session.get_session().get_service_model("sqs")
        _EXCEPTIONS = bc.errorfactory.ClientExceptionsFactory().create_client_exceptions(
            _SERVICE_MODEL)
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


class SQSClient(_ClosesOnExit):
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
        self._caller = _LocalCaller(self.broker._rep, self._account, self._endpoint)
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

    def _metadata(self, request_id: str, status: int = 200) -> Dict[str, Any]:
        return {"RequestId": request_id, "HTTPStatusCode": status,
                "HTTPHeaders": {"x-amzn-requestid": request_id, "date": _http_date(),
                                "content-type": "application/x-amz-json-1.0"},
                "RetryAttempts": 0}

    def _raise(self, op: str, status: int, request_id: str, query_error: str,
               document: Dict[str, Any]) -> None:
        """Raises the error lqsd answered, as botocore reports it (the query-protocol
        code from x-amzn-query-error, docs/sqs-reference.md §12.3)."""
        shape = str(document.get("__type", "InternalFailure")).rpartition("#")[2]
        code, _, fault = query_error.partition(";")
        code = code or shape
        message = str(document.get("message", document.get("Message", "")))
        sender = fault == "Sender" if fault else status < 500
        response = {
            "Error": {"Type": "Sender" if sender else "Receiver", "Code": code,
                      "Message": message, "QueryErrorCode": shape},
            "ResponseMetadata": self._metadata(request_id, status),
        }
        cls = self.exceptions.from_code(code)
        if cls is self.exceptions.ClientError:
            cls = self.exceptions.from_code(shape)
        if _botocore() is not None:
            raise cls(response, op) from None
        raise cls(message, response=response, operation_name=op) from None

    def _call(self, op: str, params: Dict[str, Any]) -> Dict[str, Any]:
        # The fast path (bindings/python/src/client_codec.h) checks and encodes the call in
        # C++, and declines whatever _validate and _wire_in must judge.
        answer = self._caller.call_with_params(op, params)
        if answer is None:
            _validate(op, params)
            status, request_id, query_error, body = self._caller.call(
                op, _ENCODER.encode(_wire_in(params)))
            document = json.loads(body) if body else {}
        else:
            status, request_id, query_error, document = answer
        if status != 200:
            self._raise(op, status, request_id, query_error, document)
        # As SQS answers (and boto3 reads): an empty list or map is left out
        # (a batch's Failed when every entry succeeded, queueUrls, Results).
        out = {k: v for k, v in _wire_out(document).items()
               if not (isinstance(v, (list, dict)) and not v)}
        out["ResponseMetadata"] = self._metadata(request_id)
        return out


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
