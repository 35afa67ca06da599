// lib/engine/queue_receive_scan.cc — one receive attempt of a standard
// queue (TryReceiveLocked): ended leases first, then the visible index
// merged by time with the messages queued by seq, and on fair queues the
// message groups in turns; and the lease bookkeeping every receive shares
// (StartReceiveLocked, TakeQueuedLocked, TakeLeasedLocked,
// CommitReceiveLocked). Members of QueueImpl (queue_impl.h); FIFO queues'
// attempt is in fifo_queue.cc, the groups' in fair_queue.cc.
//
// Everything here runs under mu_ and writes one WriteBatch per attempt;
// pending_mu_ is held only while the iterators' snapshots are taken.

#include <algorithm>
#include <limits>
#include <optional>

#include <rocksdb/iterator.h>
#include <rocksdb/snapshot.h>

#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

namespace lqs::engine {

namespace {

constexpr size_t kScanLimitPerReceive = 1024;

}  // namespace

void QueueImpl::AdvanceCursorLocked(int64_t ms, uint64_t seq) {
  if (std::make_pair(ms, seq) > std::make_pair(cursor_ms_, cursor_seq_)) {
    cursor_ms_ = ms;
    cursor_seq_ = seq;
  }
}

void QueueImpl::AdvanceSeqCursorLocked(uint64_t seq) {
  if (seq <= seq_cursor_) return;
  seq_cursor_ = seq;
  ahead_.erase(ahead_.begin(), ahead_.lower_bound(seq));
}

Status QueueImpl::TryReceiveLocked(const ReceiveMessageRequest& request, int64_t now,
                                   bool long_poll, std::vector<Taken>* taken) {
  if (fifo_) return TryReceiveFifoLocked(request, now, long_poll, taken);
  // Receives never deliver an expired message (each candidate is checked
  // below); the sweep that also reclaims untouched ones runs at most once a
  // second here, so the hot path stays a single index scan.
  if (now - last_expire_ms_ >= 1000) {
    StatusOr<int64_t> expired = ExpireLocked(now, kExpireBudgetPerReceive);
    if (!expired.ok()) return expired.status();
    last_expire_ms_ = now;
  }

  ReceiveContext ctx;
  Status start = StartReceiveLocked(request, now, long_poll, taken, &ctx);
  if (!start.ok() || ctx.want == 0) return start;
  storage::Database* db = core_->db();

  // 1. Messages whose lease ended: first in line.
  for (uint64_t seq : leases_.Expired(now, ctx.want + 64)) {
    if (ctx.full()) break;
    // A message the DLQ cannot take right now simply waits (kBlocked).
    StatusOr<EntryOutcome> outcome = TakeLeasedLocked(&ctx, seq);
    if (!outcome.ok()) return outcome.status();
  }

  // 2. Queued messages. Without message groups: the visible index, from the
  //    cursor up to now, merged by time with the messages queued by seq.
  //    With groups (fair queues), tenants take turns: each round takes one
  //    message without a group and one from every group.
  int64_t new_cursor_ms = cursor_ms_;
  uint64_t new_cursor_seq = cursor_seq_;
  uint64_t new_seq_cursor = seq_cursor_;
  if (!ctx.full()) {
    std::optional<storage::RangeIterator> it;
    std::optional<SeqLane> lane;
    std::pair<int64_t, uint64_t> floor{std::numeric_limits<int64_t>::max(), 0};
    uint64_t seq_floor = std::numeric_limits<uint64_t>::max();
    absl::flat_hash_map<std::string, uint64_t> group_floor;
    std::unique_ptr<rocksdb::ManagedSnapshot> groups_snapshot;
    {
      // Sends not yet written must not be passed by the cursors: take the
      // lowest pending keys at the moment the iterators' snapshots are made.
      notify::MutexLock lock(&pending_mu_);
      if (!pending_.empty()) floor = *pending_.begin();
      if (!pending_by_seq_.empty()) seq_floor = *pending_by_seq_.begin();
      it.emplace(storage::RangeIterator::DeferSeek{}, db, Cf::kVisible,
                 storage::TimeKey(id_, cursor_ms_, cursor_seq_), storage::TimeKey(id_, now + 1, 0));
      // Unbounded: the records it passes (delayed, grouped, dead-lettered)
      // are passed once, as the cursor moves past them, and a bound could
      // leave a receive empty while a message is ready behind them.
      lane.emplace(db, id_, seq_cursor_, name_);
    }
    // Called by the lane synchronously, under mu_.
    auto taken_ahead = [this](uint64_t seq) {
      mu_.AssertHeld();
      return TakenAheadLocked(seq);
    };
    if (uses_groups_.load()) groups_snapshot = SnapshotGroupsLocked(&group_floor);
    const bool fair = groups_snapshot != nullptr && !groups_.empty_rotation();
    size_t scanned = 0;
    bool lane_done = false;
    // The visible entry at `it`, decoded once per position.
    storage::DecodedTimeKey k;
    VisibleEntry e;
    bool decoded = false;
    it->SeekToLower();
    lane->Start(taken_ahead);
    while (!ctx.full()) {
      bool progress = false;
      // The lane without groups: one message per round when fair, else all.
      size_t lane_taken = 0;
      while (!lane_done && !ctx.full() && (!fair || lane_taken == 0)) {
        if (!lane->status().ok()) return lane->status();
        const bool indexed = it->Valid() && scanned < kScanLimitPerReceive;
        if (!indexed && !lane->Valid()) {
          lane_done = true;
          break;
        }
        if (indexed && !decoded) {
          if (!storage::DecodeTimeKey(it->key(), &k) || !storage::DecodeVisible(it->value(), &e)) {
            return Status(ErrorCode::kCorruption,
                          "visible entry of queue " + name_ + " is corrupt");
          }
          decoded = true;
        }
        // The earlier of the two; the visible entry first on a tie.
        if (!indexed || (lane->Valid() && lane->message().sent_timestamp_ms < k.time_ms)) {
          VisibleEntry by_seq;
          by_seq.sent_ms = lane->message().sent_timestamp_ms;
          StatusOr<EntryOutcome> outcome =
              TakeQueuedLocked(&ctx, Cf::kMessages, rocksdb::Slice(), lane->seq(), by_seq, "");
          if (!outcome.ok()) return outcome.status();
          if (*outcome == EntryOutcome::kTaken) {
            taken->back().message = std::move(lane->mutable_message());
            ++lane_taken;
            progress = true;
          }
          lane->Next(taken_ahead);
          continue;
        }
        StatusOr<EntryOutcome> outcome =
            TakeQueuedLocked(&ctx, Cf::kVisible, it->key_slice(), k.seq, e, "");
        if (!outcome.ok()) return outcome.status();
        if (*outcome == EntryOutcome::kBlocked) {
          lane_done = true;
          break;
        }
        if (*outcome == EntryOutcome::kTaken) {
          ++lane_taken;
          progress = true;
        }
        new_cursor_ms = k.time_ms;
        new_cursor_seq = k.seq + 1;
        ++scanned;
        it->Next();
        decoded = false;
      }
      if (!it->ok()) return it->status("receiving");
      if (fair && !ctx.full()) {
        Status st =
            TakeFromGroupsRoundLocked(&ctx, groups_snapshot->snapshot(), group_floor, &progress);
        if (!st.ok()) return st;
      }
      if (!fair || !progress) break;
    }
    if (!lane->status().ok()) return lane->status();
    if (std::make_pair(new_cursor_ms, new_cursor_seq) > floor) {
      new_cursor_ms = floor.first;
      new_cursor_seq = floor.second;
    }
    new_seq_cursor = std::min(lane->resume_seq(), seq_floor);
  }

  if (ctx.delta.empty() && ctx.dl.delta.empty()) {
    AdvanceCursorLocked(new_cursor_ms, new_cursor_seq);
    AdvanceSeqCursorLocked(new_seq_cursor);
    return Status::OK();
  }
  ctx.delta.Max(storage::kCursorMs, new_cursor_ms);
  if (new_seq_cursor > seq_cursor_) {
    ctx.delta.Max(storage::kSeqCursor, static_cast<int64_t>(new_seq_cursor));
  }
  if (Status st = CommitReceiveLocked(&ctx); !st.ok()) return st;
  AdvanceCursorLocked(new_cursor_ms, new_cursor_seq);
  AdvanceSeqCursorLocked(new_seq_cursor);
  // Messages queued by seq that the cursor could not pass (an earlier send
  // was still unwritten) are leased ahead of it.
  for (const Taken& t : *taken) {
    if (t.message && t.seq >= seq_cursor_) ahead_.insert(t.seq);
  }
  return Status::OK();
}

Status QueueImpl::CommitReceiveLocked(ReceiveContext* ctx) {
  storage::Database* db = core_->db();
  std::vector<Taken>* taken = ctx->taken;
  ctx->batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), ctx->delta.Encode());
  AddDeadLetterCounters(&ctx->dl, &ctx->batch);
  Status st = db->Write(&ctx->batch, /*must_sync=*/false);
  FinishDeadLetter(&ctx->dl, st.ok());
  if (!st.ok()) {
    taken->clear();
    groups_.DiscardPlans();
    return st;
  }
  for (uint64_t seq : ctx->leases_gone) ForgetLeaseLocked(seq);
  for (const Taken& t : *taken) {
    leases_.Put(t.seq, t.lease);
    // A FIFO group is blocked while it has a message in flight (before the
    // plans are applied: a group with a lease is not dropped as idle).
    if (fifo_) groups_.AddLeased(t.lease.group, t.seq);
  }
  groups_.ApplyPlans();
  ApplyDelta(ctx->delta);
  return Status::OK();
}

StatusOr<std::optional<QueueImpl::EntryOutcome>> QueueImpl::EndExpiredOrDeadLocked(
    ReceiveContext* ctx, uint64_t seq, int64_t sent_ms, uint32_t receive_count,
    int64_t first_receive_ms, absl::FunctionRef<void()> drop) {
  if (sent_ms <= ctx->retention_cutoff) {
    ctx->batch.SingleDelete(core_->db()->cf(Cf::kMessages), storage::MessageKey(id_, seq));
    ctx->delta.Add(storage::kExpiredTotal, 1);
    drop();
    return std::optional(EntryOutcome::kDropped);
  }
  if (ctx->dl.dlq && receive_count >= static_cast<uint32_t>(ctx->dl.max_receives)) {
    StatusOr<bool> moved = MoveToDeadLetter(&ctx->dl, seq, receive_count, first_receive_ms, sent_ms,
                                            ctx->now, &ctx->batch, &ctx->delta);
    if (!moved.ok()) return moved.status();
    if (!*moved) return std::optional(EntryOutcome::kBlocked);
    drop();
    return std::optional(EntryOutcome::kDropped);
  }
  return std::optional<EntryOutcome>();
}

StatusOr<QueueImpl::EntryOutcome> QueueImpl::TakeQueuedLocked(ReceiveContext* ctx, Cf cf,
                                                              const rocksdb::Slice& key,
                                                              uint64_t seq, const VisibleEntry& e,
                                                              const std::string& group) {
  storage::Database* db = core_->db();
  auto drop_index = [&] {
    if (!key.empty()) ctx->batch.SingleDelete(db->cf(cf), key);
    if (e.has_expiry_entry) {
      ctx->batch.Delete(db->cf(Cf::kExpiry), storage::TimeKey(id_, e.sent_ms, seq));
    }
    ctx->delta.Add(storage::kStored, -1);
  };
  StatusOr<std::optional<EntryOutcome>> ended =
      EndExpiredOrDeadLocked(ctx, seq, e.sent_ms, e.receive_count, e.first_receive_ms, drop_index);
  if (!ended.ok()) return ended.status();
  if (ended->has_value()) return **ended;
  LeaseEntry lease;
  lease.visible_at_ms = ctx->now + ctx->lease_ms;
  lease.receive_count = e.receive_count + 1;
  lease.first_receive_ms = e.receive_count == 0 ? ctx->now : e.first_receive_ms;
  lease.sent_ms = e.sent_ms;
  lease.lease_start_ms = ctx->now;
  lease.group = group;
  drop_index();
  ctx->batch.Put(db->cf(Cf::kInflight), storage::MessageKey(id_, seq), storage::EncodeLease(lease));
  ctx->delta.Add(storage::kLeases, 1);
  ctx->delta.Add(storage::kReceivedTotal, 1);
  ctx->taken->push_back({seq, lease});
  return EntryOutcome::kTaken;
}

Status QueueImpl::StartReceiveLocked(const ReceiveMessageRequest& request, int64_t now,
                                     bool long_poll, std::vector<Taken>* taken,
                                     ReceiveContext* ctx) {
  const int64_t in_flight = static_cast<int64_t>(leases_.size()) - leases_.CountExpired(now);
  const int64_t room = core_->options().max_inflight_per_queue - in_flight;
  if (room <= 0) {
    ctx->want = 0;
    // A long poll waits, and at its deadline ends with no messages; a FIFO
    // queue answers no messages instead of OverLimit (docs/sqs-reference.md
    // §7.5).
    if (long_poll || fifo_) return Status::OK();
    return Status(ErrorCode::kOverLimit,
                  "The maximum number of in flight messages (" +
                      std::to_string(core_->options().max_inflight_per_queue) +
                      ") is reached for queue " + name_ + ".");
  }
  ctx->now = now;
  ctx->want = static_cast<size_t>(std::min<int64_t>(request.max_number_of_messages, room));
  ctx->lease_ms = int64_t{request.visibility_timeout.value_or(config_.visibility_timeout)} * 1000;
  ctx->retention_cutoff = now - int64_t{config_.message_retention_period} * 1000;
  ctx->dl = PrepareDeadLetterLocked();
  ctx->taken = taken;
  return Status::OK();
}

StatusOr<QueueImpl::EntryOutcome> QueueImpl::TakeLeasedLocked(ReceiveContext* ctx, uint64_t seq) {
  storage::Database* db = core_->db();
  const LeaseEntry& old = *leases_.Find(seq);
  auto drop_lease = [&] {
    ctx->batch.Delete(db->cf(Cf::kInflight), storage::MessageKey(id_, seq));
    ctx->delta.Add(storage::kLeases, -1);
    ctx->leases_gone.push_back(seq);
  };
  StatusOr<std::optional<EntryOutcome>> ended = EndExpiredOrDeadLocked(
      ctx, seq, old.sent_ms, old.receive_count, old.first_receive_ms, drop_lease);
  if (!ended.ok()) return ended.status();
  if (ended->has_value()) return **ended;
  LeaseEntry lease = old;
  lease.visible_at_ms = ctx->now + ctx->lease_ms;
  lease.receive_count += 1;
  lease.lease_start_ms = ctx->now;
  ctx->batch.Put(db->cf(Cf::kInflight), storage::MessageKey(id_, seq), storage::EncodeLease(lease));
  ctx->delta.Add(storage::kReceivedTotal, 1);
  ctx->taken->push_back({seq, lease});
  return EntryOutcome::kTaken;
}

void QueueImpl::ForgetLeaseLocked(uint64_t seq) {
  const LeaseEntry* lease = leases_.Find(seq);
  if (lease == nullptr) return;
  if (fifo_) groups_.RemoveLeased(lease->group, seq);
  leases_.Erase(seq);
}

}  // namespace lqs::engine
