// lib/fifo/dedup_table.h — the FIFO deduplication window in memory (its
// persistent twin is the `dedup` column family).
//
// A message id accepted at time t is a duplicate until t + 5 minutes.
// Memory is bounded by the ids seen in the last five minutes; ExpiredKeys
// finds what to forget without scanning the rest.
//
// Thread safety: none; the owning queue's pending_mu_ guards it.

#ifndef LQS_LIB_FIFO_DEDUP_TABLE_H_
#define LQS_LIB_FIFO_DEDUP_TABLE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/btree_set.h>
#include <absl/container/flat_hash_map.h>

#include "lib/storage/records.h"

#include "lqs/limits.h"

namespace lqs::fifo {

inline constexpr int64_t kDedupWindowMs = limits::kDeduplicationWindowMs;

// The key a dedup id is remembered under: the id alone (scope "queue") or
// group, 0x00, id (scope "messageGroup").
std::string DedupScopeKey(bool per_group, std::string_view group, std::string_view dedup_id);

// SQS-style sequence numbers: 20 decimal digits, increasing with `seq`.
std::string FormatSequenceNumber(uint64_t seq);

class DedupTable {
 public:
  // The entry for `key` if it is still inside the window at `now_ms`.
  const storage::DedupEntry* Find(const std::string& key, int64_t now_ms) const;
  void Put(const std::string& key, storage::DedupEntry entry);
  void Erase(const std::string& key);
  // Keys whose window ended by `now_ms` (at most `limit`).
  std::vector<std::string> ExpiredKeys(int64_t now_ms, size_t limit) const;
  void Clear();
  size_t size() const { return by_key_.size(); }

 private:
  absl::flat_hash_map<std::string, storage::DedupEntry> by_key_;
  absl::btree_set<std::pair<int64_t, std::string>> by_time_;
};

}  // namespace lqs::fifo

#endif  // LQS_LIB_FIFO_DEDUP_TABLE_H_
