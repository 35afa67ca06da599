#include "lib/engine/queue_impl.h"

#include <rocksdb/iterator.h>
#include <rocksdb/snapshot.h>

#include <algorithm>
#include <limits>

#include "lib/api/message_rules.h"
#include "lib/engine/handle_errors.h"
#include "lib/engine/ids.h"
#include "lib/fifo/dedup_table.h"
#include "lib/storage/keys.h"
#include "lib/storage/message_reader.h"
#include "lib/storage/range_iterator.h"
#include "lqs/attributes.h"

namespace lqs::engine {

using storage::Cf;
using storage::CounterDelta;
using storage::LeaseEntry;
using storage::VisibleEntry;

namespace {

constexpr int64_t kMaxLeaseMs = 43200LL * 1000;  // 12 h per receive
constexpr size_t kExpireBudgetPerReceive = 256;
constexpr size_t kScanLimitPerReceive = 1024;

Status QueueGone() {
  return Status(ErrorCode::kQueueDoesNotExist, "The specified queue does not exist.");
}

int64_t BucketOf(int64_t visible_at_ms) { return (visible_at_ms + 999) / 1000; }

// The typed Status behind a batch entry's error (single calls are batches
// of one).
Status FromEntryError(const BatchResultError& e) {
  for (ErrorCode code : {ErrorCode::kInvalidParameterValue, ErrorCode::kReceiptHandleIsInvalid,
                         ErrorCode::kIOError, ErrorCode::kQueueDoesNotExist}) {
    if (ErrorInfoFor(code).query_code == e.code) return Status(code, e.message);
  }
  return Status(ErrorCode::kInternal, e.message);
}

BatchResultError EntryError(const std::string& id, const Status& st) {
  BatchResultError e;
  e.id = id;
  const ErrorInfo& info = ErrorInfoFor(st.code());
  e.sender_fault = info.sender_fault;
  e.code = std::string(info.query_code);
  e.message = st.message();
  return e;
}

}  // namespace

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
    if (!storage::DecodeMessageKey(it.key(), &qid, &seq) || !storage::DecodeLease(it.value(), &lease)) {
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
  storage::RangeIterator bit(db, Cf::kCounters, storage::BucketPrefix(id_), storage::BucketEnd(id_));
  for (; bit.Valid(); bit.Next()) {
    uint64_t qid = 0;
    int64_t second = 0;
    CounterDelta d;
    if (!storage::DecodeBucketKey(bit.key(), &qid, &second) || !CounterDelta::Decode(bit.value(), &d)) {
      return Status(ErrorCode::kCorruption, "a delay bucket of queue " + name_ + " is corrupt");
    }
    if (second >= now_bucket && d.Get(storage::kStored) > 0) {
      buckets_[second] = d.Get(storage::kStored);
    }
  }
  return bit.status("loading delay buckets");
}

Status QueueImpl::CheckLive() const {
  if (core_->closed()) return Status(ErrorCode::kClosed, "the database is closed");
  if (deleted_.load(std::memory_order_acquire)) return QueueGone();
  return Status::OK();
}

api::QueueConfig QueueImpl::config() const {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

storage::QueueRecord QueueImpl::record() const {
  std::lock_guard<std::mutex> lock(mu_);
  return record_;
}

bool QueueImpl::HasDeadLetterTarget(const std::string& arn) const {
  std::lock_guard<std::mutex> lock(send_config_mu_);
  return send_config_->redrive_policy &&
         send_config_->redrive_policy->dead_letter_target_arn == arn;
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

// ---- Send path ----------------------------------------------------------------

int64_t QueueImpl::RegisterPending(int64_t visible_at, uint64_t seq) {
  pending_.emplace(visible_at, seq);
  return visible_at;
}

void QueueImpl::FinishPending(int64_t visible_at, uint64_t seq, int64_t bucket_second) {
  std::lock_guard<std::mutex> lock(pending_mu_);
  auto it = pending_.find({visible_at, seq});
  if (it != pending_.end()) pending_.erase(it);
  if (bucket_second > 0) buckets_[bucket_second] += 1;
}

void QueueImpl::FinishPendingGrouped(const std::string& group, uint64_t seq, bool written) {
  std::lock_guard<std::mutex> lock(pending_mu_);
  auto it = fifo_pending_.find(group);
  if (it != fifo_pending_.end()) {
    it->second.erase(it->second.find(seq));
    if (it->second.empty()) fifo_pending_.erase(it);
  }
  if (written) {
    fifo_new_.emplace_back(group, seq);
    uses_groups_.store(true);
  }
}

void QueueImpl::AcceptInserted(const CounterDelta& delta) { ApplyDelta(delta); }

Status QueueImpl::StoreMessages(const std::vector<const SendMessageRequest*>& requests,
                                std::vector<SendMessageResult>* results) {
  std::shared_ptr<const api::QueueConfig> config = SendConfig();
  std::shared_lock<std::shared_mutex> gate(gate_);
  Status live = CheckLive();
  if (!live.ok()) return live;

  const size_t n = requests.size();
  std::vector<int64_t> visible_at(n);
  // Fair queues: a message with a MessageGroupId (and no delay) is queued in
  // its group's lane, so that one tenant's backlog cannot starve the others.
  std::vector<bool> grouped(n, false);
  int64_t now = 0;
  uint64_t first_seq = 0;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    now = core_->NowMillis();
    StatusOr<uint64_t> seq = core_->AllocateSeqs(n);
    if (!seq.ok()) return seq.status();
    first_seq = *seq;
    for (size_t i = 0; i < n; ++i) {
      int delay = requests[i]->delay_seconds.value_or(config->delay_seconds);
      visible_at[i] = now + int64_t{delay} * 1000;
      grouped[i] = delay == 0 && requests[i]->message_group_id.has_value();
      if (grouped[i]) {
        fifo_pending_[*requests[i]->message_group_id].insert(first_seq + i);
      } else if (delay == 0) {
        pending_by_seq_.insert(first_seq + i);
      } else {
        RegisterPending(visible_at[i], first_seq + i);
      }
    }
  }

  rocksdb::WriteBatch batch;
  CounterDelta delta;
  results->clear();
  results->reserve(n);
  std::vector<int64_t> bucket(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const SendMessageRequest& r = *requests[i];
    const uint64_t seq = first_seq + i;
    storage::Message m;
    m.message_id = NewMessageId();
    m.body = r.body;
    m.md5_of_body = api::Md5Hex(r.body);
    m.attributes = r.message_attributes;
    if (!r.message_attributes.empty()) {
      m.md5_of_attributes = api::Md5OfMessageAttributes(r.message_attributes);
    }
    auto trace = r.message_system_attributes.find(std::string(attr::kAWSTraceHeader));
    if (trace != r.message_system_attributes.end()) {
      m.aws_trace_header = trace->second.string_value;
    }
    m.message_group_id = r.message_group_id.value_or("");
    m.sent_timestamp_ms = now;
    m.sender_id = core_->options().sender_id;

    const bool delayed = visible_at[i] > now;
    // Without delay or group, the message is queued by its seq alone
    // (seq_lane.h): its record is its only entry.
    m.queued_by_seq = !delayed && !grouped[i];
    batch.Put(core_->db()->cf(Cf::kMessages), storage::MessageKey(id_, seq),
              storage::EncodeMessage(m));
    VisibleEntry entry;
    entry.sent_ms = now;
    entry.has_expiry_entry = delayed || grouped[i];
    if (m.queued_by_seq) {
      // no index entry
    } else if (grouped[i]) {
      batch.Put(core_->db()->cf(Cf::kGrouped), storage::GroupedKey(id_, m.message_group_id, seq),
                storage::EncodeVisible(entry));
      batch.Put(core_->db()->cf(Cf::kExpiry), storage::TimeKey(id_, now, seq),
                storage::ExpiryValueGrouped(m.message_group_id));
    } else {
      batch.Put(core_->db()->cf(Cf::kVisible), storage::TimeKey(id_, visible_at[i], seq),
                storage::EncodeVisible(entry));
    }
    if (delayed) {
      batch.Put(core_->db()->cf(Cf::kExpiry), storage::TimeKey(id_, now, seq),
                storage::ExpiryValueVisible(visible_at[i]));
      bucket[i] = BucketOf(visible_at[i]);
      CounterDelta one;
      one.Add(storage::kStored, 1);
      batch.Merge(core_->db()->cf(Cf::kCounters), storage::BucketKey(id_, bucket[i]),
                  one.Encode());
    }
    delta.Add(storage::kStored, 1);
    delta.Add(storage::kSentTotal, 1);

    SendMessageResult result;
    result.message_id = m.message_id;
    result.md5_of_message_body = m.md5_of_body;
    if (!r.message_attributes.empty()) result.md5_of_message_attributes = m.md5_of_attributes;
    if (!r.message_system_attributes.empty()) {
      result.md5_of_message_system_attributes =
          api::Md5OfMessageAttributes(r.message_system_attributes);
    }
    results->push_back(std::move(result));
  }
  // The seq cursor's slot (a max with 0 changes nothing) goes with the
  // queue's first send: builds before it reject the slot as corrupt, so
  // they refuse this database instead of missing its messages that have no
  // index entry.
  if (!seq_slot_written_.load(std::memory_order_relaxed)) {
    delta.Max(storage::kSeqCursor, 0);
  }
  batch.Merge(core_->db()->cf(Cf::kCounters), storage::CounterKey(id_), delta.Encode());
  Status st = core_->db()->Write(&batch, /*must_sync=*/true);
  if (st.ok()) seq_slot_written_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    for (size_t i = 0; i < n; ++i) {
      if (!grouped[i] && visible_at[i] == now) pending_by_seq_.erase(first_seq + i);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (grouped[i]) {
      FinishPendingGrouped(*requests[i]->message_group_id, first_seq + i, st.ok());
    } else if (visible_at[i] > now) {
      FinishPending(visible_at[i], first_seq + i, st.ok() ? bucket[i] : 0);
    }
  }
  if (!st.ok()) {
    results->clear();
    return st;
  }
  ApplyDelta(delta);
  gate.unlock();
  Notify();
  return Status::OK();
}

StatusOr<SendMessageResult> QueueImpl::SendMessage(const SendMessageRequest& request) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  const api::QueueConfig config = *SendConfig();
  Status valid = api::ValidateSendMessage(request, config, /*in_batch=*/false);
  if (!valid.ok()) return valid;
  std::vector<SendMessageResult> results;
  Status st = fifo_ ? StoreFifoMessages({&request}, &results) : StoreMessages({&request}, &results);
  if (!st.ok()) return st;
  return std::move(results[0]);
}

StatusOr<SendMessageBatchResult> QueueImpl::SendMessageBatch(
    const std::vector<SendMessageBatchEntry>& entries) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  std::vector<std::string> ids;
  ids.reserve(entries.size());
  for (const auto& e : entries) ids.push_back(e.id);
  Status envelope = api::ValidateBatchIds(ids, "SendMessageBatchRequestEntry");
  if (!envelope.ok()) return envelope;
  int64_t total = 0;
  for (const auto& e : entries) total += api::MessageSize(e.request);
  if (total > api::kMaxBatchBytes) {
    return Status(ErrorCode::kBatchRequestTooLong,
                  "Batch requests cannot be longer than 1048576 bytes. You have sent " +
                      std::to_string(total) + " bytes.");
  }
  const api::QueueConfig config = *SendConfig();
  if (fifo_) {
    // On FIFO queues these fail the whole batch, as in SQS.
    for (const auto& e : entries) {
      if (!e.request.message_group_id) {
        return Status(ErrorCode::kInvalidParameterValue,
                      "The request must contain the parameter MessageGroupId.");
      }
      if (!e.request.message_deduplication_id && !config.content_based_deduplication) {
        return Status(ErrorCode::kInvalidParameterValue,
                      "The queue should either have ContentBasedDeduplication enabled or "
                      "MessageDeduplicationId provided explicitly");
      }
    }
  }
  SendMessageBatchResult out;
  std::vector<const SendMessageRequest*> valid;
  std::vector<const std::string*> valid_ids;
  for (const auto& e : entries) {
    Status st = api::ValidateSendMessage(e.request, config, /*in_batch=*/true);
    if (st.ok()) {
      valid.push_back(&e.request);
      valid_ids.push_back(&e.id);
    } else {
      out.failed.push_back(EntryError(e.id, st));
    }
  }
  if (!valid.empty()) {
    std::vector<SendMessageResult> results;
    Status st = fifo_ ? StoreFifoMessages(valid, &results) : StoreMessages(valid, &results);
    if (!st.ok()) {
      if (st.code() == ErrorCode::kQueueDoesNotExist || st.code() == ErrorCode::kClosed) {
        return st;
      }
      for (const std::string* id : valid_ids) out.failed.push_back(EntryError(*id, st));
    } else {
      for (size_t i = 0; i < results.size(); ++i) {
        out.successful.push_back({*valid_ids[i], std::move(results[i])});
      }
    }
  }
  return out;
}

// ---- Receive path ---------------------------------------------------------------

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

int64_t QueueImpl::DelayedCountLocked(int64_t now) {
  if (fifo_) {
    // FIFO delays are the queue's, counted from each message's send time.
    const int64_t delay_ms = int64_t{config_.delay_seconds} * 1000;
    if (delay_ms == 0) return 0;
    int64_t n = 0;
    for (storage::RangeIterator it(core_->db(), Cf::kExpiry, storage::TimeKey(id_, now - delay_ms + 1, 0),
                                   storage::TimeKey(id_, now + 1, 0));
         it.Valid(); it.Next()) {
      if (!it.value().empty() && it.value()[0] == 'G') ++n;
    }
    return n;
  }
  const int64_t now_bucket = BucketOf(now);
  int64_t total = 0;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
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

int64_t QueueImpl::NextWakeLocked(int64_t now, int64_t deadline) {
  int64_t wake = deadline;
  int64_t lease_end = leases_.NextExpiryAfter(now);
  if (lease_end > 0) wake = std::min(wake, lease_end);
  // The next delayed message to become visible: for standard queues the
  // first future key of the visible index; for FIFO queues (whose delay is
  // the queue's, from the send time) the oldest send still inside it.
  const int64_t delay_ms = fifo_ ? int64_t{config_.delay_seconds} * 1000 : 0;
  if (fifo_ && delay_ms == 0) return wake;
  storage::RangeIterator it(core_->db(), fifo_ ? Cf::kExpiry : Cf::kVisible,
                            storage::TimeKey(id_, fifo_ ? now - delay_ms + 1 : now + 1, 0),
                            storage::TimeKey(id_, fifo_ ? now + 1 : deadline + 1, 0));
  storage::DecodedTimeKey k;
  if (it.Valid() && storage::DecodeTimeKey(it.key(), &k)) wake = std::min(wake, k.time_ms + delay_ms);
  return wake;
}

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
      std::lock_guard<std::mutex> lock(pending_mu_);
      if (!pending_by_seq_.empty()) seq_floor = *pending_by_seq_.begin();
      lane.emplace(db, id_, seq_cursor_, name_, budget);
    }
    auto taken_ahead = [this](uint64_t seq) { return TakenAheadLocked(seq); };
    for (lane->Start(taken_ahead);
         lane->Valid() && n < budget && lane->seq() < seq_floor &&
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
        if (!storage::DecodeTimeKey(it.key(), &k) || !storage::DecodeExpiryValue(it.value(), &target)) {
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
    std::lock_guard<std::mutex> lock(pending_mu_);
    for (int64_t b : bucket_drops) buckets_[b] -= 1;
  }
  ApplyDelta(delta);
  return static_cast<int64_t>(n);
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
      std::lock_guard<std::mutex> lock(pending_mu_);
      if (!pending_.empty()) floor = *pending_.begin();
      if (!pending_by_seq_.empty()) seq_floor = *pending_by_seq_.begin();
      it.emplace(storage::RangeIterator::DeferSeek{}, db, Cf::kVisible,
                 storage::TimeKey(id_, cursor_ms_, cursor_seq_), storage::TimeKey(id_, now + 1, 0));
      // Unbounded: the records it passes (delayed, grouped, dead-lettered)
      // are passed once, as the cursor moves past them, and a bound could
      // leave a receive empty while a message is ready behind them.
      lane.emplace(db, id_, seq_cursor_, name_);
    }
    auto taken_ahead = [this](uint64_t seq) { return TakenAheadLocked(seq); };
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
        Status st = TakeFromGroupsRoundLocked(&ctx, groups_snapshot->snapshot(), group_floor,
                                              &progress);
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
  if (e.sent_ms <= ctx->retention_cutoff) {
    drop_index();
    ctx->batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
    ctx->delta.Add(storage::kExpiredTotal, 1);
    return EntryOutcome::kDropped;
  }
  if (ctx->dl.dlq && e.receive_count >= static_cast<uint32_t>(ctx->dl.max_receives)) {
    StatusOr<bool> moved = MoveToDeadLetter(&ctx->dl, seq, e.receive_count, e.first_receive_ms,
                                            e.sent_ms, ctx->now, &ctx->batch, &ctx->delta);
    if (!moved.ok()) return moved.status();
    if (!*moved) return EntryOutcome::kBlocked;
    drop_index();
    return EntryOutcome::kDropped;
  }
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
    if (long_poll) return Status::OK();  // a long poll just waits
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
  if (old.sent_ms <= ctx->retention_cutoff) {
    ctx->batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
    ctx->delta.Add(storage::kExpiredTotal, 1);
    drop_lease();
    return EntryOutcome::kDropped;
  }
  if (ctx->dl.dlq && old.receive_count >= static_cast<uint32_t>(ctx->dl.max_receives)) {
    StatusOr<bool> moved = MoveToDeadLetter(&ctx->dl, seq, old.receive_count, old.first_receive_ms,
                                            old.sent_ms, ctx->now, &ctx->batch, &ctx->delta);
    if (!moved.ok()) return moved.status();
    if (!*moved) return EntryOutcome::kBlocked;
    drop_lease();
    return EntryOutcome::kDropped;
  }
  LeaseEntry lease = old;
  lease.visible_at_ms = ctx->now + ctx->lease_ms;
  lease.receive_count += 1;
  lease.lease_start_ms = ctx->now;
  ctx->batch.Put(db->cf(Cf::kInflight), storage::MessageKey(id_, seq), storage::EncodeLease(lease));
  ctx->delta.Add(storage::kReceivedTotal, 1);
  ctx->taken->push_back({seq, lease});
  return EntryOutcome::kTaken;
}

// ---- Dead-letter moves --------------------------------------------------------------

QueueImpl::DeadLetterMove QueueImpl::PrepareDeadLetterLocked() {
  DeadLetterMove m;
  if (config_.redrive_policy) {
    m.dlq = core_->FindByArn(config_.redrive_policy->dead_letter_target_arn);
    if (m.dlq.get() == this) m.dlq.reset();
    m.max_receives = config_.redrive_policy->max_receive_count;
  }
  return m;
}

StatusOr<bool> QueueImpl::MoveToDeadLetter(DeadLetterMove* m, uint64_t seq, uint32_t receive_count,
                                           int64_t first_receive_ms, int64_t sent_ms, int64_t now,
                                           rocksdb::WriteBatch* batch, CounterDelta* delta,
                                           const MessageAttributeMap* extra_attributes) {
  QueueImpl* dlq = m->dlq.get();
  if (!m->gate.owns_lock()) {
    // Never wait for another queue's gate while holding our mutex: if the
    // DLQ is being purged or deleted, the message waits for the next receive.
    m->gate = std::shared_lock<std::shared_mutex>(dlq->gate_, std::try_to_lock);
    if (!m->gate.owns_lock() || !dlq->CheckLive().ok()) return false;
  }
  storage::Database* db = core_->db();
  std::string raw;
  bool found = false;
  Status st = db->Get(Cf::kMessages, storage::MessageKey(id_, seq), &raw, &found);
  if (!st.ok()) return st;
  if (!found) {
    return Status(ErrorCode::kCorruption, "message " + name_ + "/" + std::to_string(seq) +
                                              " has an index entry but no record");
  }
  storage::Message msg;
  st = storage::DecodeMessage(raw, name_ + "/" + std::to_string(seq), &msg);
  if (!st.ok()) return st;
  msg.dead_letter_source_arn = arn_;
  if (extra_attributes != nullptr && !extra_attributes->empty()) {
    for (const auto& [name, value] : *extra_attributes) msg.attributes[name] = value;
    msg.md5_of_attributes = api::Md5OfMessageAttributes(msg.attributes);
  }
  VisibleEntry e;
  e.receive_count = receive_count;
  e.first_receive_ms = first_receive_ms;
  e.sent_ms = sent_ms;
  e.has_expiry_entry = true;
  uint64_t new_seq = 0;
  if (dlq->fifo_) {
    // A FIFO DLQ: the message joins the end of its group there; its dedup id
    // becomes its MessageId (two messages that shared an id both survive),
    // and its retention clock restarts.
    const std::string group = msg.message_group_id;
    {
      std::lock_guard<std::mutex> lock(dlq->pending_mu_);
      StatusOr<uint64_t> s = core_->AllocateSeqs(1);
      if (!s.ok()) return s.status();
      new_seq = *s;
      dlq->fifo_pending_[group].insert(new_seq);
    }
    m->grouped.emplace_back(group, new_seq);
    msg.message_deduplication_id = msg.message_id;
    msg.sequence_number = fifo::FormatSequenceNumber(new_seq);
    e.sent_ms = now;
    batch->Put(db->cf(Cf::kGrouped), storage::GroupedKey(dlq->id_, group, new_seq),
               storage::EncodeVisible(e));
    batch->Put(db->cf(Cf::kExpiry), storage::TimeKey(dlq->id_, now, new_seq),
               storage::ExpiryValueGrouped(group));
  } else {
    int64_t at = 0;
    {
      std::lock_guard<std::mutex> lock(dlq->pending_mu_);
      at = core_->NowMillis();
      StatusOr<uint64_t> s = core_->AllocateSeqs(1);
      if (!s.ok()) return s.status();
      new_seq = *s;
      dlq->RegisterPending(at, new_seq);
    }
    m->inserts.emplace_back(at, new_seq);
    batch->Put(db->cf(Cf::kVisible), storage::TimeKey(dlq->id_, at, new_seq),
               storage::EncodeVisible(e));
    batch->Put(db->cf(Cf::kExpiry), storage::TimeKey(dlq->id_, sent_ms, new_seq),
               storage::ExpiryValueVisible(at));
  }
  msg.queued_by_seq = false;  // indexed in the DLQ
  batch->Put(db->cf(Cf::kMessages), storage::MessageKey(dlq->id_, new_seq),
             storage::EncodeMessage(msg));
  m->delta.Add(storage::kStored, 1);
  batch->SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
  delta->Add(storage::kMovedToDlqTotal, 1);
  return true;
}

void QueueImpl::AddDeadLetterCounters(DeadLetterMove* m, rocksdb::WriteBatch* batch) {
  if (m->delta.empty()) return;
  batch->Merge(core_->db()->cf(Cf::kCounters), storage::CounterKey(m->dlq->id_),
               m->delta.Encode());
}

void QueueImpl::FinishDeadLetter(DeadLetterMove* m, bool ok) {
  if (!m->dlq) return;
  QueueImpl* dlq = m->dlq.get();
  for (const auto& [at, seq] : m->inserts) dlq->FinishPending(at, seq, 0);
  for (const auto& [group, seq] : m->grouped) dlq->FinishPendingGrouped(group, seq, ok);
  if (ok && (!m->inserts.empty() || !m->grouped.empty())) {
    dlq->AcceptInserted(m->delta);
    // Waking the DLQ's receivers takes its mutex: done by the caller after
    // releasing ours (see ReceiveMessage).
    dlq_wake_ = m->dlq;
  }
  if (m->gate.owns_lock()) m->gate.unlock();
}

void QueueImpl::ForgetLeaseLocked(uint64_t seq) {
  const LeaseEntry* lease = leases_.Find(seq);
  if (lease == nullptr) return;
  if (fifo_) groups_.RemoveLeased(lease->group, seq);
  leases_.Erase(seq);
}

StatusOr<ReceiveMessageResult> QueueImpl::ReceiveMessage(const ReceiveMessageRequest& request) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  Status valid = api::ValidateReceiveMessage(request);
  if (!valid.ok()) return valid;

  std::vector<Taken> taken;
  taken.reserve(static_cast<size_t>(std::clamp(request.max_number_of_messages, 1, 10)));
  std::shared_ptr<QueueImpl> wake_dlq;
  {
    std::unique_lock<std::mutex> lock(mu_);
    const int wait_s = request.wait_time_seconds.value_or(config_.receive_message_wait_time_seconds);
    const int64_t deadline = core_->NowMillis() + int64_t{wait_s} * 1000;
    waiters_.Enter();
    struct Leave {
      notify::WaitList* w;
      ~Leave() { w->Leave(); }
    } leave{&waiters_};
    while (true) {
      Status st = CheckLive();
      if (st.code() == ErrorCode::kQueueDoesNotExist) break;  // deleted during the wait
      if (!st.ok()) return st;
      const int64_t now = core_->NowMillis();
      st = TryReceiveLocked(request, now, wait_s > 0, &taken);
      if (dlq_wake_) wake_dlq = std::move(dlq_wake_);
      if (!st.ok()) return st;
      if (!taken.empty() || now >= deadline) break;
      const int64_t wake = NextWakeLocked(now, deadline);
      waiters_.Wait(lock, core_->options().clock->RealTimeUntil(wake));
    }
  }
  if (wake_dlq) wake_dlq->Notify();
  return BuildResult(taken, request);
}

std::optional<StatusOr<ReceiveMessageResult>> QueueImpl::ReceiveOnce(
    const ReceiveMessageRequest& request, int64_t deadline, int64_t* next_check_ms) {
  std::vector<Taken> taken;
  taken.reserve(static_cast<size_t>(std::clamp(request.max_number_of_messages, 1, 10)));
  std::shared_ptr<QueueImpl> wake_dlq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Status st = CheckLive();
    // Deleted after ReceiveMessageAsync accepted the request: no messages.
    if (st.code() == ErrorCode::kQueueDoesNotExist) return ReceiveMessageResult{};
    if (!st.ok()) return StatusOr<ReceiveMessageResult>(st);
    const int64_t now = core_->NowMillis();
    st = TryReceiveLocked(request, now, /*long_poll=*/deadline > now, &taken);
    if (dlq_wake_) wake_dlq = std::move(dlq_wake_);
    if (!st.ok()) return StatusOr<ReceiveMessageResult>(st);
    if (taken.empty() && now < deadline) {
      *next_check_ms = NextWakeLocked(now, deadline);
      return std::nullopt;
    }
  }
  if (wake_dlq) wake_dlq->Notify();
  return BuildResult(taken, request);
}

uint64_t QueueImpl::ReceiveMessageAsync(const ReceiveMessageRequest& request,
                                       ReceiveCallback done) {
  Status live = CheckLive();
  if (!live.ok()) return done(live), 0;
  Status valid = api::ValidateReceiveMessage(request);
  if (!valid.ok()) return done(valid), 0;
  int64_t deadline = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int wait_s = request.wait_time_seconds.value_or(config_.receive_message_wait_time_seconds);
    deadline = core_->NowMillis() + int64_t{wait_s} * 1000;
  }
  // Read before our own attempt: a change after it makes Park try again at
  // once (no lost wake-up), and without one Park waits for a Wake or
  // next_check instead of trying again right away.
  const uint64_t epoch = core_->async_receiver().WakeEpoch();
  int64_t next_check = 0;
  std::optional<StatusOr<ReceiveMessageResult>> now = ReceiveOnce(request, deadline, &next_check);
  if (now) return done(std::move(*now)), 0;
  std::shared_ptr<QueueImpl> self = shared_from_this();
  auto shared_done = std::make_shared<ReceiveCallback>(std::move(done));
  return core_->async_receiver().Park(
      id_, epoch, next_check,
      [self, request, deadline, shared_done](bool closing, int64_t* next) -> bool {
        if (closing) {
          (*shared_done)(Status(ErrorCode::kClosed, "the database is closed"));
          return true;
        }
        std::optional<StatusOr<ReceiveMessageResult>> r = self->ReceiveOnce(request, deadline, next);
        if (!r) return false;
        (*shared_done)(std::move(*r));
        return true;
      });
}

bool QueueImpl::CancelReceive(uint64_t receive_id) {
  if (receive_id == 0) return false;
  return core_->async_receiver().Cancel(id_, receive_id);
}

StatusOr<ReceiveMessageResult> QueueImpl::BuildResult(std::vector<Taken>& taken,
                                                      const ReceiveMessageRequest& request) {
  ReceiveMessageResult result;
  if (taken.empty()) return result;
  // Messages queued by seq were read by the receive itself; the others'
  // records are read here.
  std::vector<uint64_t> seqs;
  seqs.reserve(taken.size());
  for (const Taken& t : taken) {
    if (!t.message) seqs.push_back(t.seq);
  }
  std::vector<std::optional<storage::Message>> read_messages;
  if (!seqs.empty()) {
    Status read = storage::ReadMessages(core_->db(), id_, seqs, name_, &read_messages);
    if (!read.ok()) return read;
  }
  const auto& sys = request.message_system_attribute_names;
  size_t next_read = 0;
  for (size_t i = 0; i < taken.size(); ++i) {
    std::optional<storage::Message>& slot =
        taken[i].message ? taken[i].message : read_messages[next_read++];
    if (!slot) continue;  // deleted (e.g. purged) meanwhile
    storage::Message& m = *slot;
    const LeaseEntry& lease = taken[i].lease;
    ReceivedMessage out;
    out.message_id = m.message_id;
    out.receipt_handle = core_->handles().Encode({id_, taken[i].seq, lease.receive_count});
    out.body = std::move(m.body);
    out.md5_of_body = m.md5_of_body;
    auto put_sys = [&](std::string_view name, std::string value) {
      if (api::SystemAttributeSelected(name, sys)) out.attributes[std::string(name)] = std::move(value);
    };
    put_sys(attr::kSenderId, m.sender_id);
    put_sys(attr::kSentTimestamp, std::to_string(m.sent_timestamp_ms));
    put_sys(attr::kApproximateReceiveCount, std::to_string(lease.receive_count));
    put_sys(attr::kApproximateFirstReceiveTimestamp, std::to_string(lease.first_receive_ms));
    if (!m.aws_trace_header.empty()) put_sys(attr::kAWSTraceHeader, m.aws_trace_header);
    if (!m.message_group_id.empty()) put_sys(attr::kMessageGroupId, m.message_group_id);
    if (fifo_) {
      put_sys(attr::kSequenceNumber, m.sequence_number);
      put_sys(attr::kMessageDeduplicationId, m.message_deduplication_id);
    }
    if (!m.dead_letter_source_arn.empty()) {
      put_sys(attr::kDeadLetterQueueSourceArn, m.dead_letter_source_arn);
    }
    for (auto& [name, value] : m.attributes) {
      if (api::MessageAttributeSelected(name, request.message_attribute_names)) {
        out.message_attributes.emplace(name, value);
      }
    }
    if (!out.message_attributes.empty()) {
      out.md5_of_message_attributes =
          out.message_attributes.size() == m.attributes.size()
              ? m.md5_of_attributes
              : api::Md5OfMessageAttributes(out.message_attributes);
    }
    result.messages.push_back(std::move(out));
  }
  return result;
}

// ---- Delete and change visibility -----------------------------------------------

Status QueueImpl::DeleteMessage(const std::string& receipt_handle) {
  return DeleteOne(receipt_handle, nullptr);
}

Status QueueImpl::DeleteOne(const std::string& receipt_handle, const AlsoWrite& also) {
  StatusOr<BatchResult> r = DeleteMessagesWith({{"0", receipt_handle}}, also);
  if (!r.ok()) return r.status();
  if (!r->failed.empty()) return FromEntryError(r->failed[0]);
  return Status::OK();
}

StatusOr<BatchResult> QueueImpl::DeleteMessageBatch(
    const std::vector<DeleteMessageBatchEntry>& entries) {
  return DeleteMessagesWith(entries, nullptr);
}

StatusOr<BatchResult> QueueImpl::DeleteMessagesWith(
    const std::vector<DeleteMessageBatchEntry>& entries, const AlsoWrite& also) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (entries.size() != 1 || entries[0].id != "0") {
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.id);
    Status envelope = api::ValidateBatchIds(ids, "DeleteMessageBatchRequestEntry");
    if (!envelope.ok()) return envelope;
  }
  BatchResult out;
  std::vector<std::pair<const std::string*, uint64_t>> targets;
  // Standard queues write a plain delete outside mu_, so that one queue's
  // receives and deletes do not queue behind each other's RocksDB writes:
  // the leases are claimed (taken out of the lease table) under mu_, the
  // batch written under the shared gate (purge and DeleteQueue wait for it),
  // and the claims restored if the write fails. FIFO deletes (which unlock
  // their group) and DeleteMessageAndRecord (whose inbox record pairs with
  // the check before it) keep mu_ across the write.
  const bool write_unlocked = !fifo_ && !also;
  std::shared_lock<std::shared_mutex> gate(gate_, std::defer_lock);
  if (write_unlocked) gate.lock();
  std::unique_lock<std::mutex> lock(mu_);
  Status st = CheckLive();
  if (!st.ok()) return st;
  const int64_t now = core_->NowMillis();
  for (const auto& e : entries) {
    lease::ReceiptHandle h;
    if (!core_->handles().Decode(e.receipt_handle, &h)) {
      out.failed.push_back(EntryError(e.id, InvalidHandle(e.receipt_handle)));
    } else if (h.queue_id != id_) {
      out.failed.push_back(EntryError(e.id, ForeignHandle(e.receipt_handle)));
    } else if (const LeaseEntry* lease = leases_.Find(h.seq);
               fifo_ && lease != nullptr &&
               (lease->receive_count != h.receive_count || lease->visible_at_ms <= now)) {
      // FIFO: only the current, unexpired lease may delete.
      out.failed.push_back(EntryError(e.id, ExpiredHandle(e.receipt_handle)));
    } else {
      targets.emplace_back(&e.id, h.seq);
    }
  }
  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch;
  CounterDelta delta;
  std::vector<uint64_t> gone;
  std::vector<std::pair<uint64_t, LeaseEntry>> claimed;  // write_unlocked only
  for (const auto& [id, seq] : targets) {
    const LeaseEntry* lease = leases_.Find(seq);
    if (lease != nullptr && std::find(gone.begin(), gone.end(), seq) == gone.end()) {
      batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
      batch.Delete(db->cf(Cf::kInflight), storage::MessageKey(id_, seq));
      delta.Add(storage::kLeases, -1);
      delta.Add(storage::kDeletedTotal, 1);
      gone.push_back(seq);
      if (write_unlocked) claimed.emplace_back(seq, *lease);
    }
    // A message that is no longer leased was deleted, expired, purged or
    // moved: deleting it again succeeds, as in SQS.
  }
  const bool extra = also && out.failed.empty();
  if (extra) {
    st = also(&batch, now);
    if (!st.ok()) return st;
  }
  if (!gone.empty() || extra) {
    if (!gone.empty()) {
      batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), delta.Encode());
    }
    if (write_unlocked) {
      // Claimed: no receive, retention sweep or visibility change sees them
      // now. (A second delete of the same message meanwhile finds no lease
      // and succeeds, as a repeated delete does.)
      for (uint64_t seq : gone) ForgetLeaseLocked(seq);
      lock.unlock();
    }
    st = db->Write(&batch, /*must_sync=*/false);
    if (!st.ok()) {
      if (write_unlocked) {
        lock.lock();
        for (const auto& [seq, lease] : claimed) leases_.Put(seq, lease);
        NotifyLocked();  // a restored lease may have ended meanwhile
      }
      return st;
    }
    if (!write_unlocked) {
      for (uint64_t seq : gone) ForgetLeaseLocked(seq);
    }
    ApplyDelta(delta);
    // FIFO (whose deletes keep mu_): a delete unlocks its group, whose next
    // message may be what a parked long poll waits for.
    if (fifo_ && !gone.empty()) NotifyLocked();
  }
  for (const auto& [id, seq] : targets) out.successful.push_back(*id);
  return out;
}

Status QueueImpl::ChangeMessageVisibility(const std::string& receipt_handle,
                                          int visibility_timeout) {
  StatusOr<BatchResult> r = ChangeMessageVisibilityBatch(
      {{"0", receipt_handle, visibility_timeout}});
  if (!r.ok()) return r.status();
  if (!r->failed.empty()) return FromEntryError(r->failed[0]);
  return Status::OK();
}

StatusOr<BatchResult> QueueImpl::ChangeMessageVisibilityBatch(
    const std::vector<ChangeMessageVisibilityBatchEntry>& entries) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  const bool single = entries.size() == 1 && entries[0].id == "0";
  if (!single) {
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.id);
    Status envelope = api::ValidateBatchIds(ids, "ChangeMessageVisibilityBatchRequestEntry");
    if (!envelope.ok()) return envelope;
  }
  BatchResult out;
  std::unique_lock<std::mutex> lock(mu_);
  Status st = CheckLive();
  if (!st.ok()) return st;
  const int64_t now = core_->NowMillis();
  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch;
  std::vector<std::pair<uint64_t, LeaseEntry>> updates;
  std::vector<const std::string*> ok_ids;
  bool wake = false;
  for (const auto& e : entries) {
    if (e.visibility_timeout) {
      Status range = api::ValidateVisibilityTimeout(*e.visibility_timeout);
      if (!range.ok()) {
        out.failed.push_back(EntryError(e.id, range));
        continue;
      }
    }
    lease::ReceiptHandle h;
    if (!core_->handles().Decode(e.receipt_handle, &h)) {
      out.failed.push_back(EntryError(e.id, InvalidHandle(e.receipt_handle)));
      continue;
    }
    if (h.queue_id != id_) {
      out.failed.push_back(EntryError(e.id, ForeignHandle(e.receipt_handle)));
      continue;
    }
    const LeaseEntry* current = leases_.Find(h.seq);
    for (const auto& [seq, pending] : updates) {
      if (seq == h.seq) current = &pending;
    }
    if (fifo_ && current != nullptr &&
        (current->receive_count != h.receive_count || current->visible_at_ms <= now)) {
      out.failed.push_back(EntryError(e.id, ExpiredHandle(e.receipt_handle)));
      continue;
    }
    if (current == nullptr) {
      out.failed.push_back(EntryError(
          e.id, Status(ErrorCode::kInvalidParameterValue,
                       "Value " + e.receipt_handle +
                           " for parameter ReceiptHandle is invalid. Reason: Message does not "
                           "exist or is not available for visibility timeout change.")));
      continue;
    }
    if (!e.visibility_timeout) {
      ok_ids.push_back(&e.id);
      continue;
    }
    LeaseEntry lease = *current;
    // A lease that already ended is restarted by the change (SQS accepts
    // the latest handle of a message whose lease expired).
    if (lease.visible_at_ms <= now) lease.lease_start_ms = now;
    const int64_t new_end = now + int64_t{*e.visibility_timeout} * 1000;
    // The time the lease has run counts in whole seconds, the unit of every
    // SQS timeout: 43,200 is allowed for the first second after a receive.
    const int64_t elapsed_ms = (now - lease.lease_start_ms) / 1000 * 1000;
    if (elapsed_ms + int64_t{*e.visibility_timeout} * 1000 > kMaxLeaseMs) {
      out.failed.push_back(EntryError(
          e.id, Status(ErrorCode::kInvalidParameterValue,
                       "Value " + std::to_string(*e.visibility_timeout) +
                           " for parameter VisibilityTimeout is invalid. Reason: Total "
                           "VisibilityTimeout for the message is beyond the limit [43200 "
                           "seconds]")));
      continue;
    }
    if (new_end < lease.visible_at_ms || new_end <= now) wake = true;
    lease.visible_at_ms = new_end;
    batch.Put(db->cf(Cf::kInflight), storage::MessageKey(id_, h.seq), storage::EncodeLease(lease));
    updates.emplace_back(h.seq, lease);
    ok_ids.push_back(&e.id);
  }
  if (!updates.empty()) {
    st = db->Write(&batch, /*must_sync=*/false);
    if (!st.ok()) return st;
    for (const auto& [seq, lease] : updates) leases_.Put(seq, lease);
  }
  for (const std::string* id : ok_ids) out.successful.push_back(*id);
  if (wake) NotifyLocked();
  return out;
}

// ---- Purge, delete, expiry, moves --------------------------------------------------

Status QueueImpl::PurgeQueue() {
  Status live = CheckLive();
  if (!live.ok()) return live;
  std::unique_lock<std::shared_mutex> gate(gate_);
  std::unique_lock<std::mutex> lock(mu_);
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
  for (Cf cf : {Cf::kMessages, Cf::kVisible, Cf::kInflight, Cf::kExpiry, Cf::kGrouped, Cf::kDedup}) {
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
    std::lock_guard<std::mutex> plock(pending_mu_);
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
  std::unique_lock<std::shared_mutex> gate(gate_);
  std::unique_lock<std::mutex> lock(mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
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

StatusOr<int64_t> QueueImpl::MoveMessagesOut(QueueImpl* destination, int64_t limit,
                                             std::string* failure) {
  std::unique_lock<std::mutex> lock(mu_);
  Status live = CheckLive();
  if (!live.ok()) return live;
  const int64_t now = core_->NowMillis();
  storage::Database* db = core_->db();
  int64_t moved = 0;

  // Moves message `seq` to its destination as a new message, then removes it
  // here with `remove` (which deletes its index or lease entry). A crash
  // between the two writes leaves a duplicate, never a loss. False: stop
  // (*failure says why).
  auto move_one = [&](uint64_t seq,
                      const std::function<void(rocksdb::WriteBatch*, CounterDelta*)>& remove)
      -> StatusOr<bool> {
    std::string raw;
    bool found = false;
    Status st = db->Get(Cf::kMessages, storage::MessageKey(id_, seq), &raw, &found);
    if (!st.ok()) return st;
    if (!found) return true;
    storage::Message m;
    st = storage::DecodeMessage(raw, name_ + "/" + std::to_string(seq), &m);
    if (!st.ok()) return st;
    std::shared_ptr<QueueImpl> owned;
    QueueImpl* dest = destination;
    if (dest == nullptr) {
      if (m.dead_letter_source_arn.empty()) {
        // Sent to this queue directly, not moved here from a source queue:
        // there is no original source to go back to.
        *failure = "CouldNotDetermineMessageSource";
        return false;
      }
      owned = core_->FindByArn(m.dead_letter_source_arn);
      dest = owned.get();
    }
    if (dest == nullptr || dest == this) {
      *failure = "AWS.SimpleQueueService.NonExistentQueue";
      return false;
    }
    SendMessageRequest req;
    req.body = std::move(m.body);
    req.message_attributes = std::move(m.attributes);
    if (!m.aws_trace_header.empty()) {
      req.message_system_attributes[std::string(attr::kAWSTraceHeader)] = {"String",
                                                                           m.aws_trace_header, ""};
    }
    if (!m.message_group_id.empty()) req.message_group_id = m.message_group_id;
    std::vector<SendMessageResult> results;
    if (dest->fifo_) {
      req.message_deduplication_id = m.message_id;
      st = dest->StoreFifoMessages({&req}, &results);
    } else {
      req.delay_seconds = 0;
      st = dest->StoreMessages({&req}, &results);
    }
    if (st.code() == ErrorCode::kQueueDoesNotExist) {
      *failure = "AWS.SimpleQueueService.NonExistentQueue";
      return false;
    }
    if (!st.ok()) return st;
    rocksdb::WriteBatch batch;
    CounterDelta delta;
    remove(&batch, &delta);
    batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
    delta.Add(storage::kMovedByTaskTotal, 1);
    batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), delta.Encode());
    st = db->Write(&batch, /*must_sync=*/true);
    if (!st.ok()) return st;
    ApplyDelta(delta);
    ++moved;
    return true;
  };

  // 1. Received messages whose lease ended are available again: they go too.
  for (uint64_t seq : leases_.Expired(now, static_cast<size_t>(limit))) {
    StatusOr<bool> go = move_one(seq, [&](rocksdb::WriteBatch* b, CounterDelta* d) {
      b->Delete(db->cf(Cf::kInflight), storage::MessageKey(id_, seq));
      d->Add(storage::kLeases, -1);
    });
    if (!go.ok()) return go.status();
    if (!*go) return moved;
    ForgetLeaseLocked(seq);
  }
  // 2. Queued messages: a standard queue's visible index (up to now), then
  //    the group lanes (FIFO queues and fair queues).
  for (const bool grouped : {false, true}) {
    if (fifo_ && !grouped) continue;
    storage::RangeIterator it(
        db, grouped ? Cf::kGrouped : Cf::kVisible,
        grouped ? storage::QueuePrefix(id_) : storage::TimeKey(id_, cursor_ms_, cursor_seq_),
        grouped ? storage::QueueEnd(id_) : storage::TimeKey(id_, now + 1, 0));
    for (; it.Valid() && moved < limit; it.Next()) {
      uint64_t seq = 0;
      VisibleEntry e;
      bool decoded = false;
      if (grouped) {
        uint64_t qid = 0;
        std::string group;
        decoded = storage::DecodeGroupedKey(it.key(), &qid, &group, &seq);
      } else {
        storage::DecodedTimeKey k;
        decoded = storage::DecodeTimeKey(it.key(), &k);
        seq = k.seq;
      }
      if (!decoded || !storage::DecodeVisible(it.value(), &e)) {
        return Status(ErrorCode::kCorruption, "index entry of queue " + name_ + " is corrupt");
      }
      // FIFO: still inside the queue's delay.
      if (fifo_ && e.sent_ms + int64_t{config_.delay_seconds} * 1000 > now) continue;
      const rocksdb::Slice key = it.key_slice();
      StatusOr<bool> go = move_one(seq, [&](rocksdb::WriteBatch* b, CounterDelta* d) {
        b->Delete(db->cf(grouped ? Cf::kGrouped : Cf::kVisible), key);
        if (e.has_expiry_entry) b->Delete(db->cf(Cf::kExpiry), storage::TimeKey(id_, e.sent_ms, seq));
        d->Add(storage::kStored, -1);
      });
      if (!go.ok()) return go.status();
      if (!*go) return moved;
    }
    if (Status st = it.status("moving messages"); !st.ok()) return st;
    if (grouped) continue;
    // A standard queue's messages queued by seq.
    SeqLane lane(db, id_, seq_cursor_, name_);
    auto taken_ahead = [this](uint64_t seq) { return TakenAheadLocked(seq); };
    for (lane.Start(taken_ahead); lane.Valid() && moved < limit; lane.Next(taken_ahead)) {
      StatusOr<bool> go = move_one(lane.seq(), [&](rocksdb::WriteBatch*, CounterDelta* d) {
        d->Add(storage::kStored, -1);
      });
      if (!go.ok()) return go.status();
      if (!*go) return moved;
    }
    if (!lane.status().ok()) return lane.status();
  }
  return moved;
}

QueueCounts QueueImpl::Counts() {
  std::lock_guard<std::mutex> lock(mu_);
  QueueCounts c;
  const int64_t now = core_->NowMillis();
  const int64_t expired_leases = leases_.CountExpired(now);
  c.delayed = DelayedCountLocked(now);
  c.visible = std::max<int64_t>(0, counters_[storage::kStored].load() - c.delayed) + expired_leases;
  c.not_visible = static_cast<int64_t>(leases_.size()) - expired_leases;
  for (int i = 0; i < storage::kNumSlots; ++i) c.slots[i] = counters_[i].load();
  return c;
}

// ---- Attributes, tags, permissions ---------------------------------------------------

StatusOr<AttributeMap> QueueImpl::GetAttributes(const std::vector<std::string>& names) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  Status valid = api::ValidateAttributeNames(names);
  if (!valid.ok()) return valid;
  AttributeMap out;
  if (names.empty()) return out;
  StatusOr<int64_t> expired = ExpireNow(4096, /*reclaim=*/false);
  if (!expired.ok()) return expired.status();
  QueueCounts counts = Counts();
  AttributeMap all;
  storage::QueueRecord rec;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all = api::RenderQueueConfig(config_);
    rec = record_;
  }
  all[std::string(attr::kApproximateNumberOfMessages)] = std::to_string(counts.visible);
  all[std::string(attr::kApproximateNumberOfMessagesNotVisible)] = std::to_string(counts.not_visible);
  all[std::string(attr::kApproximateNumberOfMessagesDelayed)] = std::to_string(counts.delayed);
  all[std::string(attr::kCreatedTimestamp)] = std::to_string(rec.created_ms / 1000);
  all[std::string(attr::kLastModifiedTimestamp)] = std::to_string(rec.modified_ms / 1000);
  all[std::string(attr::kQueueArn)] = arn_;
  const bool want_all = std::find(names.begin(), names.end(), "All") != names.end();
  for (const auto& [k, v] : all) {
    if (want_all || std::find(names.begin(), names.end(), k) != names.end()) out[k] = v;
  }
  return out;
}

Status QueueImpl::PersistRecordLocked(const storage::QueueRecord& record, bool sync) {
  rocksdb::WriteBatch batch;
  batch.Put(core_->db()->cf(Cf::kCatalog), storage::QueueRecordKey(name_),
            storage::EncodeQueueRecord(record));
  return core_->db()->Write(&batch, sync);
}

Status QueueImpl::ValidateRedriveTargets(const api::QueueConfig& config) const {
  if (!config.redrive_policy) return Status::OK();
  const std::string& target = config.redrive_policy->dead_letter_target_arn;
  const std::string json = api::RedrivePolicyJson(*config.redrive_policy);
  auto invalid = [&](const std::string& reason) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value " + json + " for parameter RedrivePolicy is invalid. Reason: " + reason);
  };
  std::shared_ptr<QueueImpl> dlq = core_->FindByArn(target);
  if (!dlq) return invalid("Dead letter target does not exist.");
  if (dlq->is_fifo() != fifo_) {
    return invalid("Dead-letter target must be the same type of queue as the source queue.");
  }
  api::QueueConfig dlq_config = dlq->config();
  if (dlq_config.redrive_allow_policy) {
    const auto& allow = *dlq_config.redrive_allow_policy;
    const bool allowed =
        allow.redrive_permission == "allowAll" ||
        (allow.redrive_permission == "byQueue" &&
         std::find(allow.source_queue_arns.begin(), allow.source_queue_arns.end(), arn_) !=
             allow.source_queue_arns.end());
    if (!allowed) {
      return invalid("Queue " + target + " does not allow " + arn_ +
                     " as a dead-letter source (RedriveAllowPolicy).");
    }
  }
  return Status::OK();
}

Status QueueImpl::SetAttributes(const AttributeMap& attributes) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (attributes.empty()) {
    return Status(ErrorCode::kMissingParameter, "The request must contain the parameter Attributes.");
  }
  std::lock_guard<std::mutex> catalog(core_->catalog_mutex());
  const api::QueueConfig current = config();
  api::QueueConfig next = current;
  Status st = api::ApplyQueueAttributes(attributes, /*creating=*/false, &next);
  if (!st.ok()) return st;
  st = api::CheckPolicyLimits(attributes);
  if (!st.ok()) return st;
  st = ValidateRedriveTargets(next);
  if (!st.ok()) return st;
  std::lock_guard<std::mutex> lock(mu_);
  storage::QueueRecord rec = record_;
  AttributeMap rendered = api::RenderQueueConfig(next);
  rec.attributes.assign(rendered.begin(), rendered.end());
  rec.modified_ms = core_->NowMillis();
  api::NoteDeduplicationScopeChange(current, rec.modified_ms, &next);
  rec.deduplication_scope_before = next.deduplication_scope_before;
  rec.deduplication_scope_changed_ms = next.deduplication_scope_changed_ms;
  st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  config_ = next;
  {
    std::lock_guard<std::mutex> c(send_config_mu_);
    send_config_ = std::make_shared<const api::QueueConfig>(std::move(next));
  }
  // A shorter wait or retention may end waits sooner.
  NotifyLocked();
  return Status::OK();
}

Status QueueImpl::TagQueue(const TagMap& tags) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  std::lock_guard<std::mutex> lock(mu_);
  TagMap existing(record_.tags.begin(), record_.tags.end());
  Status st = api::ValidateTags(existing, tags, name_);
  if (!st.ok()) return st;
  for (const auto& [k, v] : tags) existing[k] = v;
  storage::QueueRecord rec = record_;
  rec.tags.assign(existing.begin(), existing.end());
  st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  return Status::OK();
}

Status QueueImpl::UntagQueue(const std::vector<std::string>& keys) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (keys.empty()) {
    return Status(ErrorCode::kMissingParameter, "The request must contain the parameter TagKeys.");
  }
  std::lock_guard<std::mutex> lock(mu_);
  TagMap existing(record_.tags.begin(), record_.tags.end());
  for (const auto& k : keys) existing.erase(k);
  storage::QueueRecord rec = record_;
  rec.tags.assign(existing.begin(), existing.end());
  Status st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  return Status::OK();
}

StatusOr<TagMap> QueueImpl::ListQueueTags() {
  Status live = CheckLive();
  if (!live.ok()) return live;
  std::lock_guard<std::mutex> lock(mu_);
  return TagMap(record_.tags.begin(), record_.tags.end());
}

Status QueueImpl::AddPermission(const std::string& label,
                                const std::vector<std::string>& account_ids,
                                const std::vector<std::string>& actions) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  std::lock_guard<std::mutex> lock(mu_);
  StatusOr<std::string> policy = api::PolicyAddPermission(
      config_.policy, arn_, core_->options().account_id, label, account_ids, actions);
  if (!policy.ok()) return policy.status();
  return SetAttributesLockedPolicy(*policy);
}

Status QueueImpl::RemovePermission(const std::string& label) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  std::lock_guard<std::mutex> lock(mu_);
  StatusOr<std::string> policy = api::PolicyRemovePermission(config_.policy, label);
  if (!policy.ok()) return policy.status();
  return SetAttributesLockedPolicy(*policy);
}

Status QueueImpl::SetAttributesLockedPolicy(const std::string& policy) {
  api::QueueConfig next = config_;
  next.policy = policy;
  storage::QueueRecord rec = record_;
  AttributeMap rendered = api::RenderQueueConfig(next);
  rec.attributes.assign(rendered.begin(), rendered.end());
  rec.modified_ms = core_->NowMillis();
  Status st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  config_ = next;
  std::lock_guard<std::mutex> c(send_config_mu_);
  send_config_ = std::make_shared<const api::QueueConfig>(std::move(next));
  return Status::OK();
}

}  // namespace lqs::engine
