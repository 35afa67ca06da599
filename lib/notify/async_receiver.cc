#include "lib/notify/async_receiver.h"

#include <algorithm>
#include <vector>

namespace lqs::notify {

AsyncReceiver::AsyncReceiver(std::shared_ptr<Clock> clock)
    : clock_(std::move(clock)), thread_([this] { Run(); }) {}

AsyncReceiver::~AsyncReceiver() { Shutdown(); }

uint64_t AsyncReceiver::Park(uint64_t queue_id, uint64_t epoch, int64_t next_check_ms,
                             Attempt attempt) {
  {
    MutexLock lock(&mu_);
    if (!stop_) {
      const uint64_t id = next_id_++;
      waiters_.emplace(id, Waiter{id, queue_id, std::move(attempt)});
      // Dekker with Wake (both seq_cst): either this load sees a Wake's new
      // epoch, or that Wake sees this receive counted and wakes its queue.
      parked_count_.fetch_add(1, std::memory_order_seq_cst);
      const bool changed = wake_epoch_.load(std::memory_order_seq_cst) != epoch;
      // A change since the caller's own attempt: try once more right away.
      const int64_t check = changed ? clock_->NowMillis() : next_check_ms;
      const bool earliest = schedule_.empty() || check < schedule_.begin()->first;
      schedule_.emplace(check, id);
      next_check_[id] = check;
      // The thread sleeps until the earliest check: only an earlier one
      // needs it to look again.
      if (changed || earliest) {
        parked_new_ = true;
        cv_.Signal();
      }
      return id;
    }
  }
  int64_t ignored = 0;
  attempt(/*closing=*/true, &ignored);
  return 0;
}

bool AsyncReceiver::Cancel(uint64_t queue_id, uint64_t id) {
  Attempt doomed;  // destroyed after the lock is released
  {
    MutexLock lock(&mu_);
    if (std::this_thread::get_id() == thread_.get_id()) {
      if (running_ == id) return false;  // called from its own completion
    } else {
      while (running_ == id) attempt_done_.Wait(&mu_);
    }
    auto it = waiters_.find(id);
    if (it == waiters_.end() || it->second.queue_id != queue_id) return false;
    doomed = std::move(it->second.attempt);
    auto nc = next_check_.find(id);
    if (nc != next_check_.end()) {
      schedule_.erase({nc->second, id});
      next_check_.erase(nc);
    }
    waiters_.erase(it);
    parked_count_.fetch_sub(1, std::memory_order_seq_cst);
  }
  return true;
}

void AsyncReceiver::Wake(uint64_t queue_id) {
  wake_epoch_.fetch_add(1, std::memory_order_seq_cst);
  if (parked_count_.load(std::memory_order_seq_cst) == 0) return;
  MutexLock lock(&mu_);
  woken_queues_.insert(queue_id);
  cv_.Signal();
}

void AsyncReceiver::WakeAll() {
  wake_epoch_.fetch_add(1, std::memory_order_seq_cst);
  MutexLock lock(&mu_);
  clock_moved_ = true;
  cv_.Signal();
}

size_t AsyncReceiver::parked() const {
  MutexLock lock(&mu_);
  return waiters_.size();
}

void AsyncReceiver::Shutdown() {
  {
    MutexLock lock(&mu_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
    cv_.Signal();
  }
  if (thread_.joinable()) thread_.join();
}

void AsyncReceiver::Run() {
  mu_.Lock();
  while (true) {
    if (stop_) break;
    const int64_t now = clock_->NowMillis();
    // Which receives to try now: those of woken queues, and those due.
    std::vector<uint64_t> due;
    for (auto it = schedule_.begin(); it != schedule_.end() && it->first <= now; ++it) {
      due.push_back(it->second);
    }
    if (!woken_queues_.empty()) {
      for (const auto& [id, w] : waiters_) {
        if (woken_queues_.count(w.queue_id) && next_check_[id] > now) due.push_back(id);
      }
      woken_queues_.clear();
    }
    clock_moved_ = false;
    parked_new_ = false;
    if (due.empty()) {
      int64_t next = schedule_.empty() ? now + 60000 : schedule_.begin()->first;
      const auto until = std::chrono::steady_clock::now() + clock_->RealTimeUntil(next);
      while (!HasNewsLocked()) {
        if (!cv_.WaitUntil(&mu_, until)) break;
      }
      continue;
    }
    // Try them in parking order, without holding the lock. While an attempt
    // runs, running_ names it: Cancel waits for it, so the waiter (and the
    // Attempt called through `attempt`) stays in place.
    std::sort(due.begin(), due.end());
    due.erase(std::unique(due.begin(), due.end()), due.end());
    for (uint64_t id : due) {
      auto wit = waiters_.find(id);
      if (wit == waiters_.end()) continue;  // cancelled meanwhile
      Attempt& attempt = wit->second.attempt;
      schedule_.erase({next_check_[id], id});
      running_ = id;
      mu_.Unlock();
      int64_t next_check = 0;
      const bool done = attempt(/*closing=*/false, &next_check);
      mu_.Lock();
      running_ = 0;
      attempt_done_.SignalAll();
      if (done) {
        waiters_.erase(id);
        next_check_.erase(id);
        parked_count_.fetch_sub(1, std::memory_order_seq_cst);
      } else {
        next_check_[id] = next_check;
        schedule_.emplace(next_check, id);
      }
    }
  }
  // Closing: complete everything still parked.
  std::map<uint64_t, Waiter> rest;
  rest.swap(waiters_);
  parked_count_.store(0);
  schedule_.clear();
  next_check_.clear();
  mu_.Unlock();
  for (auto& [id, w] : rest) {
    int64_t ignored = 0;
    w.attempt(/*closing=*/true, &ignored);
  }
}

}  // namespace lqs::notify
