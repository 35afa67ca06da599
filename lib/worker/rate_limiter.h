// lib/worker/rate_limiter.h — token buckets on the injected clock.
//
// A TokenBucket holds up to `burst` tokens and gains `rate` per second of
// Clock time; starting a handler takes one token per message. Over any
// interval of t seconds from a full bucket, at most rate * t + burst tokens
// are taken. RateLimiter combines an overall bucket with one bucket per
// MessageGroupId (created on first use, dropped when full and idle).
//
// Thread safety: none; the scheduler calls these under its mutex.

#ifndef LQS_LIB_WORKER_RATE_LIMITER_H_
#define LQS_LIB_WORKER_RATE_LIMITER_H_

#include <cstdint>
#include <map>
#include <string>

namespace lqs::worker {

class TokenBucket {
 public:
  // rate <= 0: unlimited (every request is granted at once).
  TokenBucket(double rate_per_second, double burst, int64_t now_ms);

  bool unlimited() const { return rate_ <= 0; }
  // True when `n` tokens (at most a full bucket) are available at `now_ms`.
  bool CanTake(int64_t now_ms, double n);
  // Takes `n` tokens; the balance may go negative for n > burst, which
  // delays later requests accordingly.
  void Take(int64_t now_ms, double n);
  // The clock time at which CanTake(n) becomes true.
  int64_t ReadyAt(int64_t now_ms, double n);
  bool Full(int64_t now_ms);

 private:
  void Refill(int64_t now_ms);
  double Need(double n) const { return n < burst_ ? n : burst_; }

  double rate_;
  double burst_;
  double tokens_;
  int64_t last_ms_;
};

class RateLimiter {
 public:
  // The burst of each bucket is one second's worth of its rate, at least 1.
  RateLimiter(double rate_per_second, double per_group_rate_per_second, int64_t now_ms);

  // Whether `n` starts are allowed now for messages of `group` (empty: no
  // group, only the overall limit applies).
  bool CanStart(int64_t now_ms, const std::string& group, double n);
  void Started(int64_t now_ms, const std::string& group, double n);
  // Charges only `group`'s bucket (a batch charges the overall bucket once).
  void GroupStarted(int64_t now_ms, const std::string& group, double n);
  // When CanStart(group, n) becomes true (now_ms if it is).
  int64_t ReadyAt(int64_t now_ms, const std::string& group, double n);
  // Drops full per-group buckets (they would behave exactly as new ones).
  void Compact(int64_t now_ms);
  size_t group_buckets() const { return groups_.size(); }

 private:
  TokenBucket* Group(int64_t now_ms, const std::string& group);

  TokenBucket overall_;
  double group_rate_;
  std::map<std::string, TokenBucket> groups_;
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_RATE_LIMITER_H_
