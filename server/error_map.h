// server/error_map.h — how lqsd spells an error in each SQS wire protocol.
//
// An SqsError is protocol-neutral: the JSON shape (`__type` =
// "<namespace>#<shape>"), the query code (XML <Code>, and the JSON
// x-amzn-query-error header), the HTTP status, the fault side, and the
// message. Library Status codes take their spellings from lqs::ErrorInfoFor
// (one table for the whole project) and their HTTP status from HttpStatusFor
// (the transport's part, which the core does not know); errors that only the
// server raises (protocol, routing, authentication) have constructors here. The one message that
// differs by protocol (NonExistentQueue) is resolved by MessageFor().
//
// Thread safety: pure functions over values.

#ifndef LQS_SERVER_ERROR_MAP_H_
#define LQS_SERVER_ERROR_MAP_H_

#include <string>
#include <string_view>

#include "lqs/status.h"

namespace lqsd {

enum class Protocol { kJson, kQuery };

struct SqsError {
  std::string shape;           // "QueueDoesNotExist", "InvalidParameterValueException"
  std::string json_namespace;  // "com.amazonaws.sqs" (modeled) or "com.amazon.coral.service"
  std::string query_code;      // "AWS.SimpleQueueService.NonExistentQueue"
  int http_status = 400;
  bool sender_fault = true;
  std::string message;        // the JSON protocol's text
  std::string query_message;  // the query protocol's text when it differs; else empty
};

// The HTTP status SQS answers a library error with: 400 for most caller
// errors; 403 PurgeQueueInProgress and OverLimit; 404 ReceiptHandleIsInvalid
// and ResourceNotFound; 503 IOError, DatabaseLocked, Closed and
// OverStorageBudget; 500
// Corruption, Internal and any unknown code; 200 for kOk.
int HttpStatusFor(lqs::ErrorCode code);

// The SQS error for a non-OK library status.
SqsError ErrorFromStatus(const lqs::Status& status);

// The message `error` carries in `protocol`.
const std::string& MessageFor(const SqsError& error, Protocol protocol);

// "com.amazonaws.sqs#QueueDoesNotExist"
std::string JsonType(const SqsError& error);

// ---- Errors raised by the server itself ------------------------------------------

// MissingParameter "The request must contain the parameter <name>."
SqsError MissingParameter(std::string_view name);
// InvalidParameterValue with `message`.
SqsError InvalidParameterValue(std::string message);
// AWS.SimpleQueueService.NonExistentQueue (both protocols' texts).
SqsError NonExistentQueue();
// InvalidAction "The action <A> is not valid for this endpoint." (query)
SqsError InvalidAction(std::string_view action);
// MissingAction: a query request without Action.
SqsError MissingAction();
// UnknownOperationException: unknown X-Amz-Target, or a GET without Action
// on a queue path (404).
SqsError UnknownOperation(int http_status);
// SerializationException: a JSON body that is not a JSON object, or a member
// of the wrong type.
SqsError SerializationError(std::string message);
// Request too large (413) / malformed HTTP (400).
SqsError RequestEntityTooLarge(size_t limit);
SqsError MalformedRequest(std::string message);
// ServiceUnavailable 503 (shutting down).
SqsError ServiceUnavailable(std::string message);
// InternalFailure 500 (a bug: an exception escaped a handler).
SqsError InternalFailure(std::string message);

// SigV4 (docs/sqs-reference.md §13.3).
SqsError MissingAuthenticationToken();
SqsError IncompleteSignature(std::string message);
SqsError InvalidClientTokenId();
SqsError SignatureDoesNotMatch(std::string message);

}  // namespace lqsd

#endif  // LQS_SERVER_ERROR_MAP_H_
