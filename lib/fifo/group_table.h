// lib/fifo/group_table.h — the in-memory state of a FIFO queue's message
// groups: where each group's queued messages start, which of its messages are
// leased, and the rotation in which receives serve groups.
//
// Memory is O(groups with something queued or in flight): a group with
// nothing left is dropped (DropIfIdle), so idle groups cost nothing.
//
// Thread safety: none; the owning queue's mutex guards it.

#ifndef LQS_LIB_FIFO_GROUP_TABLE_H_
#define LQS_LIB_FIFO_GROUP_TABLE_H_

#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include <absl/container/btree_set.h>
#include <absl/container/flat_hash_map.h>

namespace lqs::fifo {

struct GroupState {
  // Every queued (not yet received) message of the group has seq >= cursor.
  uint64_t cursor = 0;
  // False once a receive found the group's queued range empty.
  bool may_have_queued = false;
  // Seqs of the group's messages in the lease table, in group order.
  absl::btree_set<uint64_t> leased;
};

class GroupTable {
 public:
  GroupState* Find(const std::string& group);
  // Records that messages from `first_seq` on were queued in `group` and
  // puts the group in the rotation.
  void MarkQueued(const std::string& group, uint64_t first_seq);
  void AddLeased(const std::string& group, uint64_t seq);
  void RemoveLeased(const std::string& group, uint64_t seq);
  // Calls fn(group) for up to `limit` groups in rotation order, until fn
  // returns false. fn must not change the rotation (plans apply later).
  template <typename Fn>
  void VisitRotation(size_t limit, Fn fn) const {
    size_t n = 0;
    for (auto it = rotation_.begin(); it != rotation_.end() && n < limit; ++it, ++n) {
      if (!fn(*it)) break;
    }
  }
  // Moves a group that was just served to the back of the rotation.
  void MoveToBack(const std::string& group);
  // Forgets a group with nothing queued and nothing leased.
  void DropIfIdle(const std::string& group);
  void Clear();
  size_t size() const { return groups_.size(); }
  bool empty_rotation() const { return rotation_.empty(); }

  // What a receive learned about a group, applied only once its write
  // succeeded: the new cursor, whether the queued range ran out, and whether
  // the group was served (it then goes to the back of the rotation).
  void Plan(const std::string& group, uint64_t new_cursor, bool exhausted, bool served);
  void ApplyPlans();
  void DiscardPlans() { plans_.clear(); }

 private:
  GroupState& GetOrCreate(const std::string& group);
  absl::flat_hash_map<std::string, GroupState> groups_;
  std::list<std::string> rotation_;
  absl::flat_hash_map<std::string, std::list<std::string>::iterator> position_;
  struct PlanEntry {
    std::string group;
    uint64_t new_cursor;
    bool exhausted;
    bool served;
  };
  std::vector<PlanEntry> plans_;
};

}  // namespace lqs::fifo

#endif  // LQS_LIB_FIFO_GROUP_TABLE_H_
