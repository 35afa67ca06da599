// Message groups in the receive path, shared by FIFO queues and fair queues
// (standard queues whose messages carry a MessageGroupId): taking a
// consistent snapshot of the groups, discovering groups at open, and the
// fair round in which every group of a standard queue gets one message.
// Members of QueueImpl.

#include <rocksdb/iterator.h>

#include <limits>

#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"

namespace lqs::engine {

using storage::Cf;

namespace {

constexpr size_t kMaxGroupsPerRound = 4096;

std::string_view View(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

}  // namespace

std::unique_ptr<rocksdb::Iterator> QueueImpl::SnapshotGroupsLocked(
    absl::flat_hash_map<std::string, uint64_t>* pending_floor) {
  storage::Database* db = core_->db();
  rocksdb::ReadOptions ro;  // bounds are checked per group by the callers
  std::lock_guard<std::mutex> lock(pending_mu_);
  for (const auto& [group, seq] : fifo_new_) groups_.MarkQueued(group, seq);
  fifo_new_.clear();
  for (const auto& [group, seqs] : fifo_pending_) {
    if (!seqs.empty()) (*pending_floor)[group] = *seqs.begin();
  }
  return std::unique_ptr<rocksdb::Iterator>(db->db()->NewIterator(ro, db->cf(Cf::kGrouped)));
}

Status QueueImpl::TakeFromGroupsRoundLocked(
    ReceiveContext* ctx, rocksdb::Iterator* it,
    const absl::flat_hash_map<std::string, uint64_t>& pending_floor, bool* progress) {
  for (const std::string& group : groups_.Rotation(kMaxGroupsPerRound)) {
    if (ctx->full()) break;
    fifo::GroupState* g = groups_.Find(group);
    if (g == nullptr || !g->may_have_queued || ctx->group_exhausted.contains(group)) continue;
    // Earlier rounds of this receive may have moved the group on; its state
    // changes only once the receive's batch is written (ApplyPlans).
    auto seen = ctx->group_cursor.find(group);
    const uint64_t cursor = seen == ctx->group_cursor.end() ? g->cursor : seen->second;
    const auto floor_it = pending_floor.find(group);
    const uint64_t floor =
        floor_it == pending_floor.end() ? std::numeric_limits<uint64_t>::max() : floor_it->second;
    const std::string end = storage::GroupEnd(id_, group);
    bool exhausted = true, served = false, advanced = false;
    uint64_t new_cursor = cursor;
    for (it->Seek(storage::GroupedKey(id_, group, cursor)); it->Valid(); it->Next()) {
      if (View(it->key()) >= std::string_view(end)) break;
      uint64_t qid = 0, seq = 0;
      std::string key_group;
      storage::VisibleEntry e;
      if (!storage::DecodeGroupedKey(View(it->key()), &qid, &key_group, &seq) ||
          !storage::DecodeVisible(View(it->value()), &e)) {
        return Status(ErrorCode::kCorruption, "grouped entry of queue " + name_ + " is corrupt");
      }
      if (seq > floor || served || ctx->full()) {
        exhausted = false;
        break;
      }
      StatusOr<EntryOutcome> outcome = TakeQueuedLocked(ctx, Cf::kGrouped, it->key(), seq, e, group);
      if (!outcome.ok()) return outcome.status();
      if (*outcome == EntryOutcome::kBlocked) {
        exhausted = false;
        break;
      }
      if (*outcome == EntryOutcome::kTaken) served = true;
      new_cursor = seq + 1;
      advanced = true;
    }
    if (!it->status().ok()) return storage::FromRocks(it->status(), "receiving");
    if (advanced) ctx->group_cursor[group] = new_cursor;
    if (exhausted) ctx->group_exhausted.insert(group);
    groups_.Plan(group, new_cursor, exhausted, served);
    if (served) *progress = true;
  }
  return Status::OK();
}

Status QueueImpl::LoadGroups() {
  // One seek per group with queued messages (not one per message).
  storage::Database* db = core_->db();
  std::string lo = storage::QueuePrefix(id_), hi = storage::QueueEnd(id_);
  rocksdb::Slice lo_s(lo), hi_s(hi);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lo_s;
  ro.iterate_upper_bound = &hi_s;
  std::unique_ptr<rocksdb::Iterator> it(db->db()->NewIterator(ro, db->cf(Cf::kGrouped)));
  for (it->Seek(lo_s); it->Valid();) {
    uint64_t qid = 0, seq = 0;
    std::string group;
    if (!storage::DecodeGroupedKey(View(it->key()), &qid, &group, &seq)) {
      return Status(ErrorCode::kCorruption, "grouped entry of queue " + name_ + " is corrupt");
    }
    groups_.MarkQueued(group, seq);
    uses_groups_.store(true);
    it->Seek(storage::GroupEnd(id_, group));
  }
  return storage::FromRocks(it->status(), "loading groups");
}

}  // namespace lqs::engine
