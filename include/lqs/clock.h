// lqs/clock.h — the injectable source of time.
//
// Every time rule in lqs (visibility timeouts, delays, retention, the
// long-poll deadline, the purge and queue-name-reuse windows, move-task
// rates) reads time from a Clock passed in Options. Tests use ManualClock and
// advance it instead of sleeping: a four-day retention test runs in
// milliseconds.
//
// Thread safety: all methods of SystemClock and ManualClock may be called
// from any thread.

#ifndef LQS_CLOCK_H_
#define LQS_CLOCK_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace lqs {

class Clock {
 public:
  virtual ~Clock() = default;

  // Wall-clock time in milliseconds since the Unix epoch. Need not be
  // monotonic; lqs never lets time run backwards internally.
  virtual int64_t NowMillis() = 0;

  // How long a waiter may sleep, in real time, before this clock can reach
  // `deadline_ms`. SystemClock: the difference. A clock that only moves when
  // told to (ManualClock) returns a long interval and instead calls the
  // listeners registered with AddListener whenever it moves.
  virtual std::chrono::milliseconds RealTimeUntil(int64_t deadline_ms);

  // Registers `fn` to be called (from the thread that moved the clock) after
  // every change of a manually driven clock. Returns an id for RemoveListener.
  // The Broker uses this to wake long-polling receivers. Listeners must be
  // cheap and must not call back into the clock.
  int AddListener(std::function<void()> fn);
  void RemoveListener(int id);

 protected:
  void NotifyListeners();

 private:
  std::mutex listeners_mu_;
  int next_listener_id_ = 1;
  std::vector<std::pair<int, std::function<void()>>> listeners_;
};

// The real clock (std::chrono::system_clock).
class SystemClock final : public Clock {
 public:
  int64_t NowMillis() override;
  // A process-wide instance.
  static std::shared_ptr<Clock> Default();
};

// A clock that moves when told to. Starts at `start_ms` (default: a fixed
// date, 2026-01-01T00:00:00Z, so tests are reproducible).
//
// Frozen (the default), it moves only in AdvanceMillis/SetMillis: nothing
// times out on its own, and a long poll on an empty queue waits until the
// clock is moved past its deadline. Running (`Running()`), it also moves
// with real time (a monotonic clock) from `start_ms`, and AdvanceMillis
// jumps it forward: a suite that waits for some deadlines (a long poll ends
// after its real wait, as on SQS) and skips others (a 12-hour visibility
// timeout) in one test.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 1767225600000);
  // A running clock that starts at `start_ms`.
  static std::shared_ptr<ManualClock> Running(int64_t start_ms);

  int64_t NowMillis() override;
  std::chrono::milliseconds RealTimeUntil(int64_t deadline_ms) override;
  // Moves the clock forward by `ms` (>= 0) and wakes waiters.
  void AdvanceMillis(int64_t ms);
  void AdvanceSeconds(int64_t s) { AdvanceMillis(s * 1000); }
  // Sets the clock (a running clock runs on from there); lqs clamps any
  // backwards step to the last value it saw.
  void SetMillis(int64_t ms);
  bool running() const { return running_; }

 private:
  ManualClock(int64_t start_ms, bool running);
  // Real milliseconds since `base_` (0 for a frozen clock). Needs mu_.
  int64_t ElapsedLocked() const;

  const bool running_;
  std::mutex mu_;
  int64_t now_ms_;  // the clock's value at base_
  std::chrono::steady_clock::time_point base_;
};

}  // namespace lqs

#endif  // LQS_CLOCK_H_
