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
// The WaitList does not own the mutex its waiters hold: every call that
// needs it names it (the owner's, the same one on every call), so that the
// thread-safety analysis checks the caller's locking.
//
// Thread safety: all methods are thread-safe. Errors: none.

#ifndef LQS_LIB_NOTIFY_WAITERS_H_
#define LQS_LIB_NOTIFY_WAITERS_H_

#include <atomic>
#include <chrono>

#include "lib/notify/mutex.h"

namespace lqs::notify {

class WaitList {
 public:
  void Enter() { waiting_.fetch_add(1, std::memory_order_seq_cst); }
  void Leave() { waiting_.fetch_sub(1, std::memory_order_seq_cst); }

  // Releases `mu` while waiting. Returns after a notification or after
  // `timeout` (spurious returns are possible; callers re-check).
  void Wait(Mutex* mu, std::chrono::milliseconds timeout) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    cv_.WaitFor(mu, timeout);
  }

  // Wakes every waiter; takes `mu` only when someone waits.
  void NotifyAll(Mutex* mu) ABSL_LOCKS_EXCLUDED(mu) {
    if (waiting_.load(std::memory_order_seq_cst) == 0) return;
    MutexLock guard(mu);
    cv_.SignalAll();
  }

  // Wakes every waiter.
  void NotifyAllLocked(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { cv_.SignalAll(); }

 private:
  CondVar cv_;
  std::atomic<int> waiting_{0};
};

}  // namespace lqs::notify

#endif  // LQS_LIB_NOTIFY_WAITERS_H_
