// lib/engine/queue_dead_letter.cc — moving a message into the queue's
// dead-letter queue, as part of another call's WriteBatch: a receive that
// finds a message at maxReceiveCount, and MoveToDeadLetterQueue
// (consumer_support.cc). Members of QueueImpl (queue_impl.h).
//
// Contract: PrepareDeadLetterLocked, MoveToDeadLetter and FinishDeadLetter
// run under the source's mu_, in that order, around one write. The DLQ's
// gate is only try-locked (shared) and then kept in the DeadLetterMove until
// FinishDeadLetter; its pending_mu_ registers the insert like a send. A move
// the DLQ cannot take now returns false and changes nothing.

#include "lib/api/message_rules.h"
#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/fifo/dedup_table.h"
#include "lib/storage/keys.h"

namespace lqs::engine {

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
  if (!m->gate.held()) {
    // Never wait for another queue's gate while holding our mutex: if the
    // DLQ is being purged or deleted, the message waits for the next receive.
    if (!m->gate.TryAcquire(&dlq->gate_) || !dlq->CheckLive().ok()) return false;
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
      notify::MutexLock lock(&dlq->pending_mu_);
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
      notify::MutexLock lock(&dlq->pending_mu_);
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
  batch->Merge(core_->db()->cf(Cf::kCounters), storage::CounterKey(m->dlq->id_), m->delta.Encode());
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
  m->gate.Release();
}

}  // namespace lqs::engine
