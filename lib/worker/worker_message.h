// lib/worker/worker_message.h — from a received message to what a handler
// sees, and the text a worker may store in a message attribute.
//
// Thread safety: pure functions.

#ifndef LQS_LIB_WORKER_WORKER_MESSAGE_H_
#define LQS_LIB_WORKER_WORKER_MESSAGE_H_

#include <cstddef>
#include <string>

#include "lqs/limits.h"
#include "lqs/types.h"
#include "lqs/worker.h"

namespace lqs::worker {

// The longest inbox key (Queue::DeleteMessageAndRecord's limit).
constexpr size_t kMaxIdempotencyKey = limits::kMaxIdempotencyKeyBytes;
// Error texts stored in WorkerOptions::error_attribute are cut to this.
constexpr size_t kMaxErrorText = 1024;

// Builds the handler's view: receive count, group id and idempotency key
// (the attribute named `idempotency_attribute`, else the
// MessageDeduplicationId, else the MessageId; keys over 512 bytes are
// shortened to a prefix plus a 64-bit hash of the whole key).
WorkerMessage ToWorkerMessage(const std::string& queue_name, const ReceivedMessage& r,
                              const std::string& idempotency_attribute);

// `text` made fit for a String message attribute: invalid UTF-8 and
// characters outside XML 1.0 become '?', cut at a character boundary to at
// most `max_bytes` bytes; never empty.
std::string AttributeText(const std::string& text, size_t max_bytes = kMaxErrorText);

// SQS's rules for a message attribute name; empty when `name` is valid,
// else the reason.
std::string CheckAttributeName(const std::string& name);

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_WORKER_MESSAGE_H_
