#include "lib/fifo/dedup_table.h"

#include <cstdio>

namespace lqs::fifo {

std::string DedupScopeKey(bool per_group, std::string_view group, std::string_view dedup_id) {
  std::string key;
  if (per_group) {
    key.append(group);
    key.push_back('\0');
  }
  key.append(dedup_id);
  return key;
}

std::string FormatSequenceNumber(uint64_t seq) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%020llu",
                static_cast<unsigned long long>(10000000000000000000ULL + seq));
  return buf;
}

const storage::DedupEntry* DedupTable::Find(const std::string& key, int64_t now_ms) const {
  auto it = by_key_.find(key);
  if (it == by_key_.end() || it->second.first_ms + kDedupWindowMs <= now_ms) return nullptr;
  return &it->second;
}

void DedupTable::Put(const std::string& key, storage::DedupEntry entry) {
  Erase(key);
  by_time_.emplace(entry.first_ms, key);
  by_key_.emplace(key, std::move(entry));
}

void DedupTable::Erase(const std::string& key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  by_time_.erase({it->second.first_ms, key});
  by_key_.erase(it);
}

std::vector<std::string> DedupTable::ExpiredKeys(int64_t now_ms, size_t limit) const {
  std::vector<std::string> out;
  for (auto it = by_time_.begin();
       it != by_time_.end() && it->first + kDedupWindowMs <= now_ms && out.size() < limit; ++it) {
    out.push_back(it->second);
  }
  return out;
}

void DedupTable::Clear() {
  by_key_.clear();
  by_time_.clear();
}

}  // namespace lqs::fifo
