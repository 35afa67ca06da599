// lib/worker/backoff.h — how long a retried message stays invisible.
//
// After a retryable failure on receive n the message becomes visible again
// after min(max, base * 2^(n-1)) seconds plus up to `jitter` of that at
// random (WorkerOptions::backoff_*), capped at SQS's visibility timeout limit
// (limits::kMaxVisibilityTimeoutSeconds).
//
// Thread safety: Backoff::Seconds may be called from any thread.

#ifndef LQS_LIB_WORKER_BACKOFF_H_
#define LQS_LIB_WORKER_BACKOFF_H_

#include <cstdint>
#include <mutex>
#include <random>

namespace lqs::worker {

class Backoff {
 public:
  // REQUIRES: 0 <= base <= max, 0 <= jitter <= 1.
  Backoff(int base_seconds, int max_seconds, double jitter, uint64_t seed);

  // The delay for a failure on receive `receive_count` (1 = first).
  int Seconds(int receive_count);

  // Without jitter: min(max, base * 2^(receive_count-1)).
  static int64_t Exponential(int base_seconds, int max_seconds, int receive_count);

 private:
  const int base_seconds_;
  const int max_seconds_;
  const double jitter_;
  std::mutex mu_;
  std::mt19937_64 rng_;  // guarded by mu_
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_BACKOFF_H_
