// lib/engine/consumer_support.cc — Queue's consumer-support extensions: the
// idempotency inbox and the immediate dead-letter move (see lqs/queue.h).
// Members of QueueImpl; see queue_impl.h for the locking rules and
// lib/storage/keys.h for the `inbox` column family. The dead-letter move's
// building blocks are in queue_dead_letter.cc.
//
// The inbox holds, per queue, one record per key (its expiry time) and one
// sweep-index entry per record (keyed by that expiry). Every inbox write
// happens under the queue's mu_, from the read of the old record to the
// write (the delete path holds it across its write; the send path's
// recorder takes it; so does the sweep). A record and its index entry
// therefore always change together (renewing a key deletes its old index
// entry in the same batch), and a sweep never deletes a record that a send
// renewed after the sweep read it.

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include <rocksdb/write_batch.h>

#include "lib/api/message_rules.h"
#include "lib/engine/handle_errors.h"
#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

#include "lqs/limits.h"

namespace lqs::engine {

namespace {

using limits::kMaxIdempotencyKeyBytes;
using limits::kMaxInboxTtlSeconds;

Status ValidateIdempotencyKey(const std::string& key) {
  if (key.empty() || key.size() > kMaxIdempotencyKeyBytes) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value (" + std::to_string(key.size()) +
                      " bytes) for parameter IdempotencyKey is invalid. Reason: an idempotency "
                      "key must be 1 to " +
                      std::to_string(kMaxIdempotencyKeyBytes) + " bytes long.");
  }
  return Status::OK();
}

Status ValidateTtl(int64_t ttl_seconds) {
  if (ttl_seconds < 1 || ttl_seconds > kMaxInboxTtlSeconds) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value " + std::to_string(ttl_seconds) +
                      " for parameter TtlSeconds is invalid. Reason: Must be between 1 and " +
                      std::to_string(kMaxInboxTtlSeconds) + " seconds.");
  }
  return Status::OK();
}

// The receipt-handle errors InvalidHandle, ForeignHandle and ExpiredHandle
// are those of DeleteMessage and ChangeMessageVisibility (handle_errors.h);
// this one is the consumer-support calls' own.
Status NotLeased(const std::string& handle) {
  return Status(ErrorCode::kInvalidParameterValue,
                "Value " + handle +
                    " for parameter ReceiptHandle is invalid. Reason: Message does not exist or "
                    "is not in flight under this receipt handle.");
}

}  // namespace

// ---- Idempotency inbox -----------------------------------------------------------

Status QueueImpl::DeleteMessageAndRecord(const std::string& receipt_handle,
                                         const std::string& idempotency_key, int64_t ttl_seconds) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (Status st = ValidateIdempotencyKey(idempotency_key); !st.ok()) return st;
  if (Status st = ValidateTtl(ttl_seconds); !st.ok()) return st;
  // Runs under mu_, after the handle passed DeleteMessage's rules.
  return DeleteOne(receipt_handle, InboxRecorder({idempotency_key}, ttl_seconds, MuHeld::kYes));
}

Status QueueImpl::CheckTxInboxRecord(const std::string& idempotency_key,
                                     int64_t ttl_seconds) const {
  if (Status st = ValidateIdempotencyKey(idempotency_key); !st.ok()) return st;
  return ValidateTtl(ttl_seconds);
}

QueueImpl::AlsoWrite QueueImpl::InboxRecorder(std::vector<std::string> idempotency_keys,
                                              int64_t ttl_seconds, MuHeld held) {
  return [this, keys = std::move(idempotency_keys), ttl_seconds, held](
             rocksdb::WriteBatch* batch, int64_t now, bool must_sync) {
    const int64_t expiry = now + ttl_seconds * 1000;
    if (held == MuHeld::kNo) {
      notify::MutexLock lock(&mu_);
      return RecordAndWriteLocked(keys, expiry, batch, must_sync);
    }
    // A std::function hides its caller's locks from the analysis: MuHeld
    // states them.
    mu_.AssertHeld();
    return RecordAndWriteLocked(keys, expiry, batch, must_sync);
  };
}

Status QueueImpl::RecordAndWriteLocked(const std::vector<std::string>& idempotency_keys,
                                       int64_t expiry, rocksdb::WriteBatch* batch, bool must_sync) {
  for (const std::string& key : idempotency_keys) {
    if (Status st = RecordInInbox(batch, key, expiry); !st.ok()) return st;
  }
  return core_->db()->Write(batch, must_sync);
}

Status QueueImpl::RecordInInbox(rocksdb::WriteBatch* batch, const std::string& idempotency_key,
                                int64_t expiry) {
  storage::Database* db = core_->db();
  const std::string record_key = storage::InboxRecordKey(id_, idempotency_key);
  std::string old;
  bool found = false;
  Status st = db->Get(Cf::kInbox, record_key, &old, &found);
  if (!st.ok()) return st;
  if (found) {
    // Renewal: the record moves to its new place in the sweep index.
    int64_t old_expiry = 0;
    if (!storage::DecodeInboxValue(old, &old_expiry)) {
      return Status(ErrorCode::kCorruption, "an inbox record of queue " + name_ + " is corrupt");
    }
    batch->Delete(db->cf(Cf::kInbox), storage::InboxIndexKey(id_, old_expiry, idempotency_key));
  }
  batch->Put(db->cf(Cf::kInbox), record_key, storage::EncodeInboxValue(expiry));
  batch->Put(db->cf(Cf::kInbox), storage::InboxIndexKey(id_, expiry, idempotency_key),
             rocksdb::Slice());
  return Status::OK();
}

StatusOr<std::optional<SendMessageResult>> QueueImpl::SendMessageAndRecord(
    const SendMessageRequest& request, const std::string& idempotency_key, int64_t ttl_seconds) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (Status st = ValidateIdempotencyKey(idempotency_key); !st.ok()) return st;
  StatusOr<std::vector<RecordedSend>> out =
      SendAndRecord({&request, 1}, {&idempotency_key, 1}, ttl_seconds);
  if (!out.ok()) return out.status();
  RecordedSend& entry = (*out)[0];
  if (!entry.status.ok()) return entry.status;
  return std::move(entry.sent);
}

StatusOr<std::vector<RecordedSend>> QueueImpl::SendMessagesAndRecord(
    const std::vector<SendMessageRequest>& requests,
    const std::vector<std::string>& idempotency_keys, int64_t ttl_seconds) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (requests.size() != idempotency_keys.size() ||
      requests.size() > static_cast<size_t>(limits::kMaxBatchEntries)) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "SendMessagesAndRecord takes as many IdempotencyKeys as requests, at most " +
                      std::to_string(limits::kMaxBatchEntries) + "; got " +
                      std::to_string(requests.size()) + " requests and " +
                      std::to_string(idempotency_keys.size()) + " keys.");
  }
  return SendAndRecord(requests, idempotency_keys, ttl_seconds);
}

StatusOr<std::vector<RecordedSend>> QueueImpl::SendAndRecord(
    std::span<const SendMessageRequest> requests, std::span<const std::string> idempotency_keys,
    int64_t ttl_seconds) {
  if (Status st = ValidateTtl(ttl_seconds); !st.ok()) return st;
  const api::QueueConfig config = *SendConfig();
  std::vector<RecordedSend> out(requests.size());
  bool any_valid = false;
  for (size_t i = 0; i < requests.size(); ++i) {
    out[i].status = ValidateIdempotencyKey(idempotency_keys[i]);
    if (out[i].status.ok()) {
      out[i].status = api::ValidateSendMessage(requests[i], config, /*in_batch=*/false);
    }
    any_valid = any_valid || out[i].status.ok();
  }
  if (!any_valid) return out;
  // Pulled messages are sends like any other: the storage budget refuses them.
  Status room = core_->db()->CheckBudget();
  if (!room.ok()) return room;
  notify::MutexLock lock(&record_send_mu_);
  std::vector<const SendMessageRequest*> to_send;
  std::vector<size_t> sent_index;  // into out, by to_send's order
  std::set<std::string> keys;      // the keys this call records
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!out[i].status.ok() || keys.count(idempotency_keys[i]) != 0) continue;
    StatusOr<bool> seen = InboxContains(idempotency_keys[i]);
    if (!seen.ok()) return seen.status();
    if (*seen) continue;
    keys.insert(idempotency_keys[i]);
    to_send.push_back(&requests[i]);
    sent_index.push_back(i);
  }
  if (to_send.empty()) return out;
  const AlsoWrite record = InboxRecorder({keys.begin(), keys.end()}, ttl_seconds, MuHeld::kNo);
  std::vector<SendMessageResult> results;
  Status st = fifo_ ? StoreFifoMessages(to_send, &results, record)
                    : StoreMessages(to_send, &results, record);
  if (!st.ok()) return st;
  for (size_t j = 0; j < results.size(); ++j) out[sent_index[j]].sent = std::move(results[j]);
  return out;
}

StatusOr<bool> QueueImpl::InboxContains(const std::string& idempotency_key) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (Status st = ValidateIdempotencyKey(idempotency_key); !st.ok()) return st;
  std::string value;
  bool found = false;
  Status st =
      core_->db()->Get(Cf::kInbox, storage::InboxRecordKey(id_, idempotency_key), &value, &found);
  if (!st.ok()) return st;
  if (!found) return false;
  int64_t expiry = 0;
  if (!storage::DecodeInboxValue(value, &expiry)) {
    return Status(ErrorCode::kCorruption, "an inbox record of queue " + name_ + " is corrupt");
  }
  // An expired record is absent, swept or not.
  return expiry > core_->NowMillis();
}

StatusOr<int64_t> QueueImpl::ExpireInboxLocked(int64_t now, size_t budget) {
  storage::Database* db = core_->db();
  std::string lo = storage::InboxIndexFrom(id_, inbox_cursor_ms_);
  std::string hi = storage::InboxIndexFrom(id_, now + 1);
  if (lo >= hi) return int64_t{0};
  rocksdb::WriteBatch batch;
  int64_t n = 0;
  int64_t new_cursor = now + 1;  // when the whole range is swept
  storage::RangeIterator it(db, Cf::kInbox, std::move(lo), std::move(hi));
  for (; it.Valid(); it.Next()) {
    storage::DecodedInboxKey k;
    if (!storage::DecodeInboxKey(it.key(), &k) || !k.index) {
      return Status(ErrorCode::kCorruption,
                    "an inbox index entry of queue " + name_ + " is corrupt");
    }
    if (static_cast<size_t>(n) >= budget) {
      new_cursor = k.expiry_ms;  // the rest waits for the next sweep
      break;
    }
    batch.Delete(db->cf(Cf::kInbox), it.key_slice());
    batch.Delete(db->cf(Cf::kInbox), storage::InboxRecordKey(id_, k.key));
    ++n;
  }
  if (Status st = it.status("sweeping the inbox"); !st.ok()) return st;
  if (n > 0) {
    if (inbox_sweep_hook_) inbox_sweep_hook_();
    Status st = db->Write(&batch, /*must_sync=*/false);
    if (!st.ok()) return st;
  }
  // Records are written under mu_ with expiries after their `now`, and the
  // clock never runs backwards: nothing is ever inserted before the cursor.
  inbox_cursor_ms_ = std::max(inbox_cursor_ms_, new_cursor);
  return n;
}

// ---- Immediate dead-letter move -----------------------------------------------------

Status QueueImpl::MoveToDeadLetterQueue(const std::string& receipt_handle,
                                        const MessageAttributeMap& extra_attributes) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  for (const auto& [name, value] : extra_attributes) {
    if (Status st = api::ValidateMessageAttribute(name, value); !st.ok()) return st;
  }
  lease::ReceiptHandle h;
  if (!core_->handles().Decode(receipt_handle, &h)) return InvalidHandle(receipt_handle);
  if (h.queue_id != id_) return ForeignHandle(receipt_handle);

  std::shared_ptr<QueueImpl> wake_dlq;
  // After finding the DLQ's gate taken (a purge or DeleteQueue of the DLQ in
  // progress), the call waits for that gate holding no lock of ours, and
  // keeps it (shared) while it takes mu_ again and retries: the retry cannot
  // find that DLQ busy, so the call ends once the purge or delete has. It
  // waits again only if the RedrivePolicy meanwhile named another DLQ and
  // that one is busy. Holding a gate while waiting for a mu_ is safe because
  // no thread that holds a mu_ ever waits for a gate (queue_impl.h).
  std::shared_ptr<QueueImpl> waited_dlq;
  notify::SharedHold waited_gate;
  while (true) {
    // The DLQ whose gate was busy.
    std::shared_ptr<QueueImpl> busy;
    {
      notify::MutexLock lock(&mu_);
      if (Status st = CheckLive(); !st.ok()) return st;
      if (!config_.redrive_policy) {
        return Status(ErrorCode::kInvalidParameterValue,
                      "The queue " + name_ +
                          " has no RedrivePolicy: there is no dead-letter queue to move the "
                          "message to.");
      }
      const std::string& target_arn = config_.redrive_policy->dead_letter_target_arn;
      const auto dlq_gone = [&target_arn] {
        return Status(ErrorCode::kQueueDoesNotExist, "The dead-letter queue " + target_arn +
                                                         " of the RedrivePolicy does not exist.");
      };

      // Only the current, unexpired lease may move the message.
      const int64_t now = core_->NowMillis();
      const LeaseEntry* current = leases_.Find(h.seq);
      const int64_t retention_cutoff = now - int64_t{config_.message_retention_period} * 1000;
      if (current == nullptr || current->sent_ms <= retention_cutoff) {
        return NotLeased(receipt_handle);
      }
      if (current->receive_count != h.receive_count || current->visible_at_ms <= now) {
        return ExpiredHandle(receipt_handle);
      }
      const LeaseEntry lease = *current;

      DeadLetterMove dm = PrepareDeadLetterLocked();
      if (!dm.dlq) return dlq_gone();
      if (waited_gate.held()) {
        if (dm.dlq == waited_dlq) {
          // The gate we waited for: the DLQ was deleted meanwhile, or it
          // takes the message now.
          if (!dm.dlq->CheckLive().ok()) return dlq_gone();
          dm.gate = std::exchange(waited_gate, notify::SharedHold());
        } else {
          waited_gate.Release();  // the RedrivePolicy names another DLQ now
        }
      }
      storage::Database* db = core_->db();
      rocksdb::WriteBatch batch;
      CounterDelta delta;
      // Try-locks the DLQ's gate unless it is held already (lock order).
      StatusOr<bool> moved =
          MoveToDeadLetter(&dm, h.seq, lease.receive_count, lease.first_receive_ms, lease.sent_ms,
                           now, &batch, &delta, &extra_attributes);
      if (!moved.ok() || !*moved) {
        FinishDeadLetter(&dm, false);
        if (!moved.ok()) return moved.status();
        if (!dm.dlq->CheckLive().ok()) return dlq_gone();
        busy = dm.dlq;
      } else {
        batch.Delete(db->cf(Cf::kInflight), storage::MessageKey(id_, h.seq));
        delta.Add(storage::kLeases, -1);
        batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), delta.Encode());
        AddDeadLetterCounters(&dm, &batch);
        Status st = db->Write(&batch, /*must_sync=*/false);
        FinishDeadLetter(&dm, st.ok());
        if (dlq_wake_) wake_dlq = std::move(dlq_wake_);
        if (!st.ok()) return st;
        // Forgetting the lease also unlocks its FIFO group, and a retried
        // ReceiveRequestAttemptId no longer finds its receive intact.
        ForgetLeaseLocked(h.seq);
        ApplyDelta(delta);
      }
    }
    if (!busy) break;
    if (dead_letter_wait_hook_) dead_letter_wait_hook_();
    waited_gate.Acquire(&busy->gate_);
    waited_dlq = std::move(busy);
  }
  if (wake_dlq) wake_dlq->Notify();
  // A FIFO group may have become receivable.
  if (fifo_) Notify();
  return Status::OK();
}

}  // namespace lqs::engine
