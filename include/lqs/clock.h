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

// A clock that moves only when told to. Starts at `start_ms` (default: a
// fixed date, 2026-01-01T00:00:00Z, so tests are reproducible).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 1767225600000);
  int64_t NowMillis() override;
  std::chrono::milliseconds RealTimeUntil(int64_t deadline_ms) override;
  // Moves the clock forward by `ms` (>= 0) and wakes waiters.
  void AdvanceMillis(int64_t ms);
  void AdvanceSeconds(int64_t s) { AdvanceMillis(s * 1000); }
  // Sets the clock; lqs clamps any backwards step to the last value it saw.
  void SetMillis(int64_t ms);

 private:
  std::mutex mu_;
  int64_t now_ms_;
};

}  // namespace lqs

#endif  // LQS_CLOCK_H_
