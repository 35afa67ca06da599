// bench/histogram.h — a small log-linear latency histogram (nanoseconds).
//
// Each power of two is split into 64 linear sub-buckets, so a percentile is
// exact to within ~1.6%. Record() is not thread-safe: give every thread its
// own Histogram and Merge() them afterwards.

#ifndef LQS_BENCH_HISTOGRAM_H_
#define LQS_BENCH_HISTOGRAM_H_

#include <array>
#include <cstdint>

namespace lqs::bench {

class Histogram {
 public:
  void Record(uint64_t nanos);
  void Merge(const Histogram& other);
  uint64_t count() const { return count_; }
  // The value below which `p` percent (0..100) of the samples fall, in ns.
  double PercentileNanos(double p) const;
  double MeanNanos() const { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / count_; }
  uint64_t MaxNanos() const { return max_; }

 private:
  static constexpr int kSubBits = 6;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kBuckets = (64 - kSubBits + 1) * kSub;
  static int BucketOf(uint64_t v);
  static double BucketMid(int b);

  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t max_ = 0;
};

}  // namespace lqs::bench

#endif  // LQS_BENCH_HISTOGRAM_H_
