#include "lib/lease/lease_table.h"

#include <limits>

namespace lqs::lease {

void LeaseTable::Put(uint64_t seq, const storage::LeaseEntry& lease) {
  Erase(seq);
  by_seq_.emplace(seq, lease);
  by_visible_.emplace(lease.visible_at_ms, seq);
  by_sent_.emplace(lease.sent_ms, seq);
}

void LeaseTable::Erase(uint64_t seq) {
  auto it = by_seq_.find(seq);
  if (it == by_seq_.end()) return;
  by_visible_.erase({it->second.visible_at_ms, seq});
  by_sent_.erase({it->second.sent_ms, seq});
  by_seq_.erase(it);
}

const storage::LeaseEntry* LeaseTable::Find(uint64_t seq) const {
  auto it = by_seq_.find(seq);
  return it == by_seq_.end() ? nullptr : &it->second;
}

void LeaseTable::Clear() {
  by_seq_.clear();
  by_visible_.clear();
  by_sent_.clear();
}

int64_t LeaseTable::CountExpired(int64_t now_ms) const {
  int64_t n = 0;
  for (auto it = by_visible_.begin(); it != by_visible_.end() && it->first <= now_ms; ++it) {
    ++n;
  }
  return n;
}

std::vector<uint64_t> LeaseTable::Expired(int64_t now_ms, size_t limit) const {
  std::vector<uint64_t> out;
  for (auto it = by_visible_.begin();
       it != by_visible_.end() && it->first <= now_ms && out.size() < limit; ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::vector<uint64_t> LeaseTable::SentBefore(int64_t sent_before_ms, size_t limit) const {
  std::vector<uint64_t> out;
  for (auto it = by_sent_.begin();
       it != by_sent_.end() && it->first < sent_before_ms && out.size() < limit; ++it) {
    out.push_back(it->second);
  }
  return out;
}

int64_t LeaseTable::NextExpiryAfter(int64_t now_ms) const {
  auto it = by_visible_.upper_bound({now_ms, std::numeric_limits<uint64_t>::max()});
  return it == by_visible_.end() ? -1 : it->first;
}

}  // namespace lqs::lease
