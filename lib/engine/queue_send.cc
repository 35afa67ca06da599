// lib/engine/queue_send.cc — the send path of standard (and fair) queues:
// SendMessage, SendMessageBatch and the registration of sends not yet
// written, which keeps receives' cursors behind them. Members of QueueImpl
// (queue_impl.h); FIFO sends are in fifo_queue.cc.
//
// A send holds gate_ shared across its write and never takes mu_, so
// producers and consumers do not serialise on each other. Its seqs and clock
// reading are taken together under pending_mu_, where it registers its keys
// before writing and unregisters after. A failed write stores nothing.

#include "lib/api/message_rules.h"
#include "lib/engine/ids.h"
#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"

#include "lqs/attributes.h"

namespace lqs::engine {

int64_t QueueImpl::RegisterPending(int64_t visible_at, uint64_t seq) {
  pending_.emplace(visible_at, seq);
  return visible_at;
}

void QueueImpl::FinishPending(int64_t visible_at, uint64_t seq, int64_t bucket_second) {
  notify::MutexLock lock(&pending_mu_);
  auto it = pending_.find({visible_at, seq});
  if (it != pending_.end()) pending_.erase(it);
  if (bucket_second > 0) buckets_[bucket_second] += 1;
}

void QueueImpl::FinishPendingGrouped(const std::string& group, uint64_t seq, bool written) {
  notify::MutexLock lock(&pending_mu_);
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
                                std::vector<SendMessageResult>* results, const AlsoWrite& also) {
  std::shared_ptr<const api::QueueConfig> config = SendConfig();
  Status st;
  {
    notify::ReaderMutexLock gate(&gate_);
    st = WriteSends(*config, requests, results, also);
  }
  if (st.ok()) Notify();
  return st;
}

Status QueueImpl::WriteSends(const api::QueueConfig& config,
                             const std::vector<const SendMessageRequest*>& requests,
                             std::vector<SendMessageResult>* results, const AlsoWrite& also) {
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
    notify::MutexLock lock(&pending_mu_);
    now = core_->NowMillis();
    StatusOr<uint64_t> seq = core_->AllocateSeqs(n);
    if (!seq.ok()) return seq.status();
    first_seq = *seq;
    for (size_t i = 0; i < n; ++i) {
      int delay = requests[i]->delay_seconds.value_or(config.delay_seconds);
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

  rocksdb::WriteBatch batch(SendBatchBytes(requests));
  CounterDelta delta;
  results->clear();
  results->reserve(n);
  std::vector<int64_t> bucket(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const SendMessageRequest& r = *requests[i];
    const uint64_t seq = first_seq + i;
    storage::Message m;
    m.message_id = NewMessageId();
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
    storage::PutMessage(&batch, core_->db()->cf(Cf::kMessages), storage::MessageKey(id_, seq), m,
                        r.body);
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
      batch.Merge(core_->db()->cf(Cf::kCounters), storage::BucketKey(id_, bucket[i]), one.Encode());
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
  Status st =
      also ? also(&batch, now, /*must_sync=*/true) : core_->db()->Write(&batch, /*must_sync=*/true);
  if (st.ok()) seq_slot_written_.store(true, std::memory_order_relaxed);
  {
    notify::MutexLock lock(&pending_mu_);
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
  return Status::OK();
}

StatusOr<SendMessageResult> QueueImpl::SendMessage(const SendMessageRequest& request) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  const api::QueueConfig config = *SendConfig();
  Status valid = api::ValidateSendMessage(request, config, /*in_batch=*/false);
  if (!valid.ok()) return valid;
  // The storage budget refuses what adds messages, after the request's own
  // errors (a retry would not fix those).
  Status room = core_->db()->CheckBudget();
  if (!room.ok()) return room;
  std::vector<SendMessageResult> results;
  Status st = fifo_ ? StoreFifoMessages({&request}, &results) : StoreMessages({&request}, &results);
  if (!st.ok()) return st;
  return std::move(results[0]);
}

StatusOr<std::shared_ptr<const api::QueueConfig>> QueueImpl::CheckSendBatchAsAWhole(
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
  Status size = api::ValidateBatchSize(total);
  if (!size.ok()) return size;
  std::shared_ptr<const api::QueueConfig> config = SendConfig();
  // On FIFO queues a missing group or deduplication id fails the whole
  // batch, as in SQS.
  for (const auto& e : entries) {
    Status presence = api::ValidateFifoPresence(e.request, *config, /*in_batch=*/true);
    if (!presence.ok()) return presence;
  }
  return config;
}

StatusOr<SendMessageBatchResult> QueueImpl::SendMessageBatch(
    const std::vector<SendMessageBatchEntry>& entries) {
  auto checked = CheckSendBatchAsAWhole(entries);
  if (!checked.ok()) return checked.status();
  const api::QueueConfig& config = **checked;
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
    // Over the storage budget the whole call fails (a 5xx a client retries),
    // rather than each entry.
    Status room = core_->db()->CheckBudget();
    if (!room.ok()) return room;
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

}  // namespace lqs::engine
