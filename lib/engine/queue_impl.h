// lib/engine/queue_impl.h — a standard queue on the column families of
// lib/storage/keys.h: the send path, the lease manager's receive / delete /
// change-visibility, dead-letter moves, retention, purge and attributes.
//
// Every change of a message's state is one WriteBatch. In-memory state
// (leases, cursor, counters) changes only after its batch was written, so a
// failed write leaves both disk and memory as they were.
//
// Locking (always in this order; never hold two queues' `mu_`):
//   gate_  shared by sends, dead-letter inserts and standard queues'
//          deletes, exclusive for purge and DeleteQueue, so those see no
//          half-finished send or delete.
//   mu_    the lease table, cursor, config and record; held by receive,
//          change-visibility and FIFO deletes across their write. A standard
//          queue's delete claims its leases under mu_ (takes them out of the
//          lease table) and writes after releasing it.
//   pending_mu_  the keys of sends not yet written and the delayed buckets;
//          a leaf lock.
// A dead-letter move holds the source's mu_ and try-locks the DLQ's gate_
// (shared): when it cannot, a receive leaves the message where it is for the
// next receive. MoveToDeadLetterQueue instead waits for the DLQ's gate
// holding nothing, then takes the source's mu_ while holding that gate: the
// one place where a gate is held while a mu_ is waited for, which cannot
// deadlock because no thread that holds a mu_ ever waits for a gate.

#ifndef LQS_LIB_ENGINE_QUEUE_IMPL_H_
#define LQS_LIB_ENGINE_QUEUE_IMPL_H_

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "lib/api/queue_config.h"
#include "lib/engine/core.h"
#include "lib/engine/seq_lane.h"
#include "lib/fifo/dedup_table.h"
#include "lib/fifo/group_table.h"
#include "lib/lease/lease_table.h"
#include "lib/notify/waiters.h"
#include "lib/storage/counters.h"
#include "lib/storage/records.h"

#include "lqs/queue.h"

namespace rocksdb {
class Iterator;
class ManagedSnapshot;
class Snapshot;
}

namespace lqs::engine {

// A live snapshot of a queue's counters (for attributes, stats, verify).
struct QueueCounts {
  int64_t visible = 0;
  int64_t not_visible = 0;
  int64_t delayed = 0;
  std::array<int64_t, storage::kNumSlots> slots{};
};

class QueueImpl final : public Queue, public std::enable_shared_from_this<QueueImpl> {
 public:
  QueueImpl(std::shared_ptr<Core> core, storage::QueueRecord record,
            api::QueueConfig config);

  // Loads counters, leases and delayed buckets (open time: O(in flight)).
  Status Load();

  // ---- Queue ----
  const std::string& name() const override { return name_; }
  const std::string& arn() const override { return arn_; }
  bool is_fifo() const override { return fifo_; }
  StatusOr<SendMessageResult> SendMessage(const SendMessageRequest& request) override;
  StatusOr<SendMessageBatchResult> SendMessageBatch(
      const std::vector<SendMessageBatchEntry>& entries) override;
  StatusOr<ReceiveMessageResult> ReceiveMessage(
      const ReceiveMessageRequest& request) override;
  uint64_t ReceiveMessageAsync(const ReceiveMessageRequest& request,
                               ReceiveCallback done) override;
  bool CancelReceive(uint64_t receive_id) override;
  Status DeleteMessage(const std::string& receipt_handle) override;
  StatusOr<BatchResult> DeleteMessageBatch(
      const std::vector<DeleteMessageBatchEntry>& entries) override;
  Status ChangeMessageVisibility(const std::string& receipt_handle,
                                 int visibility_timeout) override;
  StatusOr<BatchResult> ChangeMessageVisibilityBatch(
      const std::vector<ChangeMessageVisibilityBatchEntry>& entries) override;
  Status PurgeQueue() override;
  Status DeleteMessageAndRecord(const std::string& receipt_handle,
                                const std::string& idempotency_key,
                                int64_t ttl_seconds) override;
  StatusOr<bool> InboxContains(const std::string& idempotency_key) override;
  Status MoveToDeadLetterQueue(const std::string& receipt_handle,
                               const MessageAttributeMap& extra_attributes) override;
  StatusOr<QueueStats> GetStats() override;
  Status ScanMessages(const std::function<bool(const StoredMessage&)>& fn) override;
  StatusOr<AttributeMap> GetAttributes(const std::vector<std::string>& names) override;
  Status SetAttributes(const AttributeMap& attributes) override;
  Status TagQueue(const TagMap& tags) override;
  Status UntagQueue(const std::vector<std::string>& keys) override;
  StatusOr<TagMap> ListQueueTags() override;
  Status AddPermission(const std::string& label,
                       const std::vector<std::string>& account_ids,
                       const std::vector<std::string>& actions) override;
  Status RemovePermission(const std::string& label) override;

  // ---- Engine-internal ----
  uint64_t id() const { return id_; }
  api::QueueConfig config() const;
  storage::QueueRecord record() const;

  // Removes the queue's data (DeleteQueue). Waits for sends in progress;
  // afterwards every call fails with QueueDoesNotExist.
  Status Destroy(rocksdb::WriteBatch* catalog_changes);

  // Expires up to `budget` messages past retention; returns how many.
  // `reclaim`: also drop persisted delay buckets of the past (maintenance).
  StatusOr<int64_t> ExpireNow(size_t budget, bool reclaim);

  // Moves up to `limit` visible messages, oldest first, to `destination`
  // (nullptr: each message's DeadLetterQueueSourceArn queue) as new
  // messages. Returns how many moved; *failure gets the reason it stopped
  // early: AWS.SimpleQueueService.NonExistentQueue (a destination vanished)
  // or CouldNotDetermineMessageSource (no destination given, and a message
  // was sent to this queue directly, so it has no source queue).
  StatusOr<int64_t> MoveMessagesOut(QueueImpl* destination, int64_t limit,
                                    std::string* failure);

  QueueCounts Counts();

  // FIFO: forgets deduplication ids whose five minutes ended (maintenance).
  Status ExpireDedupNow() { return ExpireDedup(core_->NowMillis()); }

  // Wakes long-polling receivers, blocked and parked (a message may have
  // become receivable, the clock moved, the queue or database is closing).
  // Notify: REQUIRES mu_ not held. NotifyLocked: REQUIRES mu_ held.
  void WakeWaiters() { Notify(); }
  void Notify() {
    waiters_.NotifyAll();
    core_->async_receiver().Wake(id_);
  }
  void NotifyLocked() {
    waiters_.NotifyAllLocked();
    core_->async_receiver().Wake(id_);
  }

  // Checks `config`'s RedrivePolicy against the catalogue (the DLQ exists,
  // has this queue's type, and its RedriveAllowPolicy admits this queue).
  Status SetAttributesCheckOnly(const api::QueueConfig& config) const {
    return ValidateRedriveTargets(config);
  }

  // Whether this queue's RedrivePolicy names `arn` as its DLQ.
  bool HasDeadLetterTarget(const std::string& arn) const;

  // ---- Test seams (tests/dead_letter_test.cc) ----
  // Takes this queue's gate exclusively, as a purge or DeleteQueue in
  // progress holds it.
  std::unique_lock<std::shared_mutex> LockGateForTest() {
    return std::unique_lock<std::shared_mutex>(gate_);
  }
  // `hook` runs on the calling thread, holding no lock, each time this
  // queue's MoveToDeadLetterQueue found its DLQ's gate taken, right before it
  // waits for that gate. Not synchronised: set it before the calls it
  // observes start.
  void SetDeadLetterWaitHookForTest(std::function<void()> hook) {
    dead_letter_wait_hook_ = std::move(hook);
  }

 private:
  struct Taken {
    uint64_t seq;
    storage::LeaseEntry lease;
    // The record, when the receive read it already (messages queued by seq).
    std::optional<storage::Message> message = std::nullopt;
  };

  Status CheckLive() const;
  Status ValidateRedriveTargets(const api::QueueConfig& config) const;
  Status PersistRecordLocked(const storage::QueueRecord& record, bool sync);

  // Send path. SendConfig: the attributes sends use (a consistent copy).
  std::shared_ptr<const api::QueueConfig> SendConfig() const {
    std::lock_guard<std::mutex> lock(send_config_mu_);
    return send_config_;
  }
  Status StoreMessages(const std::vector<const SendMessageRequest*>& requests,
                       std::vector<SendMessageResult>* results);
  int64_t RegisterPending(int64_t visible_at, uint64_t seq);
  void FinishPending(int64_t visible_at, uint64_t seq, int64_t bucket_second);
  // The grouped (FIFO or fair-queue) twin: unregisters, and when written,
  // tells the next receive that the group has new messages.
  void FinishPendingGrouped(const std::string& group, uint64_t seq, bool written);
  // Called by a source queue when it inserted a dead-letter message here.
  void AcceptInserted(const storage::CounterDelta& delta);

  // Receive path; REQUIRES mu_.
  Status TryReceiveLocked(const ReceiveMessageRequest& request, int64_t now,
                          bool long_poll, std::vector<Taken>* taken);
  int64_t NextWakeLocked(int64_t now, int64_t deadline);
  // One non-blocking receive attempt for a wait ending at `deadline`:
  // a result (messages, an empty result at the deadline, or an error), or
  // nullopt with *next_check_ms = when something may become visible.
  std::optional<StatusOr<ReceiveMessageResult>> ReceiveOnce(const ReceiveMessageRequest& request,
                                                            int64_t deadline,
                                                            int64_t* next_check_ms);
  // Reads the bodies of leased messages (those it has no record of yet),
  // shapes the response, and moves the records out of `taken`.
  StatusOr<ReceiveMessageResult> BuildResult(std::vector<Taken>& taken,
                                             const ReceiveMessageRequest& request);
  StatusOr<int64_t> ExpireLocked(int64_t now, size_t budget);
  int64_t DelayedCountLocked(int64_t now);
  // Send time of the oldest message still in the queue, or -1.
  int64_t OldestSentLocked();
  void ApplyDelta(const storage::CounterDelta& delta);
  void AdvanceCursorLocked(int64_t ms, uint64_t seq);
  // Moves the seq cursor (messages queued by seq) forward and forgets the
  // taken-ahead seqs it passed; REQUIRES mu_.
  void AdvanceSeqCursorLocked(uint64_t seq);
  // Whether a message queued by seq at or above the seq cursor is leased
  // (see ahead_); REQUIRES mu_.
  bool TakenAheadLocked(uint64_t seq) const { return ahead_.count(seq) != 0; }
  // One receive's moves to the dead-letter queue.
  struct DeadLetterMove {
    std::shared_ptr<QueueImpl> dlq;  // null: no RedrivePolicy or no such queue
    int max_receives = 0;
    std::shared_lock<std::shared_mutex> gate;                  // the DLQ's, shared
    std::vector<std::pair<int64_t, uint64_t>> inserts;         // standard DLQ keys
    std::vector<std::pair<std::string, uint64_t>> grouped;     // FIFO DLQ keys
    storage::CounterDelta delta;                               // the DLQ's counters
  };
  // REQUIRES mu_.
  DeadLetterMove PrepareDeadLetterLocked();
  // Adds to `batch` the move of message `seq` into the DLQ (the caller
  // deletes the source's index entry). False: the DLQ cannot take it now.
  // `extra_attributes` (optional, already validated) are merged into the
  // moved message's attributes, overwriting same-named ones.
  StatusOr<bool> MoveToDeadLetter(DeadLetterMove* m, uint64_t seq, uint32_t receive_count,
                                  int64_t first_receive_ms, int64_t sent_ms, int64_t now,
                                  rocksdb::WriteBatch* batch, storage::CounterDelta* delta,
                                  const MessageAttributeMap* extra_attributes = nullptr);
  void AddDeadLetterCounters(DeadLetterMove* m, rocksdb::WriteBatch* batch);
  // After the write: settles the DLQ's pending inserts; REQUIRES mu_.
  void FinishDeadLetter(DeadLetterMove* m, bool ok);
  // What one receive is building: its batch, counter deltas and leases.
  struct ReceiveContext {
    int64_t now = 0;
    int64_t lease_ms = 0;
    int64_t retention_cutoff = 0;  // sent at or before: expired
    size_t want = 0;
    DeadLetterMove dl;
    rocksdb::WriteBatch batch;
    storage::CounterDelta delta;
    std::vector<uint64_t> leases_gone;
    std::vector<Taken>* taken = nullptr;
    // Fair rounds: where each group continues, and groups found empty.
    absl::flat_hash_map<std::string, uint64_t> group_cursor;
    absl::flat_hash_set<std::string> group_exhausted;
    bool full() const { return taken->size() >= want; }
  };
  // Writes a receive's batch with its counters. Once it is written, applies
  // it in memory: forgets the leases it ended, keeps the new ones (a FIFO
  // group's too), applies the group plans and the counters. On failure
  // nothing is applied, the plans are discarded and ctx->taken is emptied.
  // REQUIRES mu_.
  Status CommitReceiveLocked(ReceiveContext* ctx);
  enum class EntryOutcome { kTaken, kDropped, kBlocked };
  // Handles one queued index entry (`key` in `cf`; an empty `key`: a message
  // queued by seq, which has no index entry): expires it, moves it to the
  // DLQ, or leases it into ctx->taken. kBlocked: the DLQ could not take it
  // now; the entry stays. REQUIRES mu_.
  StatusOr<EntryOutcome> TakeQueuedLocked(ReceiveContext* ctx, storage::Cf cf,
                                          const rocksdb::Slice& key, uint64_t seq,
                                          const storage::VisibleEntry& e, const std::string& group);
  // Checks the in-flight limit and fills *ctx for a receive; ctx->want == 0
  // means nothing may be taken (a long poll at the limit). REQUIRES mu_.
  Status StartReceiveLocked(const ReceiveMessageRequest& request, int64_t now, bool long_poll,
                            std::vector<Taken>* taken, ReceiveContext* ctx);
  // Handles a leased message whose lease ended: expires it, moves it to the
  // DLQ, or leases it again into ctx->taken. REQUIRES mu_.
  StatusOr<EntryOutcome> TakeLeasedLocked(ReceiveContext* ctx, uint64_t seq);
  // Fair queues: takes at most one message from each group in the rotation
  // (standard queues with MessageGroupId). REQUIRES mu_.
  Status TakeFromGroupsRoundLocked(ReceiveContext* ctx, const rocksdb::Snapshot* snapshot,
                                   const absl::flat_hash_map<std::string, uint64_t>& pending_floor,
                                   bool* progress);
  // Moves groups written to since the last receive into groups_, captures
  // pending sends per group, and takes a snapshot consistent with them (each
  // group is then read through its own bounded iterator, so no scan runs
  // into the next group's deleted entries). REQUIRES mu_.
  std::unique_ptr<rocksdb::ManagedSnapshot> SnapshotGroupsLocked(
      absl::flat_hash_map<std::string, uint64_t>* pending_floor);
  Status LoadGroups();

  // Removes a lease from the lease table (and its FIFO group); REQUIRES mu_.
  void ForgetLeaseLocked(uint64_t seq);

  // DeleteMessageBatch, with `also` (optional) adding its own changes to the
  // same batch when every entry passed; `also` runs under mu_ and its error
  // fails the call before anything is written.
  using AlsoWrite = std::function<Status(rocksdb::WriteBatch*, int64_t now)>;
  StatusOr<BatchResult> DeleteMessagesWith(const std::vector<DeleteMessageBatchEntry>& entries,
                                           const AlsoWrite& also);
  // DeleteMessage (one handle) through DeleteMessagesWith.
  Status DeleteOne(const std::string& receipt_handle, const AlsoWrite& also);

  // Consumer support (consumer_support.cc). Drops up to `budget` inbox
  // records that expired by `now`, through the sweep index; REQUIRES mu_.
  StatusOr<int64_t> ExpireInboxLocked(int64_t now, size_t budget);

  // FIFO (fifo_queue.cc).
  Status StoreFifoMessages(const std::vector<const SendMessageRequest*>& requests,
                           std::vector<SendMessageResult>* results);
  Status TryReceiveFifoLocked(const ReceiveMessageRequest& request, int64_t now, bool long_poll,
                              std::vector<Taken>* taken);
  Status LoadFifo();
  // Drops dedup ids whose window ended (memory and disk).
  Status ExpireDedup(int64_t now);

  // Replaces the Policy attribute; REQUIRES mu_.
  Status SetAttributesLockedPolicy(const std::string& policy);

  const std::shared_ptr<Core> core_;
  const uint64_t id_;
  const std::string name_;
  const std::string arn_;
  const bool fifo_;

  mutable std::shared_mutex gate_;
  std::function<void()> dead_letter_wait_hook_;  // SetDeadLetterWaitHookForTest
  std::atomic<bool> deleted_{false};
  // Whether any message with a MessageGroupId was ever queued here (fair
  // queues); until then standard receives skip the group machinery.
  std::atomic<bool> uses_groups_{false};
  // Whether this queue's counter record has the seq cursor's slot yet.
  std::atomic<bool> seq_slot_written_{false};

  mutable std::mutex mu_;
  notify::WaitList waiters_{&mu_};
  api::QueueConfig config_;       // guarded by mu_
  storage::QueueRecord record_;   // guarded by mu_
  lease::LeaseTable leases_;      // guarded by mu_
  int64_t cursor_ms_ = 0;         // guarded by mu_
  uint64_t cursor_seq_ = 0;       // guarded by mu_
  int64_t expiry_cursor_ms_ = 0;  // guarded by mu_
  // Messages queued by seq (seq_lane.h): every one below seq_cursor_ is
  // leased or gone. ahead_: those at or above it that are leased (taken
  // while an earlier send was unwritten); a receive passes them over.
  uint64_t seq_cursor_ = 0;               // guarded by mu_
  std::set<uint64_t> ahead_;              // guarded by mu_
  int64_t last_expire_ms_ = 0;    // guarded by mu_; last retention sweep
  // Inbox sweep index entries before this expiry are all gone (memory only:
  // after a reopen the first sweep starts from 0).
  int64_t inbox_cursor_ms_ = 0;  // guarded by mu_
  // A DLQ that received messages during TryReceiveLocked; its waiters are
  // woken once mu_ is released.
  std::shared_ptr<QueueImpl> dlq_wake_;  // guarded by mu_
  // A copy of config_ for sends, which do not take mu_.
  mutable std::mutex send_config_mu_;
  std::shared_ptr<const api::QueueConfig> send_config_;

  std::mutex pending_mu_;
  std::multiset<std::pair<int64_t, uint64_t>> pending_;  // guarded by pending_mu_
  std::set<uint64_t> pending_by_seq_;  // sends queued by seq, unwritten; pending_mu_
  std::map<int64_t, int64_t> buckets_;                   // guarded by pending_mu_

  std::array<std::atomic<int64_t>, storage::kNumSlots> counters_{};

  // FIFO, guarded by pending_mu_: sends registered and not yet written (per
  // group), groups written to since the last receive, the dedup window.
  absl::flat_hash_map<std::string, std::multiset<uint64_t>> fifo_pending_;
  std::vector<std::pair<std::string, uint64_t>> fifo_new_;
  fifo::DedupTable dedup_;
  // FIFO, guarded by mu_: group state, and receives by ReceiveRequestAttemptId.
  fifo::GroupTable groups_;
  struct ReceiveAttempt {
    int64_t created_ms = 0;
    std::vector<std::pair<uint64_t, storage::LeaseEntry>> items;
  };
  std::map<std::string, ReceiveAttempt> attempts_;
};

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_QUEUE_IMPL_H_
