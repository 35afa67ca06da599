#include "bench/histogram.h"

#include <algorithm>
#include <bit>

namespace lqs::bench {

// Values below kSub get their own bucket; above, bucket = (exponent, top
// kSubBits bits after the leading one).
int Histogram::BucketOf(uint64_t v) {
  if (v < static_cast<uint64_t>(kSub)) return static_cast<int>(v);
  const int msb = 63 - std::countl_zero(v);  // >= kSubBits
  const int shift = msb - kSubBits;
  const int sub = static_cast<int>((v >> shift) & (kSub - 1));
  return (shift + 1) * kSub + sub;
}

double Histogram::BucketMid(int b) {
  if (b < kSub) return b;
  const int shift = b / kSub - 1;
  const uint64_t sub = static_cast<uint64_t>(b % kSub);
  const uint64_t lo = (static_cast<uint64_t>(kSub) + sub) << shift;
  const uint64_t width = uint64_t{1} << shift;
  return static_cast<double>(lo) + static_cast<double>(width) / 2.0;
}

void Histogram::Record(uint64_t nanos) {
  ++buckets_[BucketOf(nanos)];
  ++count_;
  sum_ += nanos;
  max_ = std::max(max_, nanos);
}

void Histogram::Merge(const Histogram& other) {
  for (int i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

double Histogram::PercentileNanos(double p) const {
  if (count_ == 0) return 0.0;
  const double target = p / 100.0 * static_cast<double>(count_);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (buckets_[i] != 0 && static_cast<double>(seen) >= target) {
      return std::min(BucketMid(i), static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);
}

}  // namespace lqs::bench
