"""The lqs exception hierarchy: one class per lqs error code, rooted at lqs.Error.

Every exception carries the SQS spellings of its error:

* ``code``         -- the SQS error code as boto3 reports it in
                      ``response["Error"]["Code"]`` (the query-protocol code, e.g.
                      ``"AWS.SimpleQueueService.NonExistentQueue"``);
* ``shape``        -- the SQS error shape name (``"QueueDoesNotExist"``);
* ``http_status``  -- the HTTP status SQS (and lqsd) answers with (400, 403, 404, ...);
* ``sender_fault`` -- True when the caller is at fault;
* ``lqs_code``     -- the stable numeric lqs error code (``lqs::ErrorCode``);
* ``message``      -- the human-readable reason.

Errors raised by :func:`lqs.client` also carry ``response`` and ``operation_name``,
shaped like ``botocore.exceptions.ClientError``'s.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Type


class Error(Exception):
    """Base class of every lqs error."""

    lqs_code: int = 104
    code: str = "InternalFailure"
    shape: str = "InternalFailure"
    http_status: int = 500
    sender_fault: bool = False

    def __init__(self, message: str = "", *, response: Optional[Dict[str, Any]] = None,
                 operation_name: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        self.response: Dict[str, Any] = response if response is not None else {
            "Error": {"Code": self.code, "Message": message,
                      "Type": "Sender" if self.sender_fault else "Receiver"},
            "ResponseMetadata": {"HTTPStatusCode": self.http_status},
        }
        self.operation_name = operation_name

    def __str__(self) -> str:
        if self.operation_name:
            return (f"An error occurred ({self.code}) when calling the "
                    f"{self.operation_name} operation: {self.message}")
        return f"{type(self).__name__}: {self.message}" if self.message else type(self).__name__

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuild, (self.lqs_code, self.message))


# ---- SQS errors (the caller's fault) -------------------------------------------------

class InvalidParameterValue(Error, ValueError):
    """A parameter is out of range or malformed (the message names it)."""


class MissingParameter(Error, ValueError):
    """A required parameter is missing or empty."""


class InvalidAttributeName(Error, ValueError):
    """Unknown, read-only or not applicable queue attribute name."""


class InvalidAttributeValue(Error, ValueError):
    """A queue attribute value is out of range or malformed."""


class QueueDoesNotExist(Error, LookupError):
    """No queue by that name (or it was deleted)."""


class QueueNameExists(Error):
    """CreateQueue with an existing name and a different attribute value."""


class QueueDeletedRecently(Error):
    """The name was deleted less than 60 seconds ago."""


class PurgeQueueInProgress(Error):
    """Only one PurgeQueue per queue every 60 seconds (HTTP 403)."""


class ReceiptHandleIsInvalid(Error, ValueError):
    """The receipt handle is malformed, never issued, or from another queue."""


class InvalidMessageContents(Error, ValueError):
    """The body contains characters outside XML 1.0."""


class EmptyBatchRequest(Error, ValueError):
    """A batch call without entries."""


class TooManyEntriesInBatchRequest(Error, ValueError):
    """More than 10 batch entries."""


class BatchEntryIdsNotDistinct(Error, ValueError):
    """Two batch entries share an Id."""


class InvalidBatchEntryId(Error, ValueError):
    """A batch entry Id is not [A-Za-z0-9_-]{1,80}."""


class BatchRequestTooLong(Error, ValueError):
    """The messages of a batch total more than 1 MiB."""


class OverLimit(Error):
    """Too many messages in flight, or too many permissions (HTTP 403)."""


class ResourceNotFound(Error, LookupError):
    """Message move tasks: no such source, destination or task (HTTP 404)."""


class UnsupportedOperation(Error):
    """The operation is not supported for this queue or context."""


class MessageNotInflight(Error):
    """The message is not in flight."""


# ---- Engine errors (server faults) ---------------------------------------------------

class StorageIOError(Error, OSError):
    """The disk refused (ENOSPC, EIO); retry later."""


class Corruption(Error):
    """A stored record failed verification."""


class DatabaseLocked(Error):
    """Another process holds the database."""


class Closed(Error):
    """The database was closed."""


class InternalError(Error):
    """A bug in lqs; please report it."""


class OverStorageBudget(Error):
    """The database reached its storage budget (max_disk_bytes): sends are refused until
    receives and deletes free space; retry later."""


class TransactionConflict(Error):
    """A transaction's commit found a key it read changed by another commit, or a lease
    behind one of its deletes or visibility changes lost. Nothing was applied: run the
    transaction again (for a lost lease, after receiving the message again)."""


# lqs::ErrorCode -> class. Filled from the C++ table by _install_table().
_BY_CODE: Dict[int, Type[Error]] = {}

_CLASS_FOR_NAME: Dict[str, Type[Error]] = {
    "InvalidParameterValue": InvalidParameterValue,
    "MissingParameter": MissingParameter,
    "InvalidAttributeName": InvalidAttributeName,
    "InvalidAttributeValue": InvalidAttributeValue,
    "QueueDoesNotExist": QueueDoesNotExist,
    "QueueNameExists": QueueNameExists,
    "QueueDeletedRecently": QueueDeletedRecently,
    "PurgeQueueInProgress": PurgeQueueInProgress,
    "ReceiptHandleIsInvalid": ReceiptHandleIsInvalid,
    "InvalidMessageContents": InvalidMessageContents,
    "EmptyBatchRequest": EmptyBatchRequest,
    "TooManyEntriesInBatchRequest": TooManyEntriesInBatchRequest,
    "BatchEntryIdsNotDistinct": BatchEntryIdsNotDistinct,
    "InvalidBatchEntryId": InvalidBatchEntryId,
    "BatchRequestTooLong": BatchRequestTooLong,
    "OverLimit": OverLimit,
    "ResourceNotFound": ResourceNotFound,
    "UnsupportedOperation": UnsupportedOperation,
    "MessageNotInflight": MessageNotInflight,
    "IOError": StorageIOError,
    "Corruption": Corruption,
    "DatabaseLocked": DatabaseLocked,
    "Closed": Closed,
    "Internal": InternalError,
    "OverStorageBudget": OverStorageBudget,
    "TransactionConflict": TransactionConflict,
}


def _install_table(table: Any) -> None:
    """Copies the C++ error table (lqs::ErrorInfoFor, and lqsd::HttpStatusFor for the
    HTTP status) onto the classes."""
    for code, name, shape, query_code, http_status, sender_fault in table:
        cls = _CLASS_FOR_NAME.get(name)
        if cls is None:
            continue
        cls.lqs_code = code
        cls.code = query_code
        cls.shape = shape
        cls.http_status = http_status
        cls.sender_fault = sender_fault
        _BY_CODE[code] = cls


def error_class(lqs_code: int) -> Type[Error]:
    """The exception class for a numeric lqs error code."""
    return _BY_CODE.get(lqs_code, InternalError)


def _from_status(lqs_code: int, message: str) -> Error:
    """Called by the extension for every failed call."""
    return error_class(lqs_code)(message)


def _rebuild(lqs_code: int, message: str) -> Error:
    return error_class(lqs_code)(message)

