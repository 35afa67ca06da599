// Message groups in the receive path, shared by FIFO queues and fair queues
// (standard queues whose messages carry a MessageGroupId): taking a
// consistent snapshot of the groups, discovering groups at open, and the
// fair round in which every group of a standard queue gets one message.
// Members of QueueImpl (queue_impl.h); all run under mu_, and take
// pending_mu_ only to capture the sends not yet written.

#include <limits>

#include <rocksdb/iterator.h>
#include <rocksdb/snapshot.h>

#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

namespace lqs::engine {

namespace {

constexpr size_t kMaxGroupsPerRound = 4096;
// The capacity fifo_new_ keeps between receives.
constexpr size_t kMaxRetainedNewGroups = 1024;

}  // namespace

std::unique_ptr<rocksdb::ManagedSnapshot> QueueImpl::SnapshotGroupsLocked(
    absl::flat_hash_map<std::string, uint64_t>* pending_floor) {
  notify::MutexLock lock(&pending_mu_);
  for (const auto& [group, seq] : fifo_new_) groups_.MarkQueued(group, seq);
  fifo_new_.clear();
  // A burst of sends before the first receive (a device back online) grows
  // the list to one entry per send; an idle queue gives that memory back.
  if (fifo_new_.capacity() > kMaxRetainedNewGroups) fifo_new_.shrink_to_fit();
  for (const auto& [group, seqs] : fifo_pending_) {
    if (!seqs.empty()) (*pending_floor)[group] = *seqs.begin();
  }
  return std::make_unique<rocksdb::ManagedSnapshot>(core_->db()->db());
}

Status QueueImpl::TakeFromGroupsRoundLocked(
    ReceiveContext* ctx, const rocksdb::Snapshot* snapshot,
    const absl::flat_hash_map<std::string, uint64_t>& pending_floor, bool* progress) {
  Status result;
  groups_.VisitRotation(kMaxGroupsPerRound, [&](const std::string& group) {
    mu_.AssertHeld();  // called by VisitRotation synchronously, under mu_
    if (ctx->full()) return false;
    fifo::GroupState* g = groups_.Find(group);
    if (g == nullptr || !g->may_have_queued || ctx->group_exhausted.contains(group)) return true;
    // Earlier rounds of this receive may have moved the group on; its state
    // changes only once the receive's batch is written (ApplyPlans).
    auto seen = ctx->group_cursor.find(group);
    const uint64_t cursor = seen == ctx->group_cursor.end() ? g->cursor : seen->second;
    const auto floor_it = pending_floor.find(group);
    const uint64_t floor =
        floor_it == pending_floor.end() ? std::numeric_limits<uint64_t>::max() : floor_it->second;
    bool exhausted = true, served = false, advanced = false;
    uint64_t new_cursor = cursor;
    storage::RangeIterator it(core_->db(), Cf::kGrouped, storage::GroupedKey(id_, group, cursor),
                              storage::GroupEnd(id_, group), snapshot);
    for (; it.Valid(); it.Next()) {
      uint64_t qid = 0, seq = 0;
      std::string key_group;
      storage::VisibleEntry e;
      if (!storage::DecodeGroupedKey(it.key(), &qid, &key_group, &seq) ||
          !storage::DecodeVisible(it.value(), &e)) {
        result = Status(ErrorCode::kCorruption, "grouped entry of queue " + name_ + " is corrupt");
        return false;
      }
      if (seq > floor || served || ctx->full()) {
        exhausted = false;
        break;
      }
      StatusOr<EntryOutcome> outcome =
          TakeQueuedLocked(ctx, Cf::kGrouped, it.key_slice(), seq, e, group);
      if (!outcome.ok()) {
        result = outcome.status();
        return false;
      }
      if (*outcome == EntryOutcome::kBlocked) {
        exhausted = false;
        break;
      }
      if (*outcome == EntryOutcome::kTaken) served = true;
      new_cursor = seq + 1;
      advanced = true;
    }
    if (Status st = it.status("receiving"); !st.ok()) {
      result = st;
      return false;
    }
    if (advanced) ctx->group_cursor[group] = new_cursor;
    if (exhausted) ctx->group_exhausted.insert(group);
    groups_.Plan(group, new_cursor, exhausted, served);
    if (served) *progress = true;
    return true;
  });
  return result;
}

Status QueueImpl::LoadGroups() {
  // One seek per group with queued messages (not one per message).
  storage::RangeIterator it(core_->db(), Cf::kGrouped, storage::QueuePrefix(id_),
                            storage::QueueEnd(id_));
  while (it.Valid()) {
    uint64_t qid = 0, seq = 0;
    std::string group;
    if (!storage::DecodeGroupedKey(it.key(), &qid, &group, &seq)) {
      return Status(ErrorCode::kCorruption, "grouped entry of queue " + name_ + " is corrupt");
    }
    groups_.MarkQueued(group, seq);
    uses_groups_.store(true);
    it.Seek(storage::GroupEnd(id_, group));
  }
  return it.status("loading groups");
}

}  // namespace lqs::engine
