#include "lib/worker/receive_slot.h"

#include <string>
#include <vector>

#include "lqs/limits.h"

namespace lqs::worker {

int64_t ReleaseNow(Queue& queue, const std::vector<std::string>& receipt_handles,
                   std::vector<std::string>* errors) {
  int64_t released = 0;
  for (size_t i = 0; i < receipt_handles.size(); i += limits::kMaxBatchEntries) {
    std::vector<ChangeMessageVisibilityBatchEntry> batch;
    for (size_t k = i; k < receipt_handles.size() && k < i + limits::kMaxBatchEntries; ++k) {
      ChangeMessageVisibilityBatchEntry e;
      e.id = std::to_string(k);
      e.receipt_handle = receipt_handles[k];
      e.visibility_timeout = 0;
      batch.push_back(std::move(e));
    }
    StatusOr<BatchResult> r = queue.ChangeMessageVisibilityBatch(batch);
    if (!r.ok()) {
      if (errors != nullptr) {
        for (const auto& e : batch) errors->push_back(e.id + " " + r.status().ToString());
      }
      continue;
    }
    released += static_cast<int64_t>(r->successful.size());
    if (errors != nullptr) {
      for (const auto& f : r->failed) errors->push_back(f.id + " " + f.code + ": " + f.message);
    }
  }
  return released;
}

void ReceiveSlot::Complete(StatusOr<ReceiveMessageResult> result) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abandoned_) {
      result_ = std::move(result);
      cv_.notify_all();
      return;
    }
  }
  // Nobody waits for these any more: give them back.
  if (!result.ok() || result->messages.empty()) return;
  std::vector<std::string> handles;
  for (const auto& m : result->messages) handles.push_back(m.receipt_handle);
  stats_->released.fetch_add(ReleaseNow(*queue_, handles, nullptr));
}

void ReceiveSlot::SetReceiveId(uint64_t receive_id) {
  bool cancel = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    receive_id_ = receive_id;
    cancel = abandoned_ && receive_id != 0;
  }
  // Outside mu_: CancelReceive may wait for an attempt whose callback is
  // Complete(), which takes mu_.
  if (cancel) queue_->CancelReceive(receive_id);
}

void ReceiveSlot::Abandon() {
  uint64_t cancel_id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!result_) {
      abandoned_ = true;
      cancel_id = receive_id_;
    }
    cv_.notify_all();
  }
  // A withdrawn poll leases nothing more; one that is completing right now
  // delivers to Complete(), which gives its messages back.
  if (cancel_id != 0) queue_->CancelReceive(cancel_id);
}

std::optional<StatusOr<ReceiveMessageResult>> ReceiveSlot::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return abandoned_ || result_.has_value(); });
  if (!result_ || taken_) return std::nullopt;
  taken_ = true;
  return std::move(result_);
}

}  // namespace lqs::worker
