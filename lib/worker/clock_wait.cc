#include "lib/worker/clock_wait.h"

#include <algorithm>
#include <chrono>

namespace lqs::worker {

ClockWait::ClockWait(std::shared_ptr<Clock> clock)
    : clock_(std::move(clock)), state_(std::make_shared<State>()) {
  std::weak_ptr<State> weak = state_;
  listener_id_ = clock_->AddListener([weak] {
    std::shared_ptr<State> s = weak.lock();
    if (s == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      ++s->ticks;
    }
    s->cv.notify_all();
  });
}

ClockWait::~ClockWait() { clock_->RemoveListener(listener_id_); }

bool ClockWait::WaitUntil(std::unique_lock<std::mutex>& lock, int64_t deadline_ms,
                          const std::function<bool()>& done) {
  // Even a clock that cannot tell how long to sleep is re-read this often.
  constexpr std::chrono::milliseconds kMaxSlice(60 * 60 * 1000);
  for (;;) {
    if (done()) return true;
    std::chrono::milliseconds slice = kMaxSlice;
    if (deadline_ms != kNever) {
      if (clock_->NowMillis() >= deadline_ms) return false;
      slice =
          std::clamp(clock_->RealTimeUntil(deadline_ms), std::chrono::milliseconds(1), kMaxSlice);
    }
    const uint64_t ticks = state_->ticks;
    state_->cv.wait_for(lock, slice, [&] { return state_->ticks != ticks || done(); });
  }
}

bool ClockWait::WaitRealUntil(std::unique_lock<std::mutex>& lock,
                              std::chrono::steady_clock::time_point deadline,
                              const std::function<bool()>& done) {
  return state_->cv.wait_until(lock, deadline, done);
}

}  // namespace lqs::worker
