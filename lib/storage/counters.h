// lib/storage/counters.h — per-queue counters kept by RocksDB merges.
//
// Every state change adds its counter deltas to the same WriteBatch as a
// Merge operand, so counters are exactly as durable and as atomic as the
// change they count, and concurrent writers never read-modify-write. Slots
// below kFirstMaxSlot add; slots from kFirstMaxSlot on keep the maximum
// (positions that only move forward, like the receive cursor).
//
// Encoding: a sequence of (slot:u8, value:i64 little-endian) pairs.
//
// Thread safety: CounterDelta is a value; the merge operator is stateless.

#ifndef LQS_LIB_STORAGE_COUNTERS_H_
#define LQS_LIB_STORAGE_COUNTERS_H_

#include <array>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace rocksdb {
class MergeOperator;
}

namespace lqs::storage {

enum Slot : int {
  kStored = 0,  // queued messages (ready + delayed), not leased
  kLeases = 1,  // entries in `inflight` (leased, maybe expired)
  kSentTotal = 2,
  kReceivedTotal = 3,
  kDeletedTotal = 4,
  kMovedToDlqTotal = 5,
  kExpiredTotal = 6,
  kPurgedTotal = 7,
  kMovedByTaskTotal = 8,
  kFirstMaxSlot = 16,
  kCursorMs = 16,        // every visible entry below it has been consumed
  kExpiryCursorMs = 17,  // every expiry entry below it has been processed
  kSeqCursor = 18,       // every message queued by seq below it left the queue
  kNumSlots = 19,
};

// A set of slot values (deltas for add slots, candidates for max slots).
class CounterDelta {
 public:
  // Saturates instead of overflowing (only a corrupt record could get there).
  void Add(Slot slot, int64_t delta) {
    int64_t sum = 0;
    if (__builtin_add_overflow(values_[slot], delta, &sum)) {
      sum = delta > 0 ? INT64_MAX : INT64_MIN;
    }
    values_[slot] = sum;
    present_[slot] = true;
  }
  void Max(Slot slot, int64_t v) {
    if (!present_[slot] || v > values_[slot]) values_[slot] = v;
    present_[slot] = true;
  }
  bool empty() const;
  int64_t Get(Slot slot) const { return values_[slot]; }
  bool Has(Slot slot) const { return present_[slot]; }
  std::string Encode() const;
  static bool Decode(std::string_view data, CounterDelta* out);
  // Folds `other` in: add slots add, max slots keep the larger.
  void MergeFrom(const CounterDelta& other);

 private:
  std::array<int64_t, kNumSlots> values_{};
  std::array<bool, kNumSlots> present_{};
};

// The merge operator of the counters column family. Keys starting with 'B'
// (delayed buckets) hold a single add slot.
std::shared_ptr<rocksdb::MergeOperator> NewCounterMergeOperator();

}  // namespace lqs::storage

#endif  // LQS_LIB_STORAGE_COUNTERS_H_
