// lib/engine/queue_impl.cc — QueueImpl's construction, loading at open,
// liveness and its in-memory counters. The other members are defined by
// concern in the files queue_impl.h lists.

#include "lib/engine/queue_impl.h"

#include "lib/engine/queue_common.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

namespace lqs::engine {

QueueImpl::QueueImpl(std::shared_ptr<Core> core, storage::QueueRecord record,
                     api::QueueConfig config)
    : core_(std::move(core)),
      id_(record.id),
      name_(record.name),
      arn_(core_->ArnFor(record.name)),
      fifo_(record.fifo),
      config_(config),
      record_(std::move(record)),
      send_config_(std::make_shared<const api::QueueConfig>(std::move(config))) {}

Status QueueImpl::Load() {
  // Nothing else sees the queue yet; the locks satisfy the analysis.
  notify::MutexLock lock(&mu_);
  storage::Database* db = core_->db();
  std::string value;
  bool found = false;
  Status st = db->Get(Cf::kCounters, storage::CounterKey(id_), &value, &found);
  if (!st.ok()) return st;
  CounterDelta counters;
  if (found && !CounterDelta::Decode(value, &counters)) {
    return Status(ErrorCode::kCorruption, "counters of queue " + name_ + " are corrupt");
  }
  for (int i = 0; i < storage::kNumSlots; ++i) {
    counters_[i].store(counters.Get(static_cast<storage::Slot>(i)));
  }
  cursor_ms_ = counters.Get(storage::kCursorMs);
  expiry_cursor_ms_ = counters.Get(storage::kExpiryCursorMs);
  seq_cursor_ = static_cast<uint64_t>(counters.Get(storage::kSeqCursor));
  seq_slot_written_.store(counters.Has(storage::kSeqCursor));

  // Leases: O(in flight).
  storage::RangeIterator it(db, Cf::kInflight, storage::QueuePrefix(id_), storage::QueueEnd(id_));
  for (; it.Valid(); it.Next()) {
    uint64_t qid = 0, seq = 0;
    LeaseEntry lease;
    if (!storage::DecodeMessageKey(it.key(), &qid, &seq) ||
        !storage::DecodeLease(it.value(), &lease)) {
      return Status(ErrorCode::kCorruption, "a lease of queue " + name_ + " is corrupt");
    }
    leases_.Put(seq, lease);
    if (seq >= seq_cursor_) ahead_.insert(seq);
  }
  if (Status lst = it.status("loading leases"); !lst.ok()) return lst;
  Status gst = fifo_ ? LoadFifo() : LoadGroups();
  if (!gst.ok()) return gst;

  // Delayed buckets still in the future.
  const int64_t now_bucket = BucketOf(core_->NowMillis());
  notify::MutexLock plock(&pending_mu_);
  storage::RangeIterator bit(db, Cf::kCounters, storage::BucketPrefix(id_),
                             storage::BucketEnd(id_));
  for (; bit.Valid(); bit.Next()) {
    uint64_t qid = 0;
    int64_t second = 0;
    CounterDelta d;
    if (!storage::DecodeBucketKey(bit.key(), &qid, &second) ||
        !CounterDelta::Decode(bit.value(), &d)) {
      return Status(ErrorCode::kCorruption, "a delay bucket of queue " + name_ + " is corrupt");
    }
    if (second >= now_bucket && d.Get(storage::kStored) > 0) {
      buckets_[second] = d.Get(storage::kStored);
    }
  }
  return bit.status("loading delay buckets");
}

Status QueueImpl::CheckLive() const {
  if (core_->closed()) return ClosedError();
  if (deleted_.load(std::memory_order_acquire)) return QueueGone();
  return Status::OK();
}

api::QueueConfig QueueImpl::config() const {
  notify::MutexLock lock(&mu_);
  return config_;
}

storage::QueueRecord QueueImpl::record() const {
  notify::MutexLock lock(&mu_);
  return record_;
}

void QueueImpl::ApplyDelta(const CounterDelta& delta) {
  for (int i = 0; i < storage::kNumSlots; ++i) {
    auto slot = static_cast<storage::Slot>(i);
    if (!delta.Has(slot)) continue;
    if (i >= storage::kFirstMaxSlot) {
      int64_t cur = counters_[i].load();
      while (delta.Get(slot) > cur && !counters_[i].compare_exchange_weak(cur, delta.Get(slot))) {
      }
    } else {
      counters_[i].fetch_add(delta.Get(slot));
    }
  }
}

}  // namespace lqs::engine
