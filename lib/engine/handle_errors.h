// lib/engine/handle_errors.h — the errors for a receipt handle that does not
// name a current lease, with the texts SQS gives (DeleteMessage,
// ChangeMessageVisibility and their batches in queue_impl.cc; the consumer
// support calls in consumer_support.cc). One definition, so the texts of
// the calls cannot drift apart.

#ifndef LQS_LIB_ENGINE_HANDLE_ERRORS_H_
#define LQS_LIB_ENGINE_HANDLE_ERRORS_H_

#include <string>

#include "lqs/status.h"

namespace lqs::engine {

// The handle does not decode (not one lqs issued, or altered).
inline Status InvalidHandle(const std::string& handle) {
  return Status(ErrorCode::kReceiptHandleIsInvalid,
                "The input receipt handle \"" + handle + "\" is not a valid receipt handle.");
}

// The handle decodes but was issued by another queue.
inline Status ForeignHandle(const std::string& handle) {
  return Status(ErrorCode::kReceiptHandleIsInvalid,
                "The receipt handle \"" + handle + "\" is not valid for this queue.");
}

// The handle names an earlier or ended lease of the message.
inline Status ExpiredHandle(const std::string& handle) {
  return Status(
      ErrorCode::kInvalidParameterValue,
      "Value " + handle +
          " for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.");
}

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_HANDLE_ERRORS_H_
