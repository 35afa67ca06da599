// lib/engine/queue_ops.cc — operators' views of a queue: its counts
// (Counts, for attributes and verify; GetStats), and a non-leasing scan of
// its messages (ScanMessages, for peek and export). Members of QueueImpl
// (queue_impl.h); they change nothing but a retention sweep's expiries.
//
// Counts and OldestSentLocked read under mu_ (the delayed buckets under
// pending_mu_); ScanMessages copies the leases and cursors under mu_ and
// reads a RocksDB snapshot taken with them, holding no lock.

#include <algorithm>
#include <limits>

#include <rocksdb/iterator.h>
#include <rocksdb/snapshot.h>

#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

#include "lqs/attributes.h"

namespace lqs::engine {

namespace {

// The first entry of `cf` in [lo, hi), or false.
bool FirstKey(storage::Database* db, Cf cf, std::string lo, std::string hi, std::string* key,
              std::string* value) {
  storage::RangeIterator it(db, cf, std::move(lo), std::move(hi));
  if (!it.Valid()) return false;
  key->assign(it.key());
  value->assign(it.value());
  return true;
}

}  // namespace

QueueCounts QueueImpl::Counts() {
  notify::MutexLock lock(&mu_);
  QueueCounts c;
  const int64_t now = core_->NowMillis();
  const int64_t expired_leases = leases_.CountExpired(now);
  c.delayed = DelayedCountLocked(now);
  c.visible = std::max<int64_t>(0, counters_[storage::kStored].load() - c.delayed) + expired_leases;
  c.not_visible = static_cast<int64_t>(leases_.size()) - expired_leases;
  for (int i = 0; i < storage::kNumSlots; ++i) c.slots[i] = counters_[i].load();
  return c;
}

int64_t QueueImpl::DelayedCountLocked(int64_t now) {
  if (fifo_) {
    // FIFO delays are the queue's, counted from each message's send time.
    const int64_t delay_ms = int64_t{config_.delay_seconds} * 1000;
    if (delay_ms == 0) return 0;
    int64_t n = 0;
    for (storage::RangeIterator it(core_->db(), Cf::kExpiry,
                                   storage::TimeKey(id_, now - delay_ms + 1, 0),
                                   storage::TimeKey(id_, now + 1, 0));
         it.Valid(); it.Next()) {
      if (!it.value().empty() && it.value()[0] == 'G') ++n;
    }
    return n;
  }
  const int64_t now_bucket = BucketOf(now);
  int64_t total = 0;
  {
    notify::MutexLock lock(&pending_mu_);
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      if (it->first < now_bucket || it->second <= 0) {
        it = buckets_.erase(it);
        continue;
      }
      if (it->first > now_bucket) total += it->second;
      ++it;
    }
  }
  // The current second's bucket is partly visible already: count exactly.
  for (storage::RangeIterator it(core_->db(), Cf::kVisible, storage::TimeKey(id_, now + 1, 0),
                                 storage::TimeKey(id_, now_bucket * 1000 + 1, 0));
       it.Valid(); it.Next()) {
    ++total;
  }
  return total;
}

int64_t QueueImpl::OldestSentLocked() {
  int64_t oldest = std::numeric_limits<int64_t>::max();
  std::vector<uint64_t> first = leases_.SentBefore(std::numeric_limits<int64_t>::max(), 1);
  if (!first.empty()) oldest = leases_.Find(first[0])->sent_ms;
  storage::Database* db = core_->db();
  std::string key, value;
  // Entries whose sent time differs from their index position (delays,
  // dead letters, every FIFO entry) are in the expiry index, oldest first.
  if (FirstKey(db, Cf::kExpiry, storage::TimeKey(id_, expiry_cursor_ms_, 0), storage::QueueEnd(id_),
               &key, &value)) {
    storage::DecodedTimeKey k;
    if (storage::DecodeTimeKey(key, &k)) oldest = std::min(oldest, k.time_ms);
  }
  // Messages queued by seq are in send order. The scan may stop early: the
  // records it passes (delayed, grouped, dead-lettered, leased) are older
  // than any queued by seq after them and are counted above or below.
  if (!fifo_) {
    SeqLane lane(db, id_, seq_cursor_, name_, /*limit=*/1024);
    lane.Start([this](uint64_t seq) {
      mu_.AssertHeld();  // called by the lane synchronously, under mu_
      return TakenAheadLocked(seq);
    });
    if (lane.Valid()) oldest = std::min(oldest, lane.message().sent_timestamp_ms);
  }
  // The rest of a standard queue's visible index is in send order.
  if (!fifo_ && FirstKey(db, Cf::kVisible, storage::TimeKey(id_, cursor_ms_, cursor_seq_),
                         storage::QueueEnd(id_), &key, &value)) {
    storage::VisibleEntry e;
    if (storage::DecodeVisible(value, &e)) oldest = std::min(oldest, e.sent_ms);
  }
  return oldest == std::numeric_limits<int64_t>::max() ? -1 : oldest;
}

StatusOr<QueueStats> QueueImpl::GetStats() {
  Status live = CheckLive();
  if (!live.ok()) return live;
  StatusOr<int64_t> expired = ExpireNow(4096, /*reclaim=*/false);
  if (!expired.ok()) return expired.status();
  QueueCounts c = Counts();
  QueueStats s;
  s.visible = c.visible;
  s.in_flight = c.not_visible;
  s.delayed = c.delayed;
  s.sent_total = c.slots[storage::kSentTotal];
  s.received_total = c.slots[storage::kReceivedTotal];
  s.deleted_total = c.slots[storage::kDeletedTotal];
  s.moved_to_dlq_total = c.slots[storage::kMovedToDlqTotal];
  s.expired_total = c.slots[storage::kExpiredTotal];
  s.purged_total = c.slots[storage::kPurgedTotal];
  s.redriven_total = c.slots[storage::kMovedByTaskTotal];
  notify::MutexLock lock(&mu_);
  const int64_t oldest = OldestSentLocked();
  if (oldest >= 0)
    s.oldest_message_age_seconds = std::max<int64_t>(0, (core_->NowMillis() - oldest) / 1000);
  return s;
}

Status QueueImpl::ScanMessages(const std::function<bool(const StoredMessage&)>& fn) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  storage::Database* db = core_->db();
  std::vector<std::pair<uint64_t, storage::LeaseEntry>> leased;
  const rocksdb::Snapshot* snapshot = nullptr;
  int64_t now = 0, delay_ms = 0, cursor_ms = 0;
  uint64_t cursor_seq = 0, seq_cursor = 0;
  {
    notify::MutexLock lock(&mu_);
    now = core_->NowMillis();
    leases_.ForEach(
        [&](uint64_t seq, const storage::LeaseEntry& l) { leased.emplace_back(seq, l); });
    delay_ms = int64_t{config_.delay_seconds} * 1000;
    cursor_ms = cursor_ms_;
    cursor_seq = cursor_seq_;
    seq_cursor = seq_cursor_;
    snapshot = db->db()->GetSnapshot();
  }
  struct Release {
    rocksdb::DB* db;
    const rocksdb::Snapshot* s;
    ~Release() { db->ReleaseSnapshot(s); }
  } release{db->db(), snapshot};
  std::sort(leased.begin(), leased.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  rocksdb::ReadOptions read;
  read.snapshot = snapshot;

  // Emits one decoded message; *stop when fn asks to stop.
  auto emit_message = [&](storage::Message&& m, const std::string& state, int64_t visible_at,
                          uint32_t receive_count, bool* stop) {
    StoredMessage out;
    out.message_id = m.message_id;
    out.body = std::move(m.body);
    out.message_attributes = std::move(m.attributes);
    out.attributes[std::string(attr::kSentTimestamp)] = std::to_string(m.sent_timestamp_ms);
    out.attributes[std::string(attr::kApproximateReceiveCount)] = std::to_string(receive_count);
    if (!m.message_group_id.empty())
      out.attributes[std::string(attr::kMessageGroupId)] = m.message_group_id;
    if (fifo_) {
      out.attributes[std::string(attr::kMessageDeduplicationId)] = m.message_deduplication_id;
      out.attributes[std::string(attr::kSequenceNumber)] = m.sequence_number;
    }
    if (!m.aws_trace_header.empty())
      out.attributes[std::string(attr::kAWSTraceHeader)] = m.aws_trace_header;
    if (!m.dead_letter_source_arn.empty()) {
      out.attributes[std::string(attr::kDeadLetterQueueSourceArn)] = m.dead_letter_source_arn;
    }
    out.state = state;
    out.visible_at_ms = visible_at;
    *stop = !fn(out);
  };
  // Emits message `seq`, read from `messages` (gone by now: nothing).
  auto emit = [&](uint64_t seq, const std::string& state, int64_t visible_at,
                  uint32_t receive_count, bool* stop) -> Status {
    std::string raw;
    rocksdb::Status s =
        db->db()->Get(read, db->cf(Cf::kMessages), storage::MessageKey(id_, seq), &raw);
    if (s.IsNotFound()) return Status::OK();
    if (!s.ok()) return storage::FromRocks(s, "scanning messages");
    storage::Message m;
    Status st = storage::DecodeMessage(raw, name_ + "/" + std::to_string(seq), &m);
    if (!st.ok()) return st;
    emit_message(std::move(m), state, visible_at, receive_count, stop);
    return Status::OK();
  };

  bool stop = false;
  for (const auto& [seq, lease] : leased) {
    Status st = emit(seq, lease.visible_at_ms <= now ? "visible" : "in_flight", lease.visible_at_ms,
                     lease.receive_count, &stop);
    if (!st.ok() || stop) return st;
  }
  // Queued messages: a standard queue's visible index (from its cursor)
  // merged by time with its messages queued by seq, then the groups' lanes
  // (FIFO queues and fair queues).
  auto is_leased = [&](uint64_t seq) {
    auto at = std::lower_bound(leased.begin(), leased.end(), seq,
                               [](const auto& a, uint64_t s) { return a.first < s; });
    return at != leased.end() && at->first == seq;
  };
  std::optional<SeqLane> lane;
  if (!fifo_) {
    lane.emplace(db, id_, seq_cursor, name_, /*limit=*/0, snapshot);
    lane->Start(is_leased);
  }
  // Emits the messages queued by seq that were sent before `before`.
  auto emit_by_seq = [&](int64_t before) -> Status {
    for (; lane && lane->Valid() && lane->message().sent_timestamp_ms < before;
         lane->Next(is_leased)) {
      const int64_t sent_ms = lane->message().sent_timestamp_ms;
      emit_message(std::move(lane->mutable_message()), "visible", sent_ms, 0, &stop);
      if (stop) return Status::OK();
    }
    return lane ? lane->status() : Status::OK();
  };
  for (const bool grouped : {false, true}) {
    if (fifo_ && !grouped) continue;
    storage::RangeIterator it(
        db, grouped ? Cf::kGrouped : Cf::kVisible,
        grouped ? storage::QueuePrefix(id_) : storage::TimeKey(id_, cursor_ms, cursor_seq),
        storage::QueueEnd(id_), snapshot);
    for (; it.Valid(); it.Next()) {
      uint64_t seq = 0;
      int64_t visible_at = 0;
      storage::VisibleEntry e;
      if (!storage::DecodeVisible(it.value(), &e)) {
        return Status(ErrorCode::kCorruption, "index entry of queue " + name_ + " is corrupt");
      }
      if (grouped) {
        uint64_t qid = 0;
        std::string group;
        if (!storage::DecodeGroupedKey(it.key(), &qid, &group, &seq)) {
          return Status(ErrorCode::kCorruption, "grouped entry of queue " + name_ + " is corrupt");
        }
        visible_at = e.sent_ms + (fifo_ ? delay_ms : 0);
      } else {
        storage::DecodedTimeKey k;
        if (!storage::DecodeTimeKey(it.key(), &k)) {
          return Status(ErrorCode::kCorruption, "visible entry of queue " + name_ + " is corrupt");
        }
        seq = k.seq;
        visible_at = k.time_ms;
        Status st = emit_by_seq(visible_at);
        if (!st.ok() || stop) return st;
      }
      Status st =
          emit(seq, visible_at > now ? "delayed" : "visible", visible_at, e.receive_count, &stop);
      if (!st.ok() || stop) return st;
    }
    if (!it.ok()) return it.status("scanning messages");
    if (!grouped) {
      Status st = emit_by_seq(std::numeric_limits<int64_t>::max());
      if (!st.ok() || stop) return st;
    }
  }
  return Status::OK();
}

}  // namespace lqs::engine
