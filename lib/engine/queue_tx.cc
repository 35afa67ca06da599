// lib/engine/queue_tx.cc — a queue's part of a transaction (lqs/transaction.h):
// the call-time checks of its operations, and at commit its sends, deletes
// and visibility changes built into the transaction's one write. Members of
// QueueImpl (queue_impl.h); the transaction itself is in transaction.cc.
//
// A transaction's sends run the send path itself (StoreMessages,
// StoreFifoMessages) with an AlsoWrite that takes the batch over, so they
// hold gate_ shared, register their keys and settle them exactly as a
// plain send does. Deletes and visibility changes are stricter than the
// Queue calls: only the handle of the current, unexpired lease is
// accepted (on standard queues too), because the transaction's other
// changes depend on that delivery; anything else is kTransactionConflict.
// They hold mu_ across the write, like FIFO deletes.

#include <algorithm>

#include "lib/api/message_rules.h"
#include "lib/engine/handle_errors.h"
#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"

#include "lqs/limits.h"

namespace lqs::engine {

namespace {

Status LeaseLost(const std::string& handle, const std::string& why) {
  return Status(ErrorCode::kTransactionConflict,
                "The lease of receipt handle " + handle + " was lost (" + why +
                    "); nothing was applied. Receive the message again and retry the "
                    "transaction.");
}

}  // namespace

Status QueueImpl::CheckTxSend(const SendMessageRequest& request) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  return api::ValidateSendMessage(request, *SendConfig(), /*in_batch=*/false);
}

Status QueueImpl::CheckTxSendBatch(const std::vector<SendMessageBatchEntry>& entries) {
  auto config = CheckSendBatchAsAWhole(entries);
  if (!config.ok()) return config.status();
  for (const auto& e : entries) {
    Status st = api::ValidateSendMessage(e.request, **config, /*in_batch=*/true);
    if (!st.ok()) {
      return Status(st.code(), "Entry " + e.id + " of SendMessageBatch: " + st.message());
    }
  }
  return Status::OK();
}

StatusOr<lease::ReceiptHandle> QueueImpl::CheckTxHandle(const std::string& receipt_handle) const {
  Status live = CheckLive();
  if (!live.ok()) return live;
  lease::ReceiptHandle h;
  if (!core_->handles().Decode(receipt_handle, &h)) return InvalidHandle(receipt_handle);
  if (h.queue_id != id_) return ForeignHandle(receipt_handle);
  return h;
}

Status QueueImpl::TxSend(const std::vector<const SendMessageRequest*>& requests,
                         std::vector<SendMessageResult>* results, const AlsoWrite& write) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  return fifo_ ? StoreFifoMessages(requests, results, write)
               : StoreMessages(requests, results, write);
}

Status QueueImpl::TxHandleOps(const std::vector<TxHandleOp>& ops, const AlsoWrite& write) {
  notify::MutexLock lock(&mu_);
  Status st = CheckLive();
  if (!st.ok()) return st;
  const int64_t now = core_->NowMillis();
  const int64_t retention_cutoff = now - int64_t{config_.message_retention_period} * 1000;
  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch;
  CounterDelta delta;
  std::vector<uint64_t> gone;
  std::vector<std::pair<uint64_t, LeaseEntry>> updates;
  bool wake = false;
  for (const TxHandleOp& op : ops) {
    const uint64_t seq = op.handle.seq;
    // The lease as the transaction found it decides whether it still holds
    // it; an earlier change of this transaction is the base of a later one.
    const LeaseEntry* current = leases_.Find(seq);
    if (current == nullptr || current->sent_ms <= retention_cutoff) {
      return LeaseLost(op.receipt_handle, "the message was deleted, moved or expired");
    }
    if (current->receive_count != op.handle.receive_count) {
      return LeaseLost(op.receipt_handle, "the message was received again");
    }
    if (current->visible_at_ms <= now) {
      return LeaseLost(op.receipt_handle, "its visibility timeout ended");
    }
    if (!op.visibility_timeout) {
      batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
      batch.Delete(db->cf(Cf::kInflight), storage::MessageKey(id_, seq));
      delta.Add(storage::kLeases, -1);
      delta.Add(storage::kDeletedTotal, 1);
      gone.push_back(seq);
      if (!op.inbox_key.empty()) {
        st = RecordInInbox(&batch, op.inbox_key, now + op.inbox_ttl_seconds * 1000);
        if (!st.ok()) return st;
      }
      continue;
    }
    LeaseEntry lease = *current;
    for (const auto& [s, pending] : updates) {
      if (s == seq) lease = pending;
    }
    const int64_t timeout_ms = int64_t{*op.visibility_timeout} * 1000;
    // As ChangeMessageVisibility: the lease's run counts in whole seconds.
    const int64_t elapsed_ms = (now - lease.lease_start_ms) / 1000 * 1000;
    if (elapsed_ms + timeout_ms > kMaxLeaseMs) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "Value " + std::to_string(*op.visibility_timeout) +
                        " for parameter VisibilityTimeout is invalid. Reason: Total "
                        "VisibilityTimeout for the message is beyond the limit [" +
                        std::to_string(limits::kMaxVisibilityTimeoutSeconds) + " seconds]");
    }
    if (now + timeout_ms < lease.visible_at_ms) wake = true;
    lease.visible_at_ms = now + timeout_ms;
    batch.Put(db->cf(Cf::kInflight), storage::MessageKey(id_, seq), storage::EncodeLease(lease));
    bool replaced = false;
    for (auto& [s, pending] : updates) {
      if (s == seq) {
        pending = lease;
        replaced = true;
      }
    }
    if (!replaced) updates.emplace_back(seq, lease);
  }
  if (!gone.empty()) {
    batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), delta.Encode());
  }
  st = write(&batch, now, /*must_sync=*/false);
  if (!st.ok()) return st;
  for (const auto& [seq, lease] : updates) leases_.Put(seq, lease);
  for (uint64_t seq : gone) ForgetLeaseLocked(seq);
  ApplyDelta(delta);
  // A shortened lease, or a FIFO group unlocked by a delete, may be what a
  // parked long poll waits for.
  if (wake || (fifo_ && !gone.empty())) NotifyLocked();
  return Status::OK();
}

}  // namespace lqs::engine
