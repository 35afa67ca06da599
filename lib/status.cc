// The one table that maps lqs error codes to SQS's spellings.

#include "lqs/status.h"

namespace lqs {
namespace {

struct Row {
  ErrorCode code;
  std::string_view name;
  ErrorInfo info;
};

// shape name, query code, HTTP status, sender fault (sqs-api.md §9.1, §9.2).
constexpr Row kRows[] = {
    {ErrorCode::kOk, "Ok", {"", "", 200, false}},
    {ErrorCode::kInvalidParameterValue, "InvalidParameterValue",
     {"InvalidParameterValueException", "InvalidParameterValue", 400, true}},
    {ErrorCode::kMissingParameter, "MissingParameter",
     {"MissingRequiredParameterException", "MissingParameter", 400, true}},
    {ErrorCode::kInvalidAttributeName, "InvalidAttributeName",
     {"InvalidAttributeName", "InvalidAttributeName", 400, true}},
    {ErrorCode::kInvalidAttributeValue, "InvalidAttributeValue",
     {"InvalidAttributeValue", "InvalidAttributeValue", 400, true}},
    {ErrorCode::kQueueDoesNotExist, "QueueDoesNotExist",
     {"QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400, true}},
    {ErrorCode::kQueueNameExists, "QueueNameExists",
     {"QueueNameExists", "QueueAlreadyExists", 400, true}},
    {ErrorCode::kQueueDeletedRecently, "QueueDeletedRecently",
     {"QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently", 400,
      true}},
    {ErrorCode::kPurgeQueueInProgress, "PurgeQueueInProgress",
     {"PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403,
      true}},
    {ErrorCode::kReceiptHandleIsInvalid, "ReceiptHandleIsInvalid",
     {"ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 404, true}},
    {ErrorCode::kInvalidMessageContents, "InvalidMessageContents",
     {"InvalidMessageContents", "InvalidMessageContents", 400, true}},
    {ErrorCode::kEmptyBatchRequest, "EmptyBatchRequest",
     {"EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", 400, true}},
    {ErrorCode::kTooManyEntriesInBatchRequest, "TooManyEntriesInBatchRequest",
     {"TooManyEntriesInBatchRequest",
      "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400, true}},
    {ErrorCode::kBatchEntryIdsNotDistinct, "BatchEntryIdsNotDistinct",
     {"BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
      400, true}},
    {ErrorCode::kInvalidBatchEntryId, "InvalidBatchEntryId",
     {"InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", 400,
      true}},
    {ErrorCode::kBatchRequestTooLong, "BatchRequestTooLong",
     {"BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", 400,
      true}},
    {ErrorCode::kOverLimit, "OverLimit", {"OverLimit", "OverLimit", 403, true}},
    {ErrorCode::kResourceNotFound, "ResourceNotFound",
     {"ResourceNotFoundException", "ResourceNotFoundException", 404, true}},
    {ErrorCode::kUnsupportedOperation, "UnsupportedOperation",
     {"UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400,
      true}},
    {ErrorCode::kMessageNotInflight, "MessageNotInflight",
     {"MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", 400, true}},
    {ErrorCode::kIOError, "IOError", {"ServiceUnavailable", "ServiceUnavailable", 503, false}},
    {ErrorCode::kCorruption, "Corruption", {"InternalFailure", "InternalFailure", 500, false}},
    {ErrorCode::kDatabaseLocked, "DatabaseLocked",
     {"ServiceUnavailable", "ServiceUnavailable", 503, false}},
    {ErrorCode::kClosed, "Closed", {"ServiceUnavailable", "ServiceUnavailable", 503, false}},
    {ErrorCode::kInternal, "Internal", {"InternalFailure", "InternalFailure", 500, false}},
};

const Row& RowFor(ErrorCode code) {
  for (const Row& row : kRows) {
    if (row.code == code) return row;
  }
  return kRows[sizeof(kRows) / sizeof(kRows[0]) - 1];
}

}  // namespace

const ErrorInfo& ErrorInfoFor(ErrorCode code) { return RowFor(code).info; }

std::string_view ErrorCodeName(ErrorCode code) { return RowFor(code).name; }

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(ErrorCodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

}  // namespace lqs
