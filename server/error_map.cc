// Status -> SQS error, and the server's own errors (see error_map.h).

#include "server/error_map.h"

#include <string>

namespace lqsd {
namespace {

constexpr std::string_view kModeledNamespace = "com.amazonaws.sqs";
constexpr std::string_view kGenericNamespace = "com.amazon.coral.service";

// Shapes of the current SQS model (docs/sqs-reference.md §10.1); anything else is a
// generic ("coral") error.
constexpr std::string_view kModeledShapes[] = {
    "QueueDoesNotExist",
    "QueueNameExists",
    "QueueDeletedRecently",
    "PurgeQueueInProgress",
    "TooManyEntriesInBatchRequest",
    "EmptyBatchRequest",
    "BatchEntryIdsNotDistinct",
    "InvalidBatchEntryId",
    "BatchRequestTooLong",
    "MessageNotInflight",
    "UnsupportedOperation",
    "OverLimit",
    "ReceiptHandleIsInvalid",
    "InvalidIdFormat",
    "InvalidAttributeName",
    "InvalidAttributeValue",
    "InvalidMessageContents",
    "InvalidAddress",
    "InvalidSecurity",
    "RequestThrottled",
    "ResourceNotFoundException",
    "KmsAccessDenied",
    "KmsDisabled",
    "KmsInvalidKeyUsage",
    "KmsInvalidState",
    "KmsNotFound",
    "KmsOptInRequired",
    "KmsThrottled",
};

constexpr std::string_view kQueueMissingJson = "The specified queue does not exist.";
constexpr std::string_view kQueueMissingQuery =
    "The specified queue does not exist for this wsdl version.";

bool IsModeled(std::string_view shape) {
  for (const std::string_view s : kModeledShapes) {
    if (s == shape) return true;
  }
  return false;
}

SqsError Make(std::string_view shape, std::string_view query_code, int http_status,
              bool sender_fault, std::string message) {
  SqsError e;
  e.shape = std::string(shape);
  e.json_namespace = std::string(IsModeled(shape) ? kModeledNamespace : kGenericNamespace);
  e.query_code = std::string(query_code);
  e.http_status = http_status;
  e.sender_fault = sender_fault;
  e.message = std::move(message);
  return e;
}

}  // namespace

int HttpStatusFor(lqs::ErrorCode code) {
  using lqs::ErrorCode;
  switch (code) {
    case ErrorCode::kOk:
      return 200;
    case ErrorCode::kInvalidParameterValue:
    case ErrorCode::kMissingParameter:
    case ErrorCode::kInvalidAttributeName:
    case ErrorCode::kInvalidAttributeValue:
    case ErrorCode::kQueueDoesNotExist:
    case ErrorCode::kQueueNameExists:
    case ErrorCode::kQueueDeletedRecently:
    case ErrorCode::kInvalidMessageContents:
    case ErrorCode::kEmptyBatchRequest:
    case ErrorCode::kTooManyEntriesInBatchRequest:
    case ErrorCode::kBatchEntryIdsNotDistinct:
    case ErrorCode::kInvalidBatchEntryId:
    case ErrorCode::kBatchRequestTooLong:
    case ErrorCode::kUnsupportedOperation:
    case ErrorCode::kMessageNotInflight:
      return 400;
    case ErrorCode::kPurgeQueueInProgress:
    case ErrorCode::kOverLimit:
      return 403;
    case ErrorCode::kReceiptHandleIsInvalid:
    case ErrorCode::kResourceNotFound:
      return 404;
    case ErrorCode::kIOError:
    case ErrorCode::kDatabaseLocked:
    case ErrorCode::kClosed:
    case ErrorCode::kOverStorageBudget:
      return 503;
    case ErrorCode::kTransactionConflict:
      return 409;
    case ErrorCode::kCorruption:
    case ErrorCode::kInternal:
      return 500;
  }
  return 500;
}

SqsError ErrorFromStatus(const lqs::Status& status) {
  const lqs::ErrorInfo& info = lqs::ErrorInfoFor(status.code());
  SqsError e = Make(info.shape, info.query_code, HttpStatusFor(status.code()), info.sender_fault,
                    status.message());
  if (status.code() == lqs::ErrorCode::kQueueDoesNotExist) {
    if (e.message.empty()) e.message = std::string(kQueueMissingJson);
    // The query protocol's text differs (docs/sqs-reference.md §6.1).
    if (e.message == kQueueMissingJson) e.query_message = std::string(kQueueMissingQuery);
  }
  if (e.message.empty()) e.message = std::string(info.shape);
  return e;
}

const std::string& MessageFor(const SqsError& error, Protocol protocol) {
  if (protocol == Protocol::kQuery && !error.query_message.empty()) return error.query_message;
  return error.message;
}

std::string JsonType(const SqsError& error) { return error.json_namespace + "#" + error.shape; }

SqsError MissingParameter(std::string_view name) {
  return ErrorFromStatus(
      lqs::Status(lqs::ErrorCode::kMissingParameter,
                  "The request must contain the parameter " + std::string(name) + "."));
}

SqsError InvalidParameterValue(std::string message) {
  return ErrorFromStatus(lqs::Status(lqs::ErrorCode::kInvalidParameterValue, std::move(message)));
}

SqsError NonExistentQueue() {
  return ErrorFromStatus(
      lqs::Status(lqs::ErrorCode::kQueueDoesNotExist, std::string(kQueueMissingJson)));
}

SqsError InvalidAction(std::string_view action) {
  return Make("InvalidAction", "InvalidAction", 400, true,
              "The action " + std::string(action) + " is not valid for this endpoint.");
}

SqsError MissingAction() {
  return Make("MissingAction", "MissingAction", 400, true,
              "The request must contain the parameter Action.");
}

SqsError UnknownOperation(int http_status) {
  return Make("UnknownOperationException", "UnknownOperationException", http_status, true,
              "The requested operation is not supported by this endpoint.");
}

SqsError SerializationError(std::string message) {
  return Make("SerializationException", "SerializationException", 400, true, std::move(message));
}

SqsError RequestEntityTooLarge(size_t limit) {
  return Make("RequestEntityTooLarge", "RequestEntityTooLarge", 413, true,
              "Request body must be at most " + std::to_string(limit) + " bytes.");
}

SqsError MalformedRequest(std::string message) {
  return Make("MalformedRequest", "MalformedQueryString", 400, true, std::move(message));
}

SqsError ServiceUnavailable(std::string message) {
  return Make("ServiceUnavailable", "ServiceUnavailable", 503, false, std::move(message));
}

SqsError InternalFailure(std::string message) {
  return Make("InternalFailure", "InternalFailure", 500, false, std::move(message));
}

SqsError MissingAuthenticationToken() {
  return Make("MissingAuthenticationTokenException", "MissingAuthenticationToken", 403, true,
              "Request is missing Authentication Token");
}

SqsError IncompleteSignature(std::string message) {
  return Make("IncompleteSignatureException", "IncompleteSignature", 400, true, std::move(message));
}

SqsError InvalidClientTokenId() {
  return Make("UnrecognizedClientException", "InvalidClientTokenId", 403, true,
              "The security token included in the request is invalid.");
}

SqsError SignatureDoesNotMatch(std::string message) {
  return Make("InvalidSignatureException", "SignatureDoesNotMatch", 403, true, std::move(message));
}

}  // namespace lqsd
