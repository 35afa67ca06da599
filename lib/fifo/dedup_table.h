// lib/fifo/dedup_table.h — the FIFO deduplication window in memory (its
// persistent twin is the `dedup` column family).
//
// A message id accepted at time t is a duplicate until t + 5 minutes.
// Memory is bounded by the ids seen in the last five minutes, and each costs
// little, since a busy FIFO queue holds hundreds of thousands: the entries
// live once, in acceptance order, in a deque (whose elements never move), and
// the index by key holds a pointer to each with its key's hash. The sequence
// number is kept as the integer it was formatted from. TakeExpired forgets
// from the oldest end without scanning the rest.
//
// Acceptance order is time order while the clock moves forward. If it goes
// back, an entry accepted after the jump is forgotten only once the clock has
// passed the windows of the older ones ahead of it; Find is exact either way.
//
// Thread safety: none; the owning queue's pending_mu_ guards it.

#ifndef LQS_LIB_FIFO_DEDUP_TABLE_H_
#define LQS_LIB_FIFO_DEDUP_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "lib/storage/records.h"

#include "lqs/limits.h"

namespace lqs::fifo {

inline constexpr int64_t kDedupWindowMs = limits::kDeduplicationWindowMs;

// The key a dedup id is remembered under: the id alone (scope "queue") or
// group, 0x00, id (scope "messageGroup").
std::string DedupScopeKey(bool per_group, std::string_view group, std::string_view dedup_id);

// SQS-style sequence numbers: 20 decimal digits, increasing with `seq`.
std::string FormatSequenceNumber(uint64_t seq);
// The inverse of FormatSequenceNumber; false for any other text.
bool ParseSequenceNumber(std::string_view text, uint64_t* seq);

class DedupTable {
 public:
  DedupTable() = default;
  // The index points into the deque: not copyable.
  DedupTable(const DedupTable&) = delete;
  DedupTable& operator=(const DedupTable&) = delete;

  // The entry for `key` if it is still inside the window at `now_ms`.
  std::optional<storage::DedupEntry> Find(std::string_view key, int64_t now_ms) const;
  // Remembers `key` (replacing an earlier entry for it). False, and nothing
  // changed, when entry.sequence_number is not FormatSequenceNumber's.
  bool Put(std::string_view key, const storage::DedupEntry& entry);
  void Erase(std::string_view key);
  // Forgets the oldest keys whose window ended by `now_ms` (at most `limit`)
  // and returns them, oldest first.
  std::vector<std::string> TakeExpired(int64_t now_ms, size_t limit);
  void Clear();
  size_t size() const { return by_key_.size(); }

 private:
  struct Entry {
    std::string key;
    std::string message_id;
    int64_t first_ms;
    uint64_t seq;
    size_t hash;  // absl::Hash of `key`
    bool live;    // false once erased or replaced; popped at the front
  };
  struct HashOf {
    using is_transparent = void;
    size_t operator()(const Entry* e) const { return e->hash; }
    size_t operator()(std::string_view key) const;
  };
  struct SameKey {
    using is_transparent = void;
    static std::string_view KeyOf(const Entry* e) { return e->key; }
    static std::string_view KeyOf(std::string_view key) { return key; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return KeyOf(a) == KeyOf(b);
    }
  };

  std::deque<Entry> by_time_;                            // acceptance order; references stay valid
  absl::flat_hash_set<Entry*, HashOf, SameKey> by_key_;  // the live entries
};

}  // namespace lqs::fifo

#endif  // LQS_LIB_FIFO_DEDUP_TABLE_H_
