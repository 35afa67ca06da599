// lib/notify/waiters.h — wake-ups for long-polling receivers.
//
// A receiver that found nothing waits on its queue's WaitList until a send,
// a visibility change, a clock move (ManualClock) or its deadline. Notifiers
// pay one atomic load when nobody waits.
//
// Protocol (no lost wake-ups): the receiver calls Enter() before it looks
// for messages, Wait() if it found none, and Leave() when done; a notifier
// makes its change visible first and calls NotifyAll() after.
//
// Thread safety: all methods are thread-safe; Wait() requires the caller to
// hold `lock` on the mutex passed at construction.

#ifndef LQS_LIB_NOTIFY_WAITERS_H_
#define LQS_LIB_NOTIFY_WAITERS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace lqs::notify {

class WaitList {
 public:
  explicit WaitList(std::mutex* mu) : mu_(mu) {}

  void Enter() { waiting_.fetch_add(1, std::memory_order_seq_cst); }
  void Leave() { waiting_.fetch_sub(1, std::memory_order_seq_cst); }

  // REQUIRES: `lock` holds the mutex. Returns after a notification or after
  // `timeout` (spurious returns are possible; callers re-check).
  void Wait(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds timeout) {
    cv_.wait_for(lock, timeout);
  }

  // Wakes every waiter. REQUIRES: the caller does not hold the mutex.
  void NotifyAll() {
    if (waiting_.load(std::memory_order_seq_cst) == 0) return;
    std::lock_guard<std::mutex> guard(*mu_);
    cv_.notify_all();
  }

  // Wakes every waiter. REQUIRES: the caller holds the mutex.
  void NotifyAllLocked() { cv_.notify_all(); }

 private:
  std::mutex* mu_;
  std::condition_variable cv_;
  std::atomic<int> waiting_{0};
};

}  // namespace lqs::notify

#endif  // LQS_LIB_NOTIFY_WAITERS_H_
