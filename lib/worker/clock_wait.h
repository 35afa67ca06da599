// lib/worker/clock_wait.h — waiting until a Clock time or a notification.
//
// Worker components (the lease keeper, the scheduler, the receive loop)
// sleep until a moment of the injected Clock or until something changes.
// With SystemClock that is a timed wait; with ManualClock the Clock's
// listener wakes the waiter whenever a test moves the clock, so tests that
// advance time are deterministic and never wait for real time to pass.
//
// Thread safety: all methods are thread-safe. The owner protects its own
// state with mu() and waits with WaitUntil().

#ifndef LQS_LIB_WORKER_CLOCK_WAIT_H_
#define LQS_LIB_WORKER_CLOCK_WAIT_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>

#include "lqs/clock.h"

namespace lqs::worker {

class ClockWait {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  explicit ClockWait(std::shared_ptr<Clock> clock);
  ~ClockWait();  // unregisters the clock listener
  ClockWait(const ClockWait&) = delete;
  ClockWait& operator=(const ClockWait&) = delete;

  // The mutex the owner guards its state with (the listener takes it too).
  std::mutex& mu() { return state_->mu; }
  Clock& clock() { return *clock_; }

  // REQUIRES: `lock` holds mu().
  // Blocks until `done()` is true (returns true) or the clock reaches
  // `deadline_ms` (returns false; kNever: no deadline). `done` is evaluated
  // with mu() held, after every Notify() and every move of the clock.
  bool WaitUntil(std::unique_lock<std::mutex>& lock, int64_t deadline_ms,
                 const std::function<bool()>& done);

  // Wakes every waiter so that it re-evaluates `done`. Call after changing
  // the state `done` reads (with or without mu() held).
  void Notify() { state_->cv.notify_all(); }

  // REQUIRES: `lock` holds mu(). Waits in real (steady) time: returns
  // done() once it is true or `deadline` passed.
  bool WaitRealUntil(std::unique_lock<std::mutex>& lock,
                     std::chrono::steady_clock::time_point deadline,
                     const std::function<bool()>& done);

 private:
  // Shared with the clock listener, which may still run (on the thread
  // moving the clock) after RemoveListener returned.
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    uint64_t ticks = 0;  // clock moves seen
  };
  std::shared_ptr<Clock> clock_;
  std::shared_ptr<State> state_;
  int listener_id_ = 0;
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_CLOCK_WAIT_H_
