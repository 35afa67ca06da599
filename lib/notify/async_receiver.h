// lib/notify/async_receiver.h — long polling without a thread per waiter.
//
// Queue::ReceiveMessageAsync parks a receive here when nothing is visible.
// One thread owns every parked receive: it retries a queue's receives when
// the queue signals a change (send, visibility change, DLQ insert, clock
// move) or when a receive's next check time comes (its deadline, or the
// moment a lease or delay ends), and completes each receive exactly once.
//
// Thread safety: all public methods are thread-safe. Callbacks run on the
// receiver thread, never with a lock of this class held. mu_ guards the
// parked receives and the thread's flags (ABSL_GUARDED_BY below); it is a
// leaf lock: nothing is called while it is held.
// Ownership: the receiver owns each parked Attempt until it completed or
// was cancelled. Errors: none (a receive's errors are its callback's).

#ifndef LQS_LIB_NOTIFY_ASYNC_RECEIVER_H_
#define LQS_LIB_NOTIFY_ASYNC_RECEIVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "lib/notify/mutex.h"

#include "lqs/clock.h"

namespace lqs::notify {

class AsyncReceiver {
 public:
  // One attempt of a parked receive. Returns true when it completed the
  // receive (delivered messages, an error, or the end of the wait); false to
  // stay parked, with *next_check_ms set to when to try again at the latest.
  using Attempt = std::function<bool(bool closing, int64_t* next_check_ms)>;

  explicit AsyncReceiver(std::shared_ptr<Clock> clock);
  ~AsyncReceiver();  // completes every parked receive as closing

  // A counter that every Wake and WakeAll advances. Read it before the
  // caller's own first attempt and pass it to Park: a change in between is
  // then never lost.
  uint64_t WakeEpoch() const { return wake_epoch_.load(std::memory_order_seq_cst); }

  // Parks a receive of queue `queue_id` whose own attempt (made after reading
  // `epoch` from WakeEpoch) found nothing. It is tried next at
  // `next_check_ms`, or right away when a Wake or WakeAll came after `epoch`
  // (the change may have found no parked receive to wake). Returns the
  // receive's id for Cancel (never 0); returns 0 when the receiver is shut
  // down, after completing `attempt` as closing on this thread.
  uint64_t Park(uint64_t queue_id, uint64_t epoch, int64_t next_check_ms, Attempt attempt)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Cancels parked receive `id` of queue `queue_id`. Returns true when it was
  // still parked: it is removed, its attempt never runs again (so it leases
  // nothing and completes nothing), and the attempt is destroyed before this
  // returns. Returns false when `id` is unknown, of another queue, or
  // completed or completing (its attempt returned true or is being completed
  // as closing). If an attempt of `id` is running on the receiver thread,
  // waits for it to return first (one receive: microseconds); called from
  // the receiver thread itself (inside a callback) it does not wait, and
  // returns false for the receive whose attempt is running.
  bool Cancel(uint64_t queue_id, uint64_t id) ABSL_LOCKS_EXCLUDED(mu_);
  // Something changed in queue `queue_id`: retry its parked receives now.
  // Costs two atomic operations when nothing is parked.
  void Wake(uint64_t queue_id) ABSL_LOCKS_EXCLUDED(mu_);
  // The clock moved (ManualClock): re-evaluate every deadline.
  void WakeAll() ABSL_LOCKS_EXCLUDED(mu_);
  // Number of parked receives (for metrics and tests).
  size_t parked() const ABSL_LOCKS_EXCLUDED(mu_);
  // Completes every parked receive as closing and stops the thread.
  void Shutdown() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Waiter {
    uint64_t id;
    uint64_t queue_id;
    Attempt attempt;
  };
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // Whether the receiver thread has something to look at before its next
  // scheduled check.
  bool HasNewsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stop_ || !woken_queues_.empty() || clock_moved_ || parked_new_;
  }

  std::shared_ptr<Clock> clock_;
  mutable Mutex mu_;
  CondVar cv_;            // the receiver thread waits on it
  CondVar attempt_done_;  // running_ changed (for Cancel)
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool clock_moved_ ABSL_GUARDED_BY(mu_) = false;
  // A receive was parked since the thread last looked.
  bool parked_new_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<size_t> parked_count_{0};
  std::atomic<uint64_t> wake_epoch_{0};
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  // The id whose attempt runs now (receiver thread), or 0.
  uint64_t running_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, Waiter> waiters_ ABSL_GUARDED_BY(mu_);               // by id (FIFO order)
  std::set<std::pair<int64_t, uint64_t>> schedule_ ABSL_GUARDED_BY(mu_);  // (next check, id)
  std::map<uint64_t, int64_t> next_check_ ABSL_GUARDED_BY(mu_);           // id -> next check
  std::set<uint64_t> woken_queues_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace lqs::notify

#endif  // LQS_LIB_NOTIFY_ASYNC_RECEIVER_H_
