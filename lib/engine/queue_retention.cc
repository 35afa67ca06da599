// lib/engine/queue_retention.cc — removing messages without delivering
// them: retention expiry (ExpireLocked from receives, ExpireNow from
// maintenance and attribute reads), PurgeQueue and DeleteQueue's Destroy.
// Members of QueueImpl (queue_impl.h).
//
// Expiry holds mu_ and writes one batch per sweep; it never scans the
// backlog (architecture.md, "Retention without scanning the backlog").
// Purge and Destroy hold gate_ exclusively and mu_, so no send, delete or
// receive is half-way through while they remove the queue's key ranges.

#include <algorithm>
#include <limits>

#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

namespace lqs::engine {

StatusOr<int64_t> QueueImpl::ExpireLocked(int64_t now, size_t budget) {
  const int64_t cutoff = now - int64_t{config_.message_retention_period} * 1000;
  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch;
  CounterDelta delta;
  size_t n = 0;

  // 1. Leased messages past retention.
  std::vector<uint64_t> expired_leases = leases_.SentBefore(cutoff + 1, budget);
  for (uint64_t seq : expired_leases) {
    batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
    batch.Delete(db->cf(Cf::kInflight), storage::MessageKey(id_, seq));
    delta.Add(storage::kLeases, -1);
    delta.Add(storage::kExpiredTotal, 1);
    ++n;
  }

  // 2. The head of the visible index: entries that became visible before
  //    the cutoff were sent before it.
  std::vector<uint64_t> head_seqs;
  int64_t new_cursor_ms = cursor_ms_;
  uint64_t new_cursor_seq = cursor_seq_;
  {
    std::string lo = storage::TimeKey(id_, cursor_ms_, cursor_seq_);
    std::string hi = storage::TimeKey(id_, cutoff + 1, 0);
    if (!fifo_ && lo < hi) {  // FIFO entries are all in the expiry index
      storage::RangeIterator it(db, Cf::kVisible, lo, hi);
      for (; it.Valid() && n < budget; it.Next()) {
        storage::DecodedTimeKey k;
        VisibleEntry e;
        if (!storage::DecodeTimeKey(it.key(), &k) || !storage::DecodeVisible(it.value(), &e)) {
          return Status(ErrorCode::kCorruption, "visible entry of queue " + name_ + " is corrupt");
        }
        batch.Delete(db->cf(Cf::kVisible), it.key_slice());
        batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, k.seq));
        if (e.has_expiry_entry) {
          batch.Delete(db->cf(Cf::kExpiry), storage::TimeKey(id_, e.sent_ms, k.seq));
        }
        delta.Add(storage::kStored, -1);
        delta.Add(storage::kExpiredTotal, 1);
        head_seqs.push_back(k.seq);
        new_cursor_ms = k.time_ms;
        new_cursor_seq = k.seq + 1;
        ++n;
      }
      if (Status st = it.status("expiring messages"); !st.ok()) return st;
    }
  }

  // 2b. The head of the messages queued by seq, which are in send order.
  //     Not past an unwritten send (its send time is later than any
  //     written one's below it, but not necessarily the cutoff's).
  uint64_t new_seq_cursor = seq_cursor_;
  if (!fifo_ && n < budget) {
    uint64_t seq_floor = std::numeric_limits<uint64_t>::max();
    std::optional<SeqLane> lane;
    {
      notify::MutexLock lock(&pending_mu_);
      if (!pending_by_seq_.empty()) seq_floor = *pending_by_seq_.begin();
      lane.emplace(db, id_, seq_cursor_, name_, budget);
    }
    // Called by the lane synchronously, under mu_.
    auto taken_ahead = [this](uint64_t seq) {
      mu_.AssertHeld();
      return TakenAheadLocked(seq);
    };
    for (lane->Start(taken_ahead); lane->Valid() && n < budget && lane->seq() < seq_floor &&
                                   lane->message().sent_timestamp_ms <= cutoff;
         lane->Next(taken_ahead)) {
      batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, lane->seq()));
      delta.Add(storage::kStored, -1);
      delta.Add(storage::kExpiredTotal, 1);
      ++n;
    }
    if (!lane->status().ok()) return lane->status();
    new_seq_cursor = std::min(lane->resume_seq(), seq_floor);
  }

  // 3. The expiry index: delayed and dead-lettered messages whose sent time
  //    is earlier than their place in the visible index.
  int64_t new_expiry_cursor = expiry_cursor_ms_;
  std::vector<int64_t> bucket_drops;
  {
    std::string lo = storage::TimeKey(id_, expiry_cursor_ms_, 0);
    std::string hi = storage::TimeKey(id_, cutoff + 1, 0);
    if (lo < hi) {
      storage::RangeIterator it(db, Cf::kExpiry, lo, hi);
      for (; it.Valid() && n < budget; it.Next()) {
        storage::DecodedTimeKey k;
        storage::ExpiryTarget target;
        if (!storage::DecodeTimeKey(it.key(), &k) ||
            !storage::DecodeExpiryValue(it.value(), &target)) {
          return Status(ErrorCode::kCorruption, "expiry entry of queue " + name_ + " is corrupt");
        }
        new_expiry_cursor = k.time_ms;
        if (std::find(head_seqs.begin(), head_seqs.end(), k.seq) != head_seqs.end()) continue;
        const int64_t visible_at = target.visible_at_ms;
        batch.Delete(db->cf(Cf::kExpiry), it.key_slice());
        if (target.grouped) {
          batch.Delete(db->cf(Cf::kGrouped), storage::GroupedKey(id_, target.group, k.seq));
        } else {
          batch.Delete(db->cf(Cf::kVisible), storage::TimeKey(id_, visible_at, k.seq));
        }
        batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, k.seq));
        delta.Add(storage::kStored, -1);
        delta.Add(storage::kExpiredTotal, 1);
        if (!target.grouped && visible_at > now) {
          const int64_t b = BucketOf(visible_at);
          CounterDelta minus;
          minus.Add(storage::kStored, -1);
          batch.Merge(db->cf(Cf::kCounters), storage::BucketKey(id_, b), minus.Encode());
          bucket_drops.push_back(b);
        }
        ++n;
      }
      if (Status st = it.status("expiring messages"); !st.ok()) return st;
    }
  }
  if (n == 0) {
    // Nothing expired; the records the seq lane passed need not be read again.
    AdvanceSeqCursorLocked(new_seq_cursor);
    return int64_t{0};
  }
  delta.Max(storage::kCursorMs, new_cursor_ms);
  delta.Max(storage::kExpiryCursorMs, new_expiry_cursor);
  if (new_seq_cursor > seq_cursor_) {
    delta.Max(storage::kSeqCursor, static_cast<int64_t>(new_seq_cursor));
  }
  batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), delta.Encode());
  Status st = db->Write(&batch, /*must_sync=*/false);
  if (!st.ok()) return st;
  for (uint64_t seq : expired_leases) ForgetLeaseLocked(seq);
  AdvanceCursorLocked(new_cursor_ms, new_cursor_seq);
  AdvanceSeqCursorLocked(new_seq_cursor);
  expiry_cursor_ms_ = std::max(expiry_cursor_ms_, new_expiry_cursor);
  if (!bucket_drops.empty()) {
    notify::MutexLock lock(&pending_mu_);
    for (int64_t b : bucket_drops) buckets_[b] -= 1;
  }
  ApplyDelta(delta);
  return static_cast<int64_t>(n);
}

Status QueueImpl::PurgeQueue() {
  Status live = CheckLive();
  if (!live.ok()) return live;
  notify::WriterMutexLock gate(&gate_);
  notify::MutexLock lock(&mu_);
  live = CheckLive();
  if (!live.ok()) return live;
  const int64_t now = core_->NowMillis();
  if (core_->options().enforce_purge_interval && record_.last_purge_ms > 0 &&
      now - record_.last_purge_ms < 60000) {
    return Status(ErrorCode::kPurgeQueueInProgress,
                  "Only one PurgeQueue operation on " + name_ + " is allowed every 60 seconds.");
  }
  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch;
  const std::string lo = storage::QueuePrefix(id_), hi = storage::QueueEnd(id_);
  // The idempotency inbox (Cf::kInbox) is kept: it records work done, not
  // messages.
  for (Cf cf :
       {Cf::kMessages, Cf::kVisible, Cf::kInflight, Cf::kExpiry, Cf::kGrouped, Cf::kDedup}) {
    batch.DeleteRange(db->cf(cf), lo, hi);
  }
  batch.DeleteRange(db->cf(Cf::kCounters), storage::BucketPrefix(id_), storage::BucketEnd(id_));
  // Under the exclusive gate and mu_ the in-memory counters are exact, so
  // the record is rewritten whole (a Put, ordered after every earlier merge).
  CounterDelta counters;
  const int64_t purged = counters_[storage::kStored].load() + counters_[storage::kLeases].load();
  for (int i = 0; i < storage::kFirstMaxSlot; ++i) {
    counters.Add(static_cast<storage::Slot>(i), counters_[i].load());
  }
  counters.Add(storage::kStored, -counters_[storage::kStored].load());
  counters.Add(storage::kLeases, -counters_[storage::kLeases].load());
  counters.Add(storage::kPurgedTotal, purged);
  counters.Max(storage::kCursorMs, now);
  counters.Max(storage::kExpiryCursorMs, now);
  // Every message queued by seq so far is gone: later sends take later seqs.
  StatusOr<uint64_t> next_seq = core_->AllocateSeqs(1);
  if (!next_seq.ok()) return next_seq.status();
  counters.Max(storage::kSeqCursor, static_cast<int64_t>(std::max(*next_seq, seq_cursor_)));
  batch.Put(db->cf(Cf::kCounters), storage::CounterKey(id_), counters.Encode());
  storage::QueueRecord rec = record_;
  rec.last_purge_ms = now;
  batch.Put(db->cf(Cf::kCatalog), storage::QueueRecordKey(name_), storage::EncodeQueueRecord(rec));
  Status st = db->Write(&batch, /*must_sync=*/true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  leases_.Clear();
  groups_.Clear();
  attempts_.clear();
  {
    notify::MutexLock plock(&pending_mu_);
    buckets_.clear();
    dedup_.Clear();  // PurgeQueue also forgets the deduplication history
    fifo_new_.clear();
  }
  for (int i = 0; i < storage::kNumSlots; ++i) {
    counters_[i].store(counters.Get(static_cast<storage::Slot>(i)));
  }
  cursor_ms_ = std::max(cursor_ms_, now);
  cursor_seq_ = 0;
  expiry_cursor_ms_ = std::max(expiry_cursor_ms_, now);
  ahead_.clear();
  seq_cursor_ = static_cast<uint64_t>(counters.Get(storage::kSeqCursor));
  seq_slot_written_.store(counters.Has(storage::kSeqCursor));
  return Status::OK();
}

Status QueueImpl::Destroy(rocksdb::WriteBatch* catalog_changes) {
  notify::WriterMutexLock gate(&gate_);
  notify::MutexLock lock(&mu_);
  Status live = CheckLive();
  if (!live.ok()) return live;
  storage::Database* db = core_->db();
  const std::string lo = storage::QueuePrefix(id_), hi = storage::QueueEnd(id_);
  for (Cf cf : {Cf::kMessages, Cf::kVisible, Cf::kInflight, Cf::kExpiry, Cf::kGrouped, Cf::kDedup,
                Cf::kInbox}) {
    catalog_changes->DeleteRange(db->cf(cf), lo, hi);
  }
  catalog_changes->DeleteRange(db->cf(Cf::kCounters), storage::BucketPrefix(id_),
                               storage::BucketEnd(id_));
  catalog_changes->Delete(db->cf(Cf::kCounters), storage::CounterKey(id_));
  Status st = db->Write(catalog_changes, /*must_sync=*/true);
  if (!st.ok()) return st;
  deleted_.store(true, std::memory_order_release);
  leases_.Clear();
  groups_.Clear();
  NotifyLocked();
  return Status::OK();
}

StatusOr<int64_t> QueueImpl::ExpireNow(size_t budget, bool reclaim) {
  notify::MutexLock lock(&mu_);
  Status live = CheckLive();
  if (!live.ok()) return live;
  const int64_t now = core_->NowMillis();
  StatusOr<int64_t> n = ExpireLocked(now, budget);
  if (!n.ok()) return n;
  last_expire_ms_ = now;
  if (!reclaim) return n;
  // Maintenance also sweeps expired inbox records.
  StatusOr<int64_t> inbox = ExpireInboxLocked(now, budget);
  if (!inbox.ok()) return inbox.status();
  // Drop persisted delay buckets that are in the past.
  rocksdb::WriteBatch batch;
  batch.DeleteRange(core_->db()->cf(Cf::kCounters), storage::BucketPrefix(id_),
                    storage::BucketKey(id_, BucketOf(now) - 1));
  Status st = core_->db()->Write(&batch, false);
  if (!st.ok()) return st;
  return n;
}

}  // namespace lqs::engine
