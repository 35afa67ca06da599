#include "lib/fifo/dedup_table.h"

#include <cstdio>

#include <absl/hash/hash.h>

namespace lqs::fifo {

namespace {

constexpr uint64_t kSequenceBase = 10000000000000000000ULL;
constexpr size_t kSequenceDigits = 20;

}  // namespace

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
  std::snprintf(buf, sizeof(buf), "%020llu", static_cast<unsigned long long>(kSequenceBase + seq));
  return buf;
}

bool ParseSequenceNumber(std::string_view text, uint64_t* seq) {
  if (text.size() != kSequenceDigits) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (v < kSequenceBase) return false;
  *seq = v - kSequenceBase;
  return true;
}

size_t DedupTable::HashOf::operator()(std::string_view key) const {
  return absl::Hash<std::string_view>{}(key);
}

std::optional<storage::DedupEntry> DedupTable::Find(std::string_view key, int64_t now_ms) const {
  auto it = by_key_.find(key);
  if (it == by_key_.end() || (*it)->first_ms + kDedupWindowMs <= now_ms) return std::nullopt;
  storage::DedupEntry out;
  out.first_ms = (*it)->first_ms;
  out.message_id = (*it)->message_id;
  out.sequence_number = FormatSequenceNumber((*it)->seq);
  return out;
}

bool DedupTable::Put(std::string_view key, const storage::DedupEntry& entry) {
  uint64_t seq = 0;
  if (!ParseSequenceNumber(entry.sequence_number, &seq)) return false;
  Erase(key);
  by_time_.push_back(
      {std::string(key), entry.message_id, entry.first_ms, seq, HashOf{}(key), /*live=*/true});
  by_key_.insert(&by_time_.back());
  return true;
}

void DedupTable::Erase(std::string_view key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  Entry* e = *it;
  by_key_.erase(it);
  e->live = false;
  // A send that stored nothing erases the entry it just added: reclaim it now.
  if (&by_time_.back() == e) by_time_.pop_back();
}

std::vector<std::string> DedupTable::TakeExpired(int64_t now_ms, size_t limit) {
  std::vector<std::string> out;
  while (!by_time_.empty() && out.size() < limit) {
    Entry& e = by_time_.front();
    if (e.live) {
      if (e.first_ms + kDedupWindowMs > now_ms) break;
      by_key_.erase(&e);
      out.push_back(std::move(e.key));
    }
    by_time_.pop_front();
  }
  return out;
}

void DedupTable::Clear() {
  by_key_.clear();
  by_time_.clear();
}

}  // namespace lqs::fifo
