// lqs/status.h — errors as values.
//
// Every fallible lqs call returns a Status or a StatusOr<T>. No exception
// crosses the library boundary. A Status carries an ErrorCode, which is the
// SQS error the call would have produced against Amazon SQS, and a message
// that names the offending parameter and the rule it broke.
//
// ErrorInfoFor(code) gives the SQS spellings of a code (the JSON shape name
// and the query-protocol code) and its fault side, so the engine, the server
// and the bindings share one table. How a transport answers (lqsd's HTTP
// status) is the transport's business: see server/error_map.h.
//
// Thread safety: Status and StatusOr are values; distinct objects may be used
// from distinct threads without synchronisation.

#ifndef LQS_STATUS_H_
#define LQS_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace lqs {

// Stable numeric values: the C API and the Python bindings expose them.
// Never renumber; add new codes at the end of their group.
enum class ErrorCode : int {
  kOk = 0,

  // SQS errors (client faults unless noted).
  kInvalidParameterValue = 1,
  kMissingParameter = 2,
  kInvalidAttributeName = 3,
  kInvalidAttributeValue = 4,
  kQueueDoesNotExist = 5,  // AWS.SimpleQueueService.NonExistentQueue
  kQueueNameExists = 6,    // QueueAlreadyExists
  kQueueDeletedRecently = 7,
  kPurgeQueueInProgress = 8,
  kReceiptHandleIsInvalid = 9,
  kInvalidMessageContents = 10,
  kEmptyBatchRequest = 11,
  kTooManyEntriesInBatchRequest = 12,
  kBatchEntryIdsNotDistinct = 13,
  kInvalidBatchEntryId = 14,
  kBatchRequestTooLong = 15,
  kOverLimit = 16,
  kResourceNotFound = 17,  // ResourceNotFoundException
  kUnsupportedOperation = 18,
  kMessageNotInflight = 19,

  // Engine errors (server faults).
  kIOError = 100,         // the disk refused (ENOSPC, EIO); retry later
  kCorruption = 101,      // a stored record failed verification
  kDatabaseLocked = 102,  // another process holds the database
  kClosed = 103,          // the Broker was closed
  kInternal = 104,        // a bug; please report it
  // The database's files reached Options::max_disk_bytes: sends are refused
  // until receives and deletes free space; retry later.
  kOverStorageBudget = 105,
  // A transaction's commit found that a table key it read was changed by
  // another commit, or that a lease behind one of its DeleteMessage or
  // ChangeMessageVisibility calls was lost. Nothing was applied: run the
  // transaction again from the start (lqs/transaction.h).
  kTransactionConflict = 106,
};

// How SQS front ends spell an ErrorCode.
struct ErrorInfo {
  std::string_view shape;       // JSON `__type` suffix / SDK exception name
  std::string_view query_code;  // query-protocol <Code>, x-amzn-query-error
  bool sender_fault;            // true: the caller's fault ("Sender")
};

// The table row for `code`. Never fails; unknown codes map to InternalError.
const ErrorInfo& ErrorInfoFor(ErrorCode code);

// The name of the enumerator without its `k` ("InvalidParameterValue").
std::string_view ErrorCodeName(ErrorCode code);

class [[nodiscard]] Status {
 public:
  // An OK status. Cheap to create, copy and return.
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  // The human-readable reason; empty for OK.
  const std::string& message() const { return message_; }
  // "InvalidParameterValue: Value 11 for parameter MaxNumberOfMessages ..."
  std::string ToString() const;

  // Marks a status as deliberately ignored (greppable).
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // REQUIRES: !status.ok()
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok());
    if (status_.ok()) status_ = Status(ErrorCode::kInternal, "OK StatusOr without value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok()
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace lqs

#endif  // LQS_STATUS_H_
