// lib/bridge/local_batches.cc — see local_batches.h.

#include "lib/bridge/local_batches.h"

#include <algorithm>

#include "lqs/limits.h"

namespace lqs::bridge {
namespace {

// Calls `fn(first, last)` for each run of at most kMaxBatchEntries handles.
template <typename Fn>
void InBatches(const std::vector<std::string>& handles, Fn&& fn) {
  const size_t step = limits::kMaxBatchEntries;
  for (size_t i = 0; i < handles.size(); i += step) fn(i, std::min(handles.size(), i + step));
}

}  // namespace

int64_t DeleteHandles(Queue& queue, const std::vector<std::string>& handles) {
  int64_t deleted = 0;
  InBatches(handles, [&](size_t first, size_t last) {
    std::vector<DeleteMessageBatchEntry> entries;
    for (size_t i = first; i < last; ++i) entries.push_back({std::to_string(i), handles[i]});
    StatusOr<BatchResult> r = queue.DeleteMessageBatch(entries);
    if (r.ok()) deleted += static_cast<int64_t>(r->successful.size());
  });
  return deleted;
}

void SetVisibility(Queue& queue, const std::vector<std::string>& handles, int seconds) {
  InBatches(handles, [&](size_t first, size_t last) {
    std::vector<ChangeMessageVisibilityBatchEntry> entries;
    for (size_t i = first; i < last; ++i) {
      entries.push_back({std::to_string(i), handles[i], seconds});
    }
    queue.ChangeMessageVisibilityBatch(entries).status().IgnoreError();
  });
}

}  // namespace lqs::bridge
