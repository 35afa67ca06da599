#include "lib/worker/lease_keeper.h"

#include <algorithm>
#include <vector>

#include "lqs/limits.h"

namespace lqs::worker {

namespace {
constexpr int64_t kRetryAfterErrorMs = 1000;
}  // namespace

LeaseKeeper::LeaseKeeper(std::shared_ptr<Queue> queue, std::shared_ptr<Clock> clock,
                         int visibility_timeout_seconds, const WorkerLog* log, StatsBlock* stats)
    : queue_(std::move(queue)),
      wait_(std::move(clock)),
      vt_ms_(int64_t{visibility_timeout_seconds} * 1000),
      log_(log),
      stats_(stats) {}

LeaseKeeper::~LeaseKeeper() { Stop(); }

void LeaseKeeper::Start() {
  std::lock_guard<std::mutex> lock(wait_.mu());
  if (started_ || stop_) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
}

void LeaseKeeper::Stop() {
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    stop_ = true;
  }
  wait_.Notify();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void LeaseKeeper::Add(const std::string& receipt_handle, const std::string& message_id,
                      int receive_count, int64_t lease_start_ms, int64_t lease_end_ms) {
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    Lease& l = leases_[receipt_handle];
    l.message_id = message_id;
    l.receive_count = receive_count;
    l.start_ms = lease_start_ms;
    l.end_ms = lease_end_ms;
    l.next_try_ms = RenewAt(lease_end_ms);
    ++added_;
  }
  wait_.Notify();
}

void LeaseKeeper::Remove(const std::string& receipt_handle) {
  std::unique_lock<std::mutex> lock(wait_.mu());
  leases_.erase(receipt_handle);
  call_done_.wait(lock, [&] { return in_call_.count(receipt_handle) == 0; });
}

size_t LeaseKeeper::held() const {
  std::lock_guard<std::mutex> lock(wait_.mu());
  return leases_.size();
}

void LeaseKeeper::Run() {
  std::unique_lock<std::mutex> lock(wait_.mu());
  for (;;) {
    if (stop_) return;
    const int64_t now = wait_.clock().NowMillis();
    // Collect the leases due, and the earliest next due time.
    int64_t next = ClockWait::kNever;
    std::vector<ChangeMessageVisibilityBatchEntry> batch;
    std::vector<int64_t> new_end;
    for (auto& [handle, l] : leases_) {
      if (l.exhausted) continue;
      if (l.next_try_ms > now || batch.size() >= limits::kMaxBatchEntries) {
        next = std::min(next, std::max(l.next_try_ms, now));
        continue;
      }
      if (now >= l.end_ms) {
        // Too late: the message may already be another consumer's.
        l.exhausted = true;
        log_->Message(WorkerLogLevel::kWarning, l.message_id, l.receive_count,
                      "the lease ended before it could be extended (the clock jumped?); the "
                      "handler may run again elsewhere");
        continue;
      }
      const int64_t budget_end = l.start_ms + kMaxLeaseMs;
      const int64_t seconds = std::min(vt_ms_, budget_end - now) / 1000;
      if (now + seconds * 1000 <= l.end_ms || seconds <= 0) {
        l.exhausted = true;
        log_->Message(WorkerLogLevel::kWarning, l.message_id, l.receive_count,
                      "the 12-hour lease budget is used up; the lease is no longer extended and "
                      "the message returns to the queue when it ends (the handler may run again)");
        continue;
      }
      ChangeMessageVisibilityBatchEntry e;
      e.id = std::to_string(batch.size());
      e.receipt_handle = handle;
      e.visibility_timeout = static_cast<int>(seconds);
      batch.push_back(std::move(e));
      new_end.push_back(now + seconds * 1000);
    }
    if (batch.empty()) {
      const uint64_t added = added_;
      wait_.WaitUntil(lock, next, [&] { return stop_ || added_ != added; });
      continue;
    }

    for (const auto& e : batch) in_call_.insert(e.receipt_handle);
    lock.unlock();
    StatusOr<BatchResult> result = queue_->ChangeMessageVisibilityBatch(batch);
    lock.lock();
    in_call_.clear();
    call_done_.notify_all();

    auto failed = [&](const ChangeMessageVisibilityBatchEntry& e, const Status& why, bool retry) {
      auto it = leases_.find(e.receipt_handle);
      if (it == leases_.end()) return;  // finished meanwhile: nothing to keep
      Lease& l = it->second;
      if (retry && l.end_ms > now + kRetryAfterErrorMs) {
        l.next_try_ms = now + kRetryAfterErrorMs;
      } else {
        l.exhausted = true;
      }
      log_->Message(WorkerLogLevel::kWarning, l.message_id, l.receive_count,
                    "lease extension failed" +
                        std::string(l.exhausted ? " (no longer extended)" : "") + ": " +
                        why.ToString());
      stats_->lease_extension_failures.fetch_add(1);
    };
    if (!result.ok()) {
      const bool retry = result.status().code() == ErrorCode::kIOError;
      for (const auto& e : batch) failed(e, result.status(), retry);
      continue;
    }
    for (const std::string& id : result->successful) {
      const size_t i = static_cast<size_t>(std::stoul(id));
      auto it = leases_.find(batch[i].receipt_handle);
      if (it == leases_.end()) continue;
      it->second.end_ms = new_end[i];
      it->second.next_try_ms = RenewAt(new_end[i]);
      log_->Message(WorkerLogLevel::kDebug, it->second.message_id, it->second.receive_count,
                    "lease extended by " + std::to_string(*batch[i].visibility_timeout) + " s");
      stats_->lease_extensions.fetch_add(1);
    }
    for (const BatchResultError& err : result->failed) {
      const size_t i = static_cast<size_t>(std::stoul(err.id));
      failed(batch[i], Status(ErrorCode::kInvalidParameterValue, err.code + ": " + err.message),
             false);
    }
  }
}

}  // namespace lqs::worker
