// FIFO queues: the send path with deduplication, and the receive path with
// message groups (strict order within a group; a group is locked past its
// first message in flight). Members of QueueImpl; see queue_impl.h for the
// locking rules and lib/storage/keys.h for the `grouped` and `dedup` column
// families. Sends decide deduplication and group order under pending_mu_
// and write holding gate_ shared; receives run under mu_.

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocksdb/iterator.h>
#include <rocksdb/snapshot.h>

#include "lib/api/message_rules.h"
#include "lib/engine/ids.h"
#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

#include "lqs/attributes.h"

namespace lqs::engine {

namespace {

// How many groups one receive looks at, at most.
constexpr size_t kMaxGroupsPerReceive = 4096;
constexpr int64_t kAttemptWindowMs = limits::kReceiveAttemptWindowMs;

}  // namespace

Status QueueImpl::StoreFifoMessages(const std::vector<const SendMessageRequest*>& requests,
                                    std::vector<SendMessageResult>* results,
                                    const AlsoWrite& also) {
  std::shared_ptr<const api::QueueConfig> config = SendConfig();
  Status st;
  bool wrote = false;
  {
    notify::ReaderMutexLock gate(&gate_);
    st = WriteFifoSends(*config, requests, results, also, &wrote);
  }
  if (wrote) Notify();
  return st;
}

Status QueueImpl::WriteFifoSends(const api::QueueConfig& config,
                                 const std::vector<const SendMessageRequest*>& requests,
                                 std::vector<SendMessageResult>* results, const AlsoWrite& also,
                                 bool* wrote) {
  Status live = CheckLive();
  if (!live.ok()) return live;

  const size_t n = requests.size();
  // A DeduplicationScope set less than a minute ago is not in effect yet.
  const bool per_group = api::DeduplicationKeyScope(config, core_->NowMillis()) == "messageGroup";
  struct Plan {
    std::string group;
    std::string dedup_id;
    std::string dedup_key;
    bool duplicate = false;
    uint64_t seq = 0;
    storage::DedupEntry entry;
  };
  std::vector<Plan> plans(n);
  for (size_t i = 0; i < n; ++i) {
    const SendMessageRequest& r = *requests[i];
    plans[i].group = r.message_group_id.value_or("");
    plans[i].dedup_id =
        r.message_deduplication_id ? *r.message_deduplication_id : api::Sha256Hex(r.body);
    plans[i].dedup_key = fifo::DedupScopeKey(per_group, plans[i].group, plans[i].dedup_id);
  }
  int64_t now = 0;
  size_t fresh = 0;
  {
    // Deduplication and group order are decided here, atomically: a send
    // registers its seq in its group before writing, and receives never
    // pass a group's pending send.
    notify::MutexLock lock(&pending_mu_);
    now = core_->NowMillis();
    for (Plan& p : plans) {
      if (std::optional<storage::DedupEntry> seen = dedup_.Find(p.dedup_key, now)) {
        p.duplicate = true;
        p.entry = std::move(*seen);
      } else {
        ++fresh;
      }
    }
    if (fresh > 0) {
      StatusOr<uint64_t> first = core_->AllocateSeqs(fresh);
      if (!first.ok()) return first.status();
      uint64_t next = *first;
      for (Plan& p : plans) {
        if (p.duplicate) continue;
        // A repeat inside this same batch is a duplicate of the first.
        if (std::optional<storage::DedupEntry> seen = dedup_.Find(p.dedup_key, now)) {
          p.duplicate = true;
          p.entry = std::move(*seen);
          continue;
        }
        p.seq = next++;
        p.entry.first_ms = now;
        p.entry.message_id = NewMessageId();
        p.entry.sequence_number = fifo::FormatSequenceNumber(p.seq);
        dedup_.Put(p.dedup_key, p.entry);  // the sequence number is FormatSequenceNumber's
        fifo_pending_[p.group].insert(p.seq);
      }
    }
  }

  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch(SendBatchBytes(requests));
  CounterDelta delta;
  results->clear();
  results->reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const SendMessageRequest& r = *requests[i];
    const Plan& p = plans[i];
    SendMessageResult result;
    result.message_id = p.entry.message_id;
    result.md5_of_message_body = api::Md5Hex(r.body);
    if (!r.message_attributes.empty()) {
      result.md5_of_message_attributes = api::Md5OfMessageAttributes(r.message_attributes);
    }
    if (!r.message_system_attributes.empty()) {
      result.md5_of_message_system_attributes =
          api::Md5OfMessageAttributes(r.message_system_attributes);
    }
    result.sequence_number = p.entry.sequence_number;
    results->push_back(std::move(result));
    if (p.duplicate) continue;  // accepted, not enqueued again

    storage::Message m;
    m.message_id = p.entry.message_id;
    m.md5_of_body = results->back().md5_of_message_body;
    m.attributes = r.message_attributes;
    if (!r.message_attributes.empty())
      m.md5_of_attributes = *results->back().md5_of_message_attributes;
    auto trace = r.message_system_attributes.find(std::string(attr::kAWSTraceHeader));
    if (trace != r.message_system_attributes.end()) m.aws_trace_header = trace->second.string_value;
    m.message_group_id = p.group;
    m.message_deduplication_id = p.dedup_id;
    m.sequence_number = p.entry.sequence_number;
    m.sent_timestamp_ms = now;
    m.sender_id = core_->options().sender_id;
    storage::PutMessage(&batch, db->cf(Cf::kMessages), storage::MessageKey(id_, p.seq), m, r.body);
    VisibleEntry e;
    e.sent_ms = now;
    e.has_expiry_entry = true;
    batch.Put(db->cf(Cf::kGrouped), storage::GroupedKey(id_, p.group, p.seq),
              storage::EncodeVisible(e));
    batch.Put(db->cf(Cf::kExpiry), storage::TimeKey(id_, now, p.seq),
              storage::ExpiryValueGrouped(p.group));
    batch.Put(db->cf(Cf::kDedup), storage::DedupKey(id_, p.dedup_key),
              storage::EncodeDedup(p.entry));
    delta.Add(storage::kStored, 1);
    delta.Add(storage::kSentTotal, 1);
  }
  Status st;
  if (fresh > 0) {
    batch.Merge(db->cf(Cf::kCounters), storage::CounterKey(id_), delta.Encode());
    st = also ? also(&batch, now, /*must_sync=*/true) : db->Write(&batch, /*must_sync=*/true);
  }
  for (const Plan& p : plans) {
    if (p.duplicate || p.seq == 0) continue;
    FinishPendingGrouped(p.group, p.seq, st.ok());
    if (!st.ok()) {
      notify::MutexLock lock(&pending_mu_);
      dedup_.Erase(p.dedup_key);  // nothing was stored: the id is free again
    }
  }
  if (!st.ok()) {
    results->clear();
    return st;
  }
  if (fresh > 0) {
    ApplyDelta(delta);
    *wrote = true;
  }
  return Status::OK();
}

Status QueueImpl::TryReceiveFifoLocked(const ReceiveMessageRequest& request, int64_t now,
                                       bool long_poll, std::vector<Taken>* taken) {
  if (now - last_expire_ms_ >= 1000) {
    StatusOr<int64_t> expired = ExpireLocked(now, kExpireBudgetPerReceive);
    if (!expired.ok()) return expired.status();
    last_expire_ms_ = now;
  }
  storage::Database* db = core_->db();
  const int64_t lease_ms =
      int64_t{request.visibility_timeout.value_or(config_.visibility_timeout)} * 1000;

  // A retried receive (same ReceiveRequestAttemptId within five minutes)
  // returns the same messages with the same receipt handles, and restarts
  // their leases — unless one of them was deleted or changed since.
  for (auto it = attempts_.begin(); it != attempts_.end();) {
    it = now - it->second.created_ms >= kAttemptWindowMs ? attempts_.erase(it) : std::next(it);
  }
  const std::string attempt_id = request.receive_request_attempt_id.value_or("");
  if (!attempt_id.empty()) {
    auto it = attempts_.find(attempt_id);
    if (it != attempts_.end()) {
      bool intact = true;
      for (const auto& [seq, lease] : it->second.items) {
        const LeaseEntry* current = leases_.Find(seq);
        if (current == nullptr || current->receive_count != lease.receive_count ||
            current->visible_at_ms != lease.visible_at_ms) {
          intact = false;
        }
      }
      if (intact) {
        rocksdb::WriteBatch batch;
        std::vector<Taken> again;
        for (const auto& [seq, lease] : it->second.items) {
          LeaseEntry renewed = lease;
          renewed.visible_at_ms = now + lease_ms;
          batch.Put(db->cf(Cf::kInflight), storage::MessageKey(id_, seq),
                    storage::EncodeLease(renewed));
          again.push_back({seq, renewed});
        }
        if (!again.empty()) {
          Status st = db->Write(&batch, /*must_sync=*/false);
          if (!st.ok()) return st;
        }
        it->second.items.clear();
        for (const Taken& t : again) {
          leases_.Put(t.seq, t.lease);
          it->second.items.emplace_back(t.seq, t.lease);
        }
        *taken = std::move(again);
        return Status::OK();
      }
      attempts_.erase(it);
    }
  }

  ReceiveContext ctx;
  Status start = StartReceiveLocked(request, now, long_poll, taken, &ctx);
  if (!start.ok() || ctx.want == 0) return start;
  // FIFO queues apply the queue's delay retroactively, from the send time.
  const int64_t delay_ms = int64_t{config_.delay_seconds} * 1000;

  // Learn of groups written to since the last receive, and take the
  // iterator's snapshot together with the pending sends it cannot see yet.
  absl::flat_hash_map<std::string, uint64_t> pending_floor;
  std::unique_ptr<rocksdb::ManagedSnapshot> snapshot = SnapshotGroupsLocked(&pending_floor);
  std::vector<const std::string*> rotation;  // the list is not changed until ApplyPlans
  groups_.VisitRotation(kMaxGroupsPerReceive, [&rotation](const std::string& group) {
    rotation.push_back(&group);
    return true;
  });

  for (const std::string* group_ptr : rotation) {
    const std::string& group = *group_ptr;
    if (ctx.full()) break;
    fifo::GroupState* g = groups_.Find(group);
    if (g == nullptr) continue;
    bool blocked = false, served = false, exhausted = false;
    uint64_t new_cursor = g->cursor;
    // 1. The group's leased messages come first in group order. One whose
    //    lease ended is at the head again; one still leased locks the group.
    for (uint64_t seq : std::vector<uint64_t>(g->leased.begin(), g->leased.end())) {
      if (leases_.Find(seq)->visible_at_ms > now || ctx.full()) {
        blocked = true;
        break;
      }
      StatusOr<EntryOutcome> outcome = TakeLeasedLocked(&ctx, seq);
      if (!outcome.ok()) return outcome.status();
      if (*outcome == EntryOutcome::kBlocked) {
        blocked = true;
        break;
      }
      if (*outcome == EntryOutcome::kTaken) served = true;
    }
    // 2. Then its queued messages, in order, up to the first that is not
    //    available (a pending send, the queue's delay, or a full receive).
    if (!blocked && g->may_have_queued) {
      const auto floor_it = pending_floor.find(group);
      const uint64_t floor =
          floor_it == pending_floor.end() ? std::numeric_limits<uint64_t>::max() : floor_it->second;
      exhausted = true;
      // Bounded to the group: the scan never runs into the next group's
      // consumed (deleted) entries.
      storage::RangeIterator it(db, Cf::kGrouped, storage::GroupedKey(id_, group, g->cursor),
                                storage::GroupEnd(id_, group), snapshot->snapshot());
      for (; it.Valid(); it.Next()) {
        uint64_t qid = 0, seq = 0;
        std::string key_group;
        VisibleEntry e;
        if (!storage::DecodeGroupedKey(it.key(), &qid, &key_group, &seq) ||
            !storage::DecodeVisible(it.value(), &e)) {
          return Status(ErrorCode::kCorruption, "grouped entry of queue " + name_ + " is corrupt");
        }
        if (seq > floor || e.sent_ms + delay_ms > now || ctx.full()) {
          exhausted = false;
          break;
        }
        StatusOr<EntryOutcome> outcome =
            TakeQueuedLocked(&ctx, Cf::kGrouped, it.key_slice(), seq, e, group);
        if (!outcome.ok()) return outcome.status();
        if (*outcome == EntryOutcome::kBlocked) {
          exhausted = false;
          break;
        }
        if (*outcome == EntryOutcome::kTaken) served = true;
        new_cursor = seq + 1;
      }
      if (Status st = it.status("receiving"); !st.ok()) return st;
    }
    groups_.Plan(group, new_cursor, exhausted, served);
  }

  if (ctx.delta.empty() && ctx.dl.delta.empty()) {
    groups_.ApplyPlans();  // nothing changed on disk; keep what the scan learned
    return Status::OK();
  }
  if (Status st = CommitReceiveLocked(&ctx); !st.ok()) return st;
  if (!attempt_id.empty() && !taken->empty()) {
    ReceiveAttempt& a = attempts_[attempt_id];
    a.created_ms = now;
    a.items.clear();
    for (const Taken& t : *taken) a.items.emplace_back(t.seq, t.lease);
  }
  return Status::OK();
}

Status QueueImpl::LoadFifo() {
  // Leases were loaded with their groups; now find the groups that have
  // queued messages, one seek per group (not per message).
  for (const auto& [seq, group] : [this] {
         std::vector<std::pair<uint64_t, std::string>> v;
         mu_.AssertHeld();  // called right here, under mu_
         leases_.ForEach([&v](uint64_t s, const LeaseEntry& l) { v.emplace_back(s, l.group); });
         return v;
       }()) {
    groups_.AddLeased(group, seq);
  }
  Status st = LoadGroups();
  if (!st.ok()) return st;

  // The deduplication window, in acceptance order (the table forgets from
  // its oldest end). Records whose window ended while the queue was closed
  // are loaded too, so that the next ExpireDedup deletes them from disk with
  // the rest (Find no longer matches them).
  std::vector<std::pair<std::string, storage::DedupEntry>> window;
  storage::RangeIterator dit(core_->db(), Cf::kDedup, storage::QueuePrefix(id_),
                             storage::QueueEnd(id_));
  for (; dit.Valid(); dit.Next()) {
    storage::DedupEntry e;
    if (!storage::DecodeDedup(dit.value(), &e)) {
      return Status(ErrorCode::kCorruption, "dedup entry of queue " + name_ + " is corrupt");
    }
    window.emplace_back(std::string(dit.key().substr(8)), std::move(e));
  }
  st = dit.status("loading the deduplication window");
  if (!st.ok()) return st;
  std::stable_sort(window.begin(), window.end(), [](const auto& a, const auto& b) {
    return a.second.first_ms < b.second.first_ms;
  });
  notify::MutexLock lock(&pending_mu_);
  for (const auto& [key, e] : window) {
    if (!dedup_.Put(key, e)) {
      return Status(ErrorCode::kCorruption,
                    "dedup entry of queue " + name_ + " has a malformed sequence number");
    }
  }
  return Status::OK();
}

Status QueueImpl::ExpireDedup(int64_t now) {
  // The deletes are written under pending_mu_, where sends decide: a send
  // that accepts a forgotten id again decides after this write, so its own
  // record (written after its decision) is never the one deleted here. If
  // the write fails, the records stay on disk, and the next open loads them
  // and this sweep deletes them then.
  notify::MutexLock lock(&pending_mu_);
  std::vector<std::string> keys = dedup_.TakeExpired(now, 100000);
  if (keys.empty()) return Status::OK();
  rocksdb::WriteBatch batch;
  for (const std::string& k : keys) {
    batch.Delete(core_->db()->cf(Cf::kDedup), storage::DedupKey(id_, k));
  }
  return core_->db()->Write(&batch, /*must_sync=*/false);
}

}  // namespace lqs::engine
