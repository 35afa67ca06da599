// lib/worker/worker_stats.h — a worker's counters and handler-duration
// histogram (lqs::WorkerStats is the snapshot).
//
// Thread safety: all methods are thread-safe. Counters are atomics; the
// histogram has its own mutex.

#ifndef LQS_LIB_WORKER_WORKER_STATS_H_
#define LQS_LIB_WORKER_WORKER_STATS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "lqs/worker.h"

namespace lqs::worker {

// Durations in milliseconds in logarithmic buckets (about 4% wide), so a
// percentile is exact to within a bucket whatever the number of samples.
class DurationHistogram {
 public:
  void Add(double ms);
  // The p-th percentile (0 < p <= 100), interpolated within its bucket;
  // 0 when empty.
  double Percentile(double p) const;
  int64_t count() const;

 private:
  static constexpr int kBuckets = 600;
  static int BucketOf(double ms);
  static double LowerBound(int bucket);

  mutable std::mutex mu_;
  std::array<int64_t, kBuckets> counts_{};  // guarded by mu_
  int64_t total_ = 0;                       // guarded by mu_
  double max_ = 0;                          // guarded by mu_
};

struct StatsBlock {
  std::atomic<int64_t> received{0};
  std::atomic<int64_t> succeeded{0};
  std::atomic<int64_t> retried{0};
  std::atomic<int64_t> dead_lettered{0};
  std::atomic<int64_t> duplicates_skipped{0};
  std::atomic<int64_t> released{0};
  std::atomic<int64_t> lease_extensions{0};
  std::atomic<int64_t> lease_extension_failures{0};
  std::atomic<int64_t> delete_failures{0};
  std::atomic<int64_t> transaction_conflicts{0};
  std::atomic<int64_t> in_progress{0};
  DurationHistogram handler_ms;

  WorkerStats Snapshot() const;
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_WORKER_STATS_H_
