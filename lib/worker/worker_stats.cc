#include "lib/worker/worker_stats.h"

#include <algorithm>
#include <cmath>

namespace lqs::worker {

namespace {
// Bucket 0 holds [0, kFirst); bucket i >= 1 holds [kFirst * r^(i-1), kFirst * r^i).
constexpr double kFirst = 0.01;  // ms
constexpr double kRatio = 1.04;
}  // namespace

int DurationHistogram::BucketOf(double ms) {
  if (!(ms >= kFirst)) return 0;
  const int i = 1 + static_cast<int>(std::floor(std::log(ms / kFirst) / std::log(kRatio)));
  return std::clamp(i, 1, kBuckets - 1);
}

double DurationHistogram::LowerBound(int bucket) {
  return bucket == 0 ? 0.0 : kFirst * std::pow(kRatio, bucket - 1);
}

void DurationHistogram::Add(double ms) {
  if (!(ms >= 0)) ms = 0;
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_[static_cast<size_t>(BucketOf(ms))];
  ++total_;
  max_ = std::max(max_, ms);
}

int64_t DurationHistogram::count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

double DurationHistogram::Percentile(double p) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (total_ == 0) return 0;
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(total_);
  double seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    const double c = static_cast<double>(counts_[static_cast<size_t>(b)]);
    if (c == 0) continue;
    if (seen + c >= rank) {
      if (b == 0) return 0;  // below 10 µs: report 0
      const double lo = LowerBound(b);
      const double hi = std::min(LowerBound(b + 1), max_);
      const double frac = std::clamp((rank - seen) / c, 0.0, 1.0);
      return std::max(lo, lo + (hi - lo) * frac);
    }
    seen += c;
  }
  return max_;
}

WorkerStats StatsBlock::Snapshot() const {
  WorkerStats s;
  s.received = received.load();
  s.succeeded = succeeded.load();
  s.retried = retried.load();
  s.dead_lettered = dead_lettered.load();
  s.duplicates_skipped = duplicates_skipped.load();
  s.released = released.load();
  s.lease_extensions = lease_extensions.load();
  s.lease_extension_failures = lease_extension_failures.load();
  s.delete_failures = delete_failures.load();
  s.transaction_conflicts = transaction_conflicts.load();
  s.in_progress = in_progress.load();
  s.handler_p50_ms = handler_ms.Percentile(50);
  s.handler_p99_ms = handler_ms.Percentile(99);
  return s;
}

}  // namespace lqs::worker
