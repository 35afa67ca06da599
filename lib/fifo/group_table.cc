#include "lib/fifo/group_table.h"

#include <algorithm>

namespace lqs::fifo {

GroupState* GroupTable::Find(const std::string& group) {
  auto it = groups_.find(group);
  return it == groups_.end() ? nullptr : &it->second;
}

GroupState& GroupTable::GetOrCreate(const std::string& group) {
  auto [it, inserted] = groups_.try_emplace(group);
  if (inserted) {
    rotation_.push_back(group);
    position_[group] = std::prev(rotation_.end());
  }
  return it->second;
}

void GroupTable::MarkQueued(const std::string& group, uint64_t first_seq) {
  const bool existed = groups_.contains(group);
  GroupState& g = GetOrCreate(group);
  // A group known to have nothing queued starts again at `first_seq`;
  // otherwise the cursor only moves back (sends finish out of seq order).
  g.cursor = (!existed || !g.may_have_queued) ? first_seq : std::min(g.cursor, first_seq);
  g.may_have_queued = true;
}

void GroupTable::AddLeased(const std::string& group, uint64_t seq) {
  GetOrCreate(group).leased.insert(seq);
}

void GroupTable::RemoveLeased(const std::string& group, uint64_t seq) {
  GroupState* g = Find(group);
  if (g == nullptr) return;
  g->leased.erase(seq);
  DropIfIdle(group);
}

void GroupTable::MoveToBack(const std::string& group) {
  auto it = position_.find(group);
  if (it == position_.end()) return;
  rotation_.splice(rotation_.end(), rotation_, it->second);
}

void GroupTable::DropIfIdle(const std::string& group) {
  auto it = groups_.find(group);
  if (it == groups_.end() || it->second.may_have_queued || !it->second.leased.empty()) return;
  auto pos = position_.find(group);
  if (pos != position_.end()) {
    rotation_.erase(pos->second);
    position_.erase(pos);
  }
  groups_.erase(it);
  // Give memory back after a burst of groups: idle groups cost nothing.
  if (groups_.bucket_count() > 64 && groups_.size() * 4 < groups_.bucket_count()) {
    groups_.rehash(0);
    position_.rehash(0);
  }
}

void GroupTable::Plan(const std::string& group, uint64_t new_cursor, bool exhausted, bool served) {
  plans_.push_back({group, new_cursor, exhausted, served});
}

void GroupTable::ApplyPlans() {
  for (const PlanEntry& p : plans_) {
    GroupState* g = Find(p.group);
    if (g == nullptr) continue;
    g->cursor = std::max(g->cursor, p.new_cursor);
    if (p.exhausted) g->may_have_queued = false;
    if (p.served) MoveToBack(p.group);
    DropIfIdle(p.group);
  }
  plans_.clear();
}

void GroupTable::Clear() {
  plans_.clear();
  groups_.clear();
  rotation_.clear();
  position_.clear();
}

}  // namespace lqs::fifo
