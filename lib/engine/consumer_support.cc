// lib/engine/consumer_support.cc — Queue's consumer-support extensions: the
// idempotency inbox and the immediate dead-letter move (see lqs/queue.h).

#include "lib/engine/queue_impl.h"

namespace lqs::engine {

// PLACEHOLDER while the implementation is being written (this session).
Status QueueImpl::DeleteMessageAndRecord(const std::string&, const std::string&, int64_t) {
  return Status(ErrorCode::kInternal, "DeleteMessageAndRecord: not built yet");
}
StatusOr<bool> QueueImpl::InboxContains(const std::string&) {
  return Status(ErrorCode::kInternal, "InboxContains: not built yet");
}
Status QueueImpl::MoveToDeadLetterQueue(const std::string&, const MessageAttributeMap&) {
  return Status(ErrorCode::kInternal, "MoveToDeadLetterQueue: not built yet");
}

}  // namespace lqs::engine
