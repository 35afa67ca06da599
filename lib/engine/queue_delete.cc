// lib/engine/queue_delete.cc — the calls on receipt handles that end or
// change a lease: DeleteMessage(Batch) and ChangeMessageVisibility(Batch).
// Members of QueueImpl (queue_impl.h).
//
// Errors are typed end to end: each entry's failure is kept as its Status
// (HandleResults); the batch calls render it as BatchResultError, and the
// single calls return it as it is, so kClosed, kQueueDoesNotExist and
// RocksDB's errors reach the caller unchanged.
//
// Locking: a standard queue's plain delete claims its leases under mu_
// (takes them out of the lease table, so no receive, retention sweep or
// visibility change sees them), releases mu_ and writes holding gate_
// shared (purge and DeleteQueue wait for it), and gives the claims back if
// the write fails: receives and deletes of one queue do not wait for each
// other's writes. FIFO deletes (which unlock their group), deletes with an
// `also` (DeleteMessageAndRecord: the inbox record pairs with the check
// before it) and visibility changes hold mu_ across their write.

#include <algorithm>

#include "lib/api/message_rules.h"
#include "lib/engine/handle_errors.h"
#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"

#include "lqs/limits.h"

namespace lqs::engine {

Status QueueImpl::SingleOutcome(const Status& run, const HandleResults& r) {
  if (!run.ok()) return run;
  if (!r.failed.empty()) return r.failed[0].second;
  return Status::OK();
}

StatusOr<BatchResult> QueueImpl::BatchOutcome(const Status& run, const HandleResults& r) {
  if (!run.ok()) return run;
  BatchResult out;
  out.failed.reserve(r.failed.size());
  for (const auto& [id, st] : r.failed) out.failed.push_back(EntryError(*id, st));
  out.successful.reserve(r.ok.size());
  for (const std::string* id : r.ok) out.successful.push_back(*id);
  return out;
}

Status QueueImpl::DeleteMessage(const std::string& receipt_handle) {
  return DeleteOne(receipt_handle, nullptr);
}

Status QueueImpl::DeleteOne(const std::string& receipt_handle, const AlsoWrite& also) {
  HandleResults r;
  const Status st = DeleteEntries({{"0", receipt_handle}}, also, &r);
  return SingleOutcome(st, r);
}

StatusOr<BatchResult> QueueImpl::DeleteMessageBatch(
    const std::vector<DeleteMessageBatchEntry>& entries) {
  HandleResults r;
  const Status st = DeleteEntries(entries, nullptr, &r);
  return BatchOutcome(st, r);
}

Status QueueImpl::DeleteEntries(const std::vector<DeleteMessageBatchEntry>& entries,
                                const AlsoWrite& also, HandleResults* out) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (entries.size() != 1 || entries[0].id != "0") {
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.id);
    Status envelope = api::ValidateBatchIds(ids, "DeleteMessageBatchRequestEntry");
    if (!envelope.ok()) return envelope;
  }
  if (!fifo_ && !also) {
    notify::ReaderMutexLock gate(&gate_);
    return DeleteClaimed(entries, out);
  }
  notify::MutexLock lock(&mu_);
  return DeleteHoldingLocked(entries, also, out);
}

Status QueueImpl::PlanDeleteLocked(const std::vector<DeleteMessageBatchEntry>& entries, bool claim,
                                   HandleResults* out, DeletePlan* plan) {
  Status st = CheckLive();
  if (!st.ok()) return st;
  const int64_t now = core_->NowMillis();
  plan->now = now;
  for (const auto& e : entries) {
    lease::ReceiptHandle h;
    if (!core_->handles().Decode(e.receipt_handle, &h)) {
      out->failed.emplace_back(&e.id, InvalidHandle(e.receipt_handle));
    } else if (h.queue_id != id_) {
      out->failed.emplace_back(&e.id, ForeignHandle(e.receipt_handle));
    } else if (const LeaseEntry* lease = leases_.Find(h.seq);
               fifo_ && lease != nullptr &&
               (lease->receive_count != h.receive_count || lease->visible_at_ms <= now)) {
      // FIFO: only the current, unexpired lease may delete.
      out->failed.emplace_back(&e.id, ExpiredHandle(e.receipt_handle));
    } else {
      plan->targets.emplace_back(&e.id, h.seq);
    }
  }
  storage::Database* db = core_->db();
  for (const auto& [id, seq] : plan->targets) {
    const LeaseEntry* lease = leases_.Find(seq);
    if (lease != nullptr &&
        std::find(plan->gone.begin(), plan->gone.end(), seq) == plan->gone.end()) {
      plan->batch.SingleDelete(db->cf(Cf::kMessages), storage::MessageKey(id_, seq));
      plan->batch.Delete(db->cf(Cf::kInflight), storage::MessageKey(id_, seq));
      plan->delta.Add(storage::kLeases, -1);
      plan->delta.Add(storage::kDeletedTotal, 1);
      plan->gone.push_back(seq);
      if (claim) plan->claimed.emplace_back(seq, *lease);
    }
    // A message that is no longer leased was deleted, expired, purged or
    // moved: deleting it again succeeds, as in SQS.
  }
  if (!plan->gone.empty()) {
    plan->batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), plan->delta.Encode());
  }
  return Status::OK();
}

Status QueueImpl::DeleteClaimed(const std::vector<DeleteMessageBatchEntry>& entries,
                                HandleResults* out) {
  DeletePlan plan;
  {
    notify::MutexLock lock(&mu_);
    Status st = PlanDeleteLocked(entries, /*claim=*/true, out, &plan);
    if (!st.ok()) return st;
    // Claimed: no receive, retention sweep or visibility change sees them
    // now. (A second delete of the same message meanwhile finds no lease
    // and succeeds, as a repeated delete does.)
    for (uint64_t seq : plan.gone) ForgetLeaseLocked(seq);
  }
  if (!plan.gone.empty()) {
    Status st = core_->db()->Write(&plan.batch, /*must_sync=*/false);
    if (!st.ok()) {
      notify::MutexLock lock(&mu_);
      for (const auto& [seq, lease] : plan.claimed) leases_.Put(seq, lease);
      NotifyLocked();  // a restored lease may have ended meanwhile
      return st;
    }
    ApplyDelta(plan.delta);
  }
  for (const auto& [id, seq] : plan.targets) out->ok.push_back(id);
  return Status::OK();
}

Status QueueImpl::DeleteHoldingLocked(const std::vector<DeleteMessageBatchEntry>& entries,
                                      const AlsoWrite& also, HandleResults* out) {
  DeletePlan plan;
  Status st = PlanDeleteLocked(entries, /*claim=*/false, out, &plan);
  if (!st.ok()) return st;
  const bool extra = also && out->failed.empty();
  if (!plan.gone.empty() || extra) {
    st = extra ? also(&plan.batch, plan.now, /*must_sync=*/false)
               : core_->db()->Write(&plan.batch, /*must_sync=*/false);
    if (!st.ok()) return st;
    for (uint64_t seq : plan.gone) ForgetLeaseLocked(seq);
    ApplyDelta(plan.delta);
    // FIFO: a delete unlocks its group, whose next message may be what a
    // parked long poll waits for.
    if (fifo_ && !plan.gone.empty()) NotifyLocked();
  }
  for (const auto& [id, seq] : plan.targets) out->ok.push_back(id);
  return Status::OK();
}

Status QueueImpl::ChangeMessageVisibility(const std::string& receipt_handle,
                                          int visibility_timeout) {
  HandleResults r;
  const Status st = ChangeVisibilityEntries({{"0", receipt_handle, visibility_timeout}}, &r);
  return SingleOutcome(st, r);
}

StatusOr<BatchResult> QueueImpl::ChangeMessageVisibilityBatch(
    const std::vector<ChangeMessageVisibilityBatchEntry>& entries) {
  HandleResults r;
  const Status st = ChangeVisibilityEntries(entries, &r);
  return BatchOutcome(st, r);
}

Status QueueImpl::ChangeVisibilityEntries(
    const std::vector<ChangeMessageVisibilityBatchEntry>& entries, HandleResults* out) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  const bool single = entries.size() == 1 && entries[0].id == "0";
  if (!single) {
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.id);
    Status envelope = api::ValidateBatchIds(ids, "ChangeMessageVisibilityBatchRequestEntry");
    if (!envelope.ok()) return envelope;
  }
  notify::MutexLock lock(&mu_);
  Status st = CheckLive();
  if (!st.ok()) return st;
  const int64_t now = core_->NowMillis();
  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch;
  std::vector<std::pair<uint64_t, LeaseEntry>> updates;
  bool wake = false;
  for (const auto& e : entries) {
    if (e.visibility_timeout) {
      Status range = api::ValidateVisibilityTimeout(*e.visibility_timeout);
      if (!range.ok()) {
        out->failed.emplace_back(&e.id, range);
        continue;
      }
    }
    lease::ReceiptHandle h;
    if (!core_->handles().Decode(e.receipt_handle, &h)) {
      out->failed.emplace_back(&e.id, InvalidHandle(e.receipt_handle));
      continue;
    }
    if (h.queue_id != id_) {
      out->failed.emplace_back(&e.id, ForeignHandle(e.receipt_handle));
      continue;
    }
    const LeaseEntry* current = leases_.Find(h.seq);
    for (const auto& [seq, pending] : updates) {
      if (seq == h.seq) current = &pending;
    }
    if (fifo_ && current != nullptr &&
        (current->receive_count != h.receive_count || current->visible_at_ms <= now)) {
      out->failed.emplace_back(&e.id, ExpiredHandle(e.receipt_handle));
      continue;
    }
    if (current == nullptr) {
      out->failed.emplace_back(
          &e.id, Status(ErrorCode::kInvalidParameterValue,
                        "Value " + e.receipt_handle +
                            " for parameter ReceiptHandle is invalid. Reason: Message does not "
                            "exist or is not available for visibility timeout change."));
      continue;
    }
    if (!e.visibility_timeout) {
      out->ok.push_back(&e.id);
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
      out->failed.emplace_back(
          &e.id, Status(ErrorCode::kInvalidParameterValue,
                        "Value " + std::to_string(*e.visibility_timeout) +
                            " for parameter VisibilityTimeout is invalid. Reason: Total "
                            "VisibilityTimeout for the message is beyond the limit [" +
                            std::to_string(limits::kMaxVisibilityTimeoutSeconds) + " seconds]"));
      continue;
    }
    if (new_end < lease.visible_at_ms || new_end <= now) wake = true;
    lease.visible_at_ms = new_end;
    batch.Put(db->cf(Cf::kInflight), storage::MessageKey(id_, h.seq), storage::EncodeLease(lease));
    updates.emplace_back(h.seq, lease);
    out->ok.push_back(&e.id);
  }
  if (!updates.empty()) {
    st = db->Write(&batch, /*must_sync=*/false);
    if (!st.ok()) return st;
    for (const auto& [seq, lease] : updates) leases_.Put(seq, lease);
  }
  if (wake) NotifyLocked();
  return Status::OK();
}

}  // namespace lqs::engine
