#include "lib/worker/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace lqs::worker {

namespace {
constexpr double kEpsilon = 1e-9;
double BurstFor(double rate) { return std::max(1.0, rate); }
}  // namespace

TokenBucket::TokenBucket(double rate_per_second, double burst, int64_t now_ms)
    : rate_(rate_per_second), burst_(burst), tokens_(burst), last_ms_(now_ms) {}

void TokenBucket::Refill(int64_t now_ms) {
  if (now_ms <= last_ms_) return;
  tokens_ = std::min(burst_, tokens_ + static_cast<double>(now_ms - last_ms_) * rate_ / 1000.0);
  last_ms_ = now_ms;
}

bool TokenBucket::CanTake(int64_t now_ms, double n) {
  if (unlimited()) return true;
  Refill(now_ms);
  return tokens_ + kEpsilon >= Need(n);
}

void TokenBucket::Take(int64_t now_ms, double n) {
  if (unlimited()) return;
  Refill(now_ms);
  tokens_ -= n;
}

int64_t TokenBucket::ReadyAt(int64_t now_ms, double n) {
  if (CanTake(now_ms, n)) return now_ms;
  const double missing = Need(n) - tokens_;
  return last_ms_ + std::max<int64_t>(1, static_cast<int64_t>(std::ceil(missing * 1000.0 / rate_)));
}

bool TokenBucket::Full(int64_t now_ms) {
  if (unlimited()) return true;
  Refill(now_ms);
  return tokens_ + kEpsilon >= burst_;
}

RateLimiter::RateLimiter(double rate_per_second, double per_group_rate_per_second, int64_t now_ms)
    : overall_(rate_per_second, BurstFor(rate_per_second), now_ms),
      group_rate_(per_group_rate_per_second) {}

TokenBucket* RateLimiter::Group(int64_t now_ms, const std::string& group) {
  if (group.empty() || group_rate_ <= 0) return nullptr;
  auto it = groups_.find(group);
  if (it == groups_.end()) {
    it = groups_.emplace(group, TokenBucket(group_rate_, BurstFor(group_rate_), now_ms)).first;
  }
  return &it->second;
}

bool RateLimiter::CanStart(int64_t now_ms, const std::string& group, double n) {
  if (!overall_.CanTake(now_ms, n)) return false;
  TokenBucket* g = Group(now_ms, group);
  return g == nullptr || g->CanTake(now_ms, n);
}

void RateLimiter::Started(int64_t now_ms, const std::string& group, double n) {
  overall_.Take(now_ms, n);
  if (TokenBucket* g = Group(now_ms, group)) g->Take(now_ms, n);
}

void RateLimiter::GroupStarted(int64_t now_ms, const std::string& group, double n) {
  if (TokenBucket* g = Group(now_ms, group)) g->Take(now_ms, n);
}

int64_t RateLimiter::ReadyAt(int64_t now_ms, const std::string& group, double n) {
  int64_t at = overall_.ReadyAt(now_ms, n);
  if (TokenBucket* g = Group(now_ms, group)) at = std::max(at, g->ReadyAt(now_ms, n));
  return at;
}

void RateLimiter::Compact(int64_t now_ms) {
  for (auto it = groups_.begin(); it != groups_.end();) {
    it = it->second.Full(now_ms) ? groups_.erase(it) : std::next(it);
  }
}

}  // namespace lqs::worker
