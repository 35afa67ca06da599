#include "lqs/clock.h"

#include <algorithm>

namespace lqs {

std::chrono::milliseconds Clock::RealTimeUntil(int64_t deadline_ms) {
  return std::chrono::milliseconds(std::max<int64_t>(0, deadline_ms - NowMillis()));
}

int Clock::AddListener(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(listeners_mu_);
  int id = next_listener_id_++;
  listeners_.emplace_back(id, std::move(fn));
  return id;
}

void Clock::RemoveListener(int id) {
  std::lock_guard<std::mutex> lock(listeners_mu_);
  std::erase_if(listeners_, [id](const auto& l) { return l.first == id; });
}

void Clock::NotifyListeners() {
  std::vector<std::function<void()>> copy;
  {
    std::lock_guard<std::mutex> lock(listeners_mu_);
    for (const auto& l : listeners_) copy.push_back(l.second);
  }
  for (const auto& fn : copy) fn();
}

int64_t SystemClock::NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<Clock> SystemClock::Default() {
  static std::shared_ptr<Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

ManualClock::ManualClock(int64_t start_ms) : ManualClock(start_ms, /*running=*/false) {}

ManualClock::ManualClock(int64_t start_ms, bool running)
    : running_(running), now_ms_(start_ms), base_(std::chrono::steady_clock::now()) {}

std::shared_ptr<ManualClock> ManualClock::Running(int64_t start_ms) {
  return std::shared_ptr<ManualClock>(new ManualClock(start_ms, /*running=*/true));
}

int64_t ManualClock::ElapsedLocked() const {
  if (!running_) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               base_)
      .count();
}

int64_t ManualClock::NowMillis() {
  std::lock_guard<std::mutex> lock(mu_);
  return now_ms_ + ElapsedLocked();
}

std::chrono::milliseconds ManualClock::RealTimeUntil(int64_t deadline_ms) {
  // A running clock reaches the deadline in real time, like SystemClock;
  // a frozen one only in AdvanceMillis/SetMillis, which notify listeners
  // (waiters re-check at least this often anyway).
  if (running_) return Clock::RealTimeUntil(deadline_ms);
  return NowMillis() >= deadline_ms ? std::chrono::milliseconds(0)
                                    : std::chrono::milliseconds(1000);
}

void ManualClock::AdvanceMillis(int64_t ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ms > 0) now_ms_ += ms;
  }
  NotifyListeners();
}

void ManualClock::SetMillis(int64_t ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    now_ms_ = ms;
    base_ = std::chrono::steady_clock::now();
  }
  NotifyListeners();
}

}  // namespace lqs
