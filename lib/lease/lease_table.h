// lib/lease/lease_table.h — the in-memory view of a queue's `inflight` column
// family: every received, not yet deleted message with its current lease.
//
// A lease whose end (visible_at) has passed stays here, logically visible,
// until it is received again, deleted, or expires by retention: receives take
// such messages first. Because a fresh message is only leased when no expired
// lease is waiting, the table never holds more than the in-flight limit plus
// one receive's worth of entries: memory is O(in flight), never O(backlog).
//
// Thread safety: none; the owning queue's mutex guards it.

#ifndef LQS_LIB_LEASE_LEASE_TABLE_H_
#define LQS_LIB_LEASE_LEASE_TABLE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include <absl/container/btree_set.h>
#include <absl/container/flat_hash_map.h>

#include "lib/storage/records.h"

namespace lqs::lease {

class LeaseTable {
 public:
  // Inserts or replaces the lease of `seq`.
  void Put(uint64_t seq, const storage::LeaseEntry& lease);
  void Erase(uint64_t seq);
  const storage::LeaseEntry* Find(uint64_t seq) const;
  void Clear();

  size_t size() const { return by_seq_.size(); }
  // Leases whose end is <= now (messages visible again), counted.
  int64_t CountExpired(int64_t now_ms) const;
  // Up to `limit` seqs whose lease ended <= now, earliest end first.
  std::vector<uint64_t> Expired(int64_t now_ms, size_t limit) const;
  // Up to `limit` seqs sent before `sent_before_ms` (retention).
  std::vector<uint64_t> SentBefore(int64_t sent_before_ms, size_t limit) const;
  // The earliest lease end after `now_ms`, or -1 if none.
  int64_t NextExpiryAfter(int64_t now_ms) const;

  template <typename Fn>
  void ForEach(Fn fn) const {
    for (const auto& [seq, lease] : by_seq_) fn(seq, lease);
  }

 private:
  absl::flat_hash_map<uint64_t, storage::LeaseEntry> by_seq_;
  absl::btree_set<std::pair<int64_t, uint64_t>> by_visible_;  // (visible_at, seq)
  absl::btree_set<std::pair<int64_t, uint64_t>> by_sent_;     // (sent, seq)
};

}  // namespace lqs::lease

#endif  // LQS_LIB_LEASE_LEASE_TABLE_H_
