// lib/engine/queue_common.h — names and helpers shared by the files that
// define QueueImpl's members (queue_impl.h lists them). Internal to those
// files: nothing else includes it.
//
// Thread safety: stateless. Errors: QueueGone is the kQueueDoesNotExist
// every call returns after DeleteQueue.

#ifndef LQS_LIB_ENGINE_QUEUE_COMMON_H_
#define LQS_LIB_ENGINE_QUEUE_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/storage/counters.h"
#include "lib/storage/keys.h"
#include "lib/storage/records.h"

#include "lqs/limits.h"
#include "lqs/status.h"
#include "lqs/types.h"

namespace lqs::engine {

using storage::Cf;
using storage::CounterDelta;
using storage::LeaseEntry;
using storage::VisibleEntry;

inline constexpr int64_t kMaxLeaseMs = limits::kMaxLeaseBudgetMs;  // 12 h per receive
// How many messages past retention a receive expires, at most once a second.
inline constexpr size_t kExpireBudgetPerReceive = 256;

inline Status QueueGone() {
  return Status(ErrorCode::kQueueDoesNotExist, "The specified queue does not exist.");
}

// The bytes a send's WriteBatch is reserved with: its bodies plus room for
// each record's other fields and index entries, so that a batch of large
// bodies is not regrown (and copied) while it is built.
inline size_t SendBatchBytes(const std::vector<const SendMessageRequest*>& requests) {
  constexpr size_t kPerMessage = 512;
  size_t bytes = 64;
  for (const SendMessageRequest* r : requests) bytes += r->body.size() + kPerMessage;
  return bytes;
}

// The per-second delay bucket a message visible at `visible_at_ms` counts in.
inline int64_t BucketOf(int64_t visible_at_ms) { return (visible_at_ms + 999) / 1000; }

// A batch entry's failure as the batch calls report it (the query-protocol
// code of `st`, and whether the sender is at fault).
inline BatchResultError EntryError(const std::string& id, const Status& st) {
  BatchResultError e;
  e.id = id;
  const ErrorInfo& info = ErrorInfoFor(st.code());
  e.sender_fault = info.sender_fault;
  e.code = std::string(info.query_code);
  e.message = st.message();
  return e;
}

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_QUEUE_COMMON_H_
