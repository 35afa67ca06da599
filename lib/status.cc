// The one table that maps lqs error codes to SQS's spellings.

#include "lqs/status.h"

namespace lqs {
namespace {

struct Row {
  ErrorCode code;
  std::string_view name;
  ErrorInfo info;
};

// shape name, query code, sender fault (docs/sqs-reference.md §10.1, §10.2).
constexpr Row kRows[] = {
    {ErrorCode::kOk, "Ok", {"", "", false}},
    {ErrorCode::kInvalidParameterValue,
     "InvalidParameterValue",
     {"InvalidParameterValueException", "InvalidParameterValue", true}},
    {ErrorCode::kMissingParameter,
     "MissingParameter",
     {"MissingRequiredParameterException", "MissingParameter", true}},
    {ErrorCode::kInvalidAttributeName,
     "InvalidAttributeName",
     {"InvalidAttributeName", "InvalidAttributeName", true}},
    {ErrorCode::kInvalidAttributeValue,
     "InvalidAttributeValue",
     {"InvalidAttributeValue", "InvalidAttributeValue", true}},
    {ErrorCode::kQueueDoesNotExist,
     "QueueDoesNotExist",
     {"QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", true}},
    {ErrorCode::kQueueNameExists,
     "QueueNameExists",
     {"QueueNameExists", "QueueAlreadyExists", true}},
    {ErrorCode::kQueueDeletedRecently,
     "QueueDeletedRecently",
     {"QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently", true}},
    {ErrorCode::kPurgeQueueInProgress,
     "PurgeQueueInProgress",
     {"PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", true}},
    {ErrorCode::kReceiptHandleIsInvalid,
     "ReceiptHandleIsInvalid",
     {"ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", true}},
    {ErrorCode::kInvalidMessageContents,
     "InvalidMessageContents",
     {"InvalidMessageContents", "InvalidMessageContents", true}},
    {ErrorCode::kEmptyBatchRequest,
     "EmptyBatchRequest",
     {"EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", true}},
    {ErrorCode::kTooManyEntriesInBatchRequest,
     "TooManyEntriesInBatchRequest",
     {"TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", true}},
    {ErrorCode::kBatchEntryIdsNotDistinct,
     "BatchEntryIdsNotDistinct",
     {"BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", true}},
    {ErrorCode::kInvalidBatchEntryId,
     "InvalidBatchEntryId",
     {"InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", true}},
    {ErrorCode::kBatchRequestTooLong,
     "BatchRequestTooLong",
     {"BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", true}},
    {ErrorCode::kOverLimit, "OverLimit", {"OverLimit", "OverLimit", true}},
    {ErrorCode::kResourceNotFound,
     "ResourceNotFound",
     {"ResourceNotFoundException", "ResourceNotFoundException", true}},
    {ErrorCode::kUnsupportedOperation,
     "UnsupportedOperation",
     {"UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", true}},
    {ErrorCode::kMessageNotInflight,
     "MessageNotInflight",
     {"MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", true}},
    {ErrorCode::kIOError, "IOError", {"ServiceUnavailable", "ServiceUnavailable", false}},
    {ErrorCode::kCorruption, "Corruption", {"InternalFailure", "InternalFailure", false}},
    {ErrorCode::kDatabaseLocked,
     "DatabaseLocked",
     {"ServiceUnavailable", "ServiceUnavailable", false}},
    {ErrorCode::kClosed, "Closed", {"ServiceUnavailable", "ServiceUnavailable", false}},
    {ErrorCode::kInternal, "Internal", {"InternalFailure", "InternalFailure", false}},
    // Spelled as SQS's own throttling-free "try again later": clients retry
    // ServiceUnavailable (HTTP 503) with backoff.
    {ErrorCode::kOverStorageBudget,
     "OverStorageBudget",
     {"ServiceUnavailable", "ServiceUnavailable", false}},
    // Never on the wire (lqsd has no transactions); spelled for completeness.
    {ErrorCode::kTransactionConflict,
     "TransactionConflict",
     {"TransactionConflict", "TransactionConflict", false}},
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
