// lib/engine/queue_redrive.cc — the per-queue part of move tasks
// (StartMessageMoveTask, lib/engine/move_tasks.cc): moving a queue's
// available messages, oldest first, to a destination queue as new messages.
// Member of QueueImpl (queue_impl.h).
//
// Holds this queue's mu_ throughout; each message is first sent to the
// destination (taking its gate, as any send does) and then removed here, so
// a crash between the two writes duplicates a message, never loses one.

#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

#include "lqs/attributes.h"

namespace lqs::engine {

StatusOr<int64_t> QueueImpl::MoveMessagesOut(QueueImpl* destination, int64_t limit,
                                             std::string* failure) {
  notify::MutexLock lock(&mu_);
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
        if (e.has_expiry_entry)
          b->Delete(db->cf(Cf::kExpiry), storage::TimeKey(id_, e.sent_ms, seq));
        d->Add(storage::kStored, -1);
      });
      if (!go.ok()) return go.status();
      if (!*go) return moved;
    }
    if (Status st = it.status("moving messages"); !st.ok()) return st;
    if (grouped) continue;
    // A standard queue's messages queued by seq.
    SeqLane lane(db, id_, seq_cursor_, name_);
    // Called by the lane synchronously, under mu_.
    auto taken_ahead = [this](uint64_t seq) {
      mu_.AssertHeld();
      return TakenAheadLocked(seq);
    };
    for (lane.Start(taken_ahead); lane.Valid() && moved < limit; lane.Next(taken_ahead)) {
      StatusOr<bool> go = move_one(
          lane.seq(), [&](rocksdb::WriteBatch*, CounterDelta* d) { d->Add(storage::kStored, -1); });
      if (!go.ok()) return go.status();
      if (!*go) return moved;
    }
    if (!lane.status().ok()) return lane.status();
  }
  return moved;
}

}  // namespace lqs::engine
