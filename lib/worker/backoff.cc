#include "lib/worker/backoff.h"

#include <algorithm>
#include <cmath>

#include "lqs/limits.h"

namespace lqs::worker {

Backoff::Backoff(int base_seconds, int max_seconds, double jitter, uint64_t seed)
    : base_seconds_(base_seconds), max_seconds_(max_seconds), jitter_(jitter), rng_(seed) {}

int64_t Backoff::Exponential(int base_seconds, int max_seconds, int receive_count) {
  const int doublings = std::clamp(receive_count - 1, 0, 40);
  int64_t s = base_seconds;
  for (int i = 0; i < doublings && s < max_seconds; ++i) s *= 2;
  return std::min<int64_t>(s, max_seconds);
}

int Backoff::Seconds(int receive_count) {
  const int64_t s = Exponential(base_seconds_, max_seconds_, receive_count);
  double extra = 0;
  if (jitter_ > 0 && s > 0) {
    std::uniform_real_distribution<double> dist(0.0, jitter_);
    std::lock_guard<std::mutex> lock(mu_);
    extra = dist(rng_) * static_cast<double>(s);
  }
  const int64_t total = s + static_cast<int64_t>(std::floor(extra));
  return static_cast<int>(std::min<int64_t>(total, limits::kMaxVisibilityTimeoutSeconds));
}

}  // namespace lqs::worker
