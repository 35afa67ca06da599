// lib/engine/queue_impl.h — a queue on the column families of
// lib/storage/keys.h. One class, its members defined by concern, one file
// each (every file's header comment says what it holds):
//
//   queue_impl.cc         construction, loading at open, counters
//   queue_send.cc         the send path (standard and fair queues)
//   fifo_queue.cc         FIFO sends (deduplication) and FIFO receives
//   queue_receive.cc      ReceiveMessage / ReceiveMessageAsync: one attempt
//                         function for the blocking and the parked receive
//   queue_receive_scan.cc one receive attempt's scan and leases
//   fair_queue.cc         message groups in the receive path
//   queue_delete.cc       DeleteMessage, ChangeMessageVisibility (+ batches)
//   queue_dead_letter.cc  moving a message into the dead-letter queue
//   queue_retention.cc    retention expiry, PurgeQueue, DeleteQueue
//   queue_redrive.cc      move tasks' moves out of a queue
//   queue_attributes.cc   attributes, tags and permissions
//   queue_ops.cc          GetStats and ScanMessages
//   consumer_support.cc   the idempotency inbox, MoveToDeadLetterQueue
//   queue_tx.cc           a queue's part of a transaction
//
// Every change of a message's state is one WriteBatch. In-memory state
// (leases, cursor, counters) changes only after its batch was written, so a
// failed write leaves both disk and memory as they were.
//
// Locking, checked by Clang's -Wthread-safety (the annotations below):
//   gate_  shared by sends, dead-letter inserts and standard queues'
//          deletes, exclusive for purge and DeleteQueue, so those see no
//          half-finished send or delete. It guards no data.
//   mu_    the lease table, cursors, config and record; held by receive,
//          change-visibility and FIFO deletes across their write. A standard
//          queue's delete claims its leases under mu_ (takes them out of the
//          lease table) and writes after releasing it.
//   pending_mu_  the keys of sends not yet written, the delayed buckets and
//          the FIFO dedup window; a leaf lock (except Core::AllocateSeqs),
//          held across one write: the dedup sweep's deletes (ExpireDedup).
//   send_config_mu_  the copy of the config that sends use; a leaf.
// Order: gate_ before mu_ before pending_mu_; never two queues' mu_, except
// in a transaction's commit (queue_tx.cc, transaction.cc): serialised by the
// Core's transaction mutex, it takes the gates of the queues it sends to,
// then the mu_ of the queues whose leases it ends or changes, each set in
// queue id order, and holds them all across its one write.
// A dead-letter move holds the source's mu_ and try-locks the DLQ's gate_
// (shared): when it cannot, a receive leaves the message where it is for the
// next receive. MoveToDeadLetterQueue instead waits for the DLQ's gate
// holding nothing, then takes the source's mu_ while holding that gate: the
// one place where a gate is held while a mu_ is waited for, which cannot
// deadlock because no receive, delete or visibility change that holds a mu_
// waits for a gate. The DLQ's gate travels in the move's state
// (notify::SharedHold), which the analysis does not follow.
// A move task (MoveMessagesOut, queue_redrive.cc) holds the source's mu_
// while each send takes the destination's gate_ shared. Against a purge or
// DeleteQueue of the destination (gate exclusive, then only that queue's
// mu_) this is no cycle. With a MoveToDeadLetterQueue from the source into
// the destination (the source's own DLQ: that gate shared, waiting for the
// source's mu_) and a purge queued for the same gate, it would be one if a
// queued writer blocked new readers; libstdc++'s shared_mutex (a default
// pthread rwlock) prefers readers, so the move task's shared lock is granted.
//
// Ownership: a QueueImpl shares its Core; the Core's catalogue holds the
// queue until DeleteQueue or Close. Errors: every call returns a typed
// Status (kClosed after Close, kQueueDoesNotExist after DeleteQueue,
// kIOError and friends from RocksDB, SQS's codes for invalid requests).

#ifndef LQS_LIB_ENGINE_QUEUE_IMPL_H_
#define LQS_LIB_ENGINE_QUEUE_IMPL_H_

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/functional/function_ref.h>

#include "lib/api/queue_config.h"
#include "lib/engine/core.h"
#include "lib/engine/seq_lane.h"
#include "lib/fifo/dedup_table.h"
#include "lib/fifo/group_table.h"
#include "lib/lease/lease_table.h"
#include "lib/notify/mutex.h"
#include "lib/notify/waiters.h"
#include "lib/storage/counters.h"
#include "lib/storage/records.h"

#include "lqs/queue.h"

namespace rocksdb {
class Iterator;
class ManagedSnapshot;
class Snapshot;
}  // namespace rocksdb

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
  QueueImpl(std::shared_ptr<Core> core, storage::QueueRecord record, api::QueueConfig config);

  // Loads counters, leases and delayed buckets (open time: O(in flight)).
  Status Load() ABSL_LOCKS_EXCLUDED(mu_, pending_mu_);

  // ---- Queue ----
  const std::string& name() const override { return name_; }
  const std::string& arn() const override { return arn_; }
  bool is_fifo() const override { return fifo_; }
  StatusOr<SendMessageResult> SendMessage(const SendMessageRequest& request) override
      ABSL_LOCKS_EXCLUDED(gate_, pending_mu_);
  StatusOr<SendMessageBatchResult> SendMessageBatch(
      const std::vector<SendMessageBatchEntry>& entries) override
      ABSL_LOCKS_EXCLUDED(gate_, pending_mu_);
  StatusOr<ReceiveMessageResult> ReceiveMessage(const ReceiveMessageRequest& request) override
      ABSL_LOCKS_EXCLUDED(mu_);
  uint64_t ReceiveMessageAsync(const ReceiveMessageRequest& request, ReceiveCallback done) override
      ABSL_LOCKS_EXCLUDED(mu_);
  bool CancelReceive(uint64_t receive_id) override;
  Status DeleteMessage(const std::string& receipt_handle) override ABSL_LOCKS_EXCLUDED(gate_, mu_);
  StatusOr<BatchResult> DeleteMessageBatch(
      const std::vector<DeleteMessageBatchEntry>& entries) override ABSL_LOCKS_EXCLUDED(gate_, mu_);
  Status ChangeMessageVisibility(const std::string& receipt_handle, int visibility_timeout) override
      ABSL_LOCKS_EXCLUDED(mu_);
  StatusOr<BatchResult> ChangeMessageVisibilityBatch(
      const std::vector<ChangeMessageVisibilityBatchEntry>& entries) override
      ABSL_LOCKS_EXCLUDED(mu_);
  Status PurgeQueue() override ABSL_LOCKS_EXCLUDED(gate_, mu_);
  Status DeleteMessageAndRecord(const std::string& receipt_handle,
                                const std::string& idempotency_key, int64_t ttl_seconds) override
      ABSL_LOCKS_EXCLUDED(gate_, mu_);
  StatusOr<bool> InboxContains(const std::string& idempotency_key) override;
  StatusOr<std::optional<SendMessageResult>> SendMessageAndRecord(
      const SendMessageRequest& request, const std::string& idempotency_key,
      int64_t ttl_seconds) override ABSL_LOCKS_EXCLUDED(record_send_mu_);
  StatusOr<std::vector<RecordedSend>> SendMessagesAndRecord(
      const std::vector<SendMessageRequest>& requests,
      const std::vector<std::string>& idempotency_keys, int64_t ttl_seconds) override
      ABSL_LOCKS_EXCLUDED(record_send_mu_);
  Status MoveToDeadLetterQueue(const std::string& receipt_handle,
                               const MessageAttributeMap& extra_attributes) override
      ABSL_LOCKS_EXCLUDED(mu_);
  StatusOr<QueueStats> GetStats() override ABSL_LOCKS_EXCLUDED(mu_);
  Status ScanMessages(const std::function<bool(const StoredMessage&)>& fn) override
      ABSL_LOCKS_EXCLUDED(mu_);
  StatusOr<AttributeMap> GetAttributes(const std::vector<std::string>& names) override
      ABSL_LOCKS_EXCLUDED(mu_);
  Status SetAttributes(const AttributeMap& attributes) override ABSL_LOCKS_EXCLUDED(mu_);
  Status TagQueue(const TagMap& tags) override ABSL_LOCKS_EXCLUDED(mu_);
  Status UntagQueue(const std::vector<std::string>& keys) override ABSL_LOCKS_EXCLUDED(mu_);
  StatusOr<TagMap> ListQueueTags() override ABSL_LOCKS_EXCLUDED(mu_);
  Status AddPermission(const std::string& label, const std::vector<std::string>& account_ids,
                       const std::vector<std::string>& actions) override ABSL_LOCKS_EXCLUDED(mu_);
  Status RemovePermission(const std::string& label) override ABSL_LOCKS_EXCLUDED(mu_);

  // ---- Engine-internal ----
  uint64_t id() const { return id_; }
  // The database's state this queue belongs to (for a transaction begun
  // from a queue: NewTransactionFor in transaction.h).
  const std::shared_ptr<Core>& core() const { return core_; }
  api::QueueConfig config() const ABSL_LOCKS_EXCLUDED(mu_);
  storage::QueueRecord record() const ABSL_LOCKS_EXCLUDED(mu_);

  // Removes the queue's data (DeleteQueue). Waits for sends in progress;
  // afterwards every call fails with QueueDoesNotExist.
  Status Destroy(rocksdb::WriteBatch* catalog_changes) ABSL_LOCKS_EXCLUDED(gate_, mu_);

  // Expires up to `budget` messages past retention; returns how many.
  // `reclaim`: also drop persisted delay buckets of the past (maintenance).
  StatusOr<int64_t> ExpireNow(size_t budget, bool reclaim) ABSL_LOCKS_EXCLUDED(mu_);

  // Moves up to `limit` visible messages, oldest first, to `destination`
  // (nullptr: each message's DeadLetterQueueSourceArn queue) as new
  // messages. Returns how many moved; *failure gets the reason it stopped
  // early: AWS.SimpleQueueService.NonExistentQueue (a destination vanished)
  // or CouldNotDetermineMessageSource (no destination given, and a message
  // was sent to this queue directly, so it has no source queue).
  StatusOr<int64_t> MoveMessagesOut(QueueImpl* destination, int64_t limit, std::string* failure)
      ABSL_LOCKS_EXCLUDED(mu_);

  QueueCounts Counts() ABSL_LOCKS_EXCLUDED(mu_);

  // FIFO: forgets deduplication ids whose five minutes ended (maintenance).
  Status ExpireDedupNow() ABSL_LOCKS_EXCLUDED(pending_mu_) {
    return ExpireDedup(core_->NowMillis());
  }

  // Wakes long-polling receivers, blocked and parked (a message may have
  // become receivable, the clock moved, the queue or database is closing).
  void WakeWaiters() ABSL_LOCKS_EXCLUDED(mu_) { Notify(); }
  void Notify() ABSL_LOCKS_EXCLUDED(mu_) {
    waiters_.NotifyAll(&mu_);
    core_->async_receiver().Wake(id_);
  }
  void NotifyLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    waiters_.NotifyAllLocked(&mu_);
    core_->async_receiver().Wake(id_);
  }

  // Checks `config`'s RedrivePolicy against the catalogue (the DLQ exists,
  // has this queue's type, and its RedriveAllowPolicy admits this queue).
  Status SetAttributesCheckOnly(const api::QueueConfig& config) const {
    return ValidateRedriveTargets(config);
  }

  // Whether this queue's RedrivePolicy names `arn` as its DLQ.
  bool HasDeadLetterTarget(const std::string& arn) const ABSL_LOCKS_EXCLUDED(send_config_mu_);

  // ---- Transactions (queue_tx.cc, transaction.cc) ----
  // An `also` (optional) takes over a write (a send's, a delete's): it may add
  // its own changes to the batch and then writes it, in place of
  // Database::Write(batch, must_sync); its error fails the call with nothing
  // written. `now` is the time the call's changes were made at.
  using AlsoWrite = std::function<Status(rocksdb::WriteBatch*, int64_t now, bool must_sync)>;
  // Call-time checks of a transaction's queue operations: the errors the
  // Queue calls give, before anything is recorded.
  Status CheckTxSend(const SendMessageRequest& request) ABSL_LOCKS_EXCLUDED(send_config_mu_);
  Status CheckTxSendBatch(const std::vector<SendMessageBatchEntry>& entries)
      ABSL_LOCKS_EXCLUDED(send_config_mu_);
  // Decodes a handle of this queue; kReceiptHandleIsInvalid otherwise.
  StatusOr<lease::ReceiptHandle> CheckTxHandle(const std::string& receipt_handle) const;
  // One DeleteMessage (no visibility) or ChangeMessageVisibility of a
  // transaction, checked at call time.
  struct TxHandleOp {
    std::string receipt_handle;
    lease::ReceiptHandle handle;
    std::optional<int> visibility_timeout;  // nullopt: delete
    // A delete that also records this key in the inbox (empty: none), for
    // inbox_ttl_seconds from the commit's time (DeleteMessageAndRecord).
    std::string inbox_key;
    int64_t inbox_ttl_seconds = 0;
  };
  // Call-time checks of an inbox record added to a transaction's delete:
  // DeleteMessageAndRecord's errors for the key and the TTL.
  Status CheckTxInboxRecord(const std::string& idempotency_key, int64_t ttl_seconds) const;
  // At commit: stores the messages (validated at call time) and hands the
  // send's batch to `write` (AlsoWrite), holding gate_ shared across it.
  // `write` is not called when nothing is to be written (FIFO duplicates).
  Status TxSend(const std::vector<const SendMessageRequest*>& requests,
                std::vector<SendMessageResult>* results, const AlsoWrite& write)
      ABSL_LOCKS_EXCLUDED(gate_, mu_, pending_mu_);
  // At commit: under mu_, checks that every handle is still its message's
  // current, unexpired lease (else kTransactionConflict), builds the deletes
  // and visibility changes into one batch and hands it to `write`; applies
  // them in memory once it returned OK.
  Status TxHandleOps(const std::vector<TxHandleOp>& ops, const AlsoWrite& write)
      ABSL_LOCKS_EXCLUDED(gate_, mu_);

  // ---- Test seams (tests/dead_letter_test.cc) ----
  // Takes this queue's gate exclusively, as a purge or DeleteQueue in
  // progress holds it, until the returned hold is destroyed.
  notify::ExclusiveHold LockGateForTest() { return notify::ExclusiveHold(&gate_); }
  // `hook` runs on the calling thread, holding no lock, each time this
  // queue's MoveToDeadLetterQueue found its DLQ's gate taken, right before it
  // waits for that gate. Not synchronised: set it before the calls it
  // observes start.
  void SetDeadLetterWaitHookForTest(std::function<void()> hook) {
    dead_letter_wait_hook_ = std::move(hook);
  }
  // `hook` runs inside each inbox sweep that found records to drop, after it
  // read them and before its write, holding mu_. Not synchronised, as above.
  void SetInboxSweepHookForTest(std::function<void()> hook) { inbox_sweep_hook_ = std::move(hook); }

 private:
  struct Taken {
    uint64_t seq;
    storage::LeaseEntry lease;
    // The record, when the receive read it already (messages queued by seq).
    std::optional<storage::Message> message = std::nullopt;
  };

  // ---- Shared (queue_impl.cc, queue_attributes.cc) ----
  Status CheckLive() const;
  Status ValidateRedriveTargets(const api::QueueConfig& config) const;
  Status PersistRecordLocked(const storage::QueueRecord& record, bool sync)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyDelta(const storage::CounterDelta& delta);
  // Replaces the Policy attribute.
  Status SetAttributesLockedPolicy(const std::string& policy) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Adds to `batch` the inbox record of `idempotency_key`, expiring at
  // `expiry` (ms), moving a recorded key's sweep entry (consumer_support.cc).
  // Under mu_ from its read of the old record to the batch's write: the sweep
  // (ExpireInboxLocked) deletes records under mu_, so it cannot delete a
  // record renewed between its read and its write.
  Status RecordInInbox(rocksdb::WriteBatch* batch, const std::string& idempotency_key,
                       int64_t expiry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // An AlsoWrite that records each of `idempotency_keys` (distinct) for
  // `ttl_seconds` from the write's time. Whether the write it takes over runs
  // under mu_ already (the delete path) or the recorder takes mu_ around the
  // records and the write (the send path, which holds only gate_ shared).
  enum class MuHeld : bool { kNo, kYes };
  AlsoWrite InboxRecorder(std::vector<std::string> idempotency_keys, int64_t ttl_seconds,
                          MuHeld held);
  // InboxRecorder's body: records each key until `expiry` (ms) in `batch`
  // and writes it.
  Status RecordAndWriteLocked(const std::vector<std::string>& idempotency_keys, int64_t expiry,
                              rocksdb::WriteBatch* batch, bool must_sync)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // SendMessage(s)AndRecord after their call-level checks (CheckLive, and
  // the sizes or the single key): `requests[i]` with `idempotency_keys[i]`.
  StatusOr<std::vector<RecordedSend>> SendAndRecord(std::span<const SendMessageRequest> requests,
                                                    std::span<const std::string> idempotency_keys,
                                                    int64_t ttl_seconds)
      ABSL_LOCKS_EXCLUDED(record_send_mu_);

  // ---- Send path (queue_send.cc, fifo_queue.cc) ----
  // The attributes sends use (a consistent copy).
  std::shared_ptr<const api::QueueConfig> SendConfig() const ABSL_LOCKS_EXCLUDED(send_config_mu_) {
    notify::MutexLock lock(&send_config_mu_);
    return send_config_;
  }
  // What fails a whole SendMessageBatch (or a transaction's), in SQS's order,
  // before any entry is checked on its own: a closed or deleted queue, the
  // entry ids, the total size, and on a FIFO queue any entry without its
  // group or deduplication id. Returns the config to check the entries with.
  StatusOr<std::shared_ptr<const api::QueueConfig>> CheckSendBatchAsAWhole(
      const std::vector<SendMessageBatchEntry>& entries) ABSL_LOCKS_EXCLUDED(send_config_mu_);
  // Stores the messages (validated already) and wakes receivers. Takes
  // gate_ shared. On failure nothing is stored and *results is empty.
  Status StoreMessages(const std::vector<const SendMessageRequest*>& requests,
                       std::vector<SendMessageResult>* results, const AlsoWrite& also = {})
      ABSL_LOCKS_EXCLUDED(gate_, pending_mu_);
  Status WriteSends(const api::QueueConfig& config,
                    const std::vector<const SendMessageRequest*>& requests,
                    std::vector<SendMessageResult>* results, const AlsoWrite& also)
      ABSL_SHARED_LOCKS_REQUIRED(gate_) ABSL_LOCKS_EXCLUDED(pending_mu_);
  // Registers a delayed send's key; returns `visible_at`.
  int64_t RegisterPending(int64_t visible_at, uint64_t seq)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(pending_mu_);
  void FinishPending(int64_t visible_at, uint64_t seq, int64_t bucket_second)
      ABSL_LOCKS_EXCLUDED(pending_mu_);
  // The grouped (FIFO or fair-queue) twin: unregisters, and when written,
  // tells the next receive that the group has new messages.
  void FinishPendingGrouped(const std::string& group, uint64_t seq, bool written)
      ABSL_LOCKS_EXCLUDED(pending_mu_);
  // Called by a source queue when it inserted a dead-letter message here.
  void AcceptInserted(const storage::CounterDelta& delta);
  // FIFO: StoreMessages with deduplication.
  Status StoreFifoMessages(const std::vector<const SendMessageRequest*>& requests,
                           std::vector<SendMessageResult>* results, const AlsoWrite& also = {})
      ABSL_LOCKS_EXCLUDED(gate_, pending_mu_);
  // *wrote: whether anything new was stored (duplicates store nothing, and
  // a batch of duplicates only writes nothing, `also` included).
  Status WriteFifoSends(const api::QueueConfig& config,
                        const std::vector<const SendMessageRequest*>& requests,
                        std::vector<SendMessageResult>* results, const AlsoWrite& also, bool* wrote)
      ABSL_SHARED_LOCKS_REQUIRED(gate_) ABSL_LOCKS_EXCLUDED(pending_mu_);

  // ---- Receive (queue_receive.cc) ----
  // When a receive of `request` that starts now stops waiting.
  int64_t ReceiveDeadlineLocked(const ReceiveMessageRequest& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a receive of `request` is a long poll (its wait time, or the
  // queue's default, is positive). At the in-flight limit a long poll gets
  // no messages, where a short poll fails with OverLimit
  // (docs/sqs-reference.md §7.5).
  bool IsLongPollLocked(const ReceiveMessageRequest& request) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One receive attempt, shared by the blocking ReceiveMessage and the
  // parked ReceiveMessageAsync. Returns the receive's outcome when it is
  // done: OK with the leased messages in *taken (none once `deadline` has
  // passed or the queue was deleted), or an error. Returns nullopt when it
  // should wait: nothing is receivable now and *next_check_ms says when
  // something may become so. A DLQ that got messages is left in *wake_dlq
  // for the caller to wake after releasing mu_. `long_poll`: the receive's
  // IsLongPollLocked (which waits at the in-flight limit, and at its
  // deadline ends with no messages, instead of failing).
  std::optional<Status> AttemptReceiveLocked(const ReceiveMessageRequest& request, int64_t deadline,
                                             bool long_poll, std::vector<Taken>* taken,
                                             int64_t* next_check_ms,
                                             std::shared_ptr<QueueImpl>* wake_dlq)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // AttemptReceiveLocked for a parked receive: takes mu_, wakes the DLQ and
  // shapes the result; nullopt: stay parked until *next_check_ms.
  std::optional<StatusOr<ReceiveMessageResult>> ReceiveOnce(const ReceiveMessageRequest& request,
                                                            int64_t deadline, bool long_poll,
                                                            int64_t* next_check_ms)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The earliest of `deadline`, the next lease end and the next delay end.
  int64_t NextWakeLocked(int64_t now, int64_t deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reads the bodies of leased messages (those it has no record of yet),
  // shapes the response, and moves the records out of `taken`.
  StatusOr<ReceiveMessageResult> BuildResult(std::vector<Taken>& taken,
                                             const ReceiveMessageRequest& request);

  // ---- Receive scan and leases (queue_receive_scan.cc, fair_queue.cc) ----
  Status TryReceiveLocked(const ReceiveMessageRequest& request, int64_t now, bool long_poll,
                          std::vector<Taken>* taken) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AdvanceCursorLocked(int64_t ms, uint64_t seq) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the seq cursor (messages queued by seq) forward and forgets the
  // taken-ahead seqs it passed.
  void AdvanceSeqCursorLocked(uint64_t seq) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a message queued by seq at or above the seq cursor is leased
  // (see ahead_).
  bool TakenAheadLocked(uint64_t seq) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return ahead_.count(seq) != 0;
  }
  // Removes a lease from the lease table (and its FIFO group).
  void ForgetLeaseLocked(uint64_t seq) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- Dead-letter moves (queue_dead_letter.cc) ----
  // One receive's moves to the dead-letter queue.
  struct DeadLetterMove {
    std::shared_ptr<QueueImpl> dlq;  // null: no RedrivePolicy or no such queue
    int max_receives = 0;
    notify::SharedHold gate;                                // the DLQ's, shared
    std::vector<std::pair<int64_t, uint64_t>> inserts;      // standard DLQ keys
    std::vector<std::pair<std::string, uint64_t>> grouped;  // FIFO DLQ keys
    storage::CounterDelta delta;                            // the DLQ's counters
  };
  DeadLetterMove PrepareDeadLetterLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds to `batch` the move of message `seq` into the DLQ (the caller
  // deletes the source's index entry). False: the DLQ cannot take it now.
  // `extra_attributes` (optional, already validated) are merged into the
  // moved message's attributes, overwriting same-named ones.
  StatusOr<bool> MoveToDeadLetter(DeadLetterMove* m, uint64_t seq, uint32_t receive_count,
                                  int64_t first_receive_ms, int64_t sent_ms, int64_t now,
                                  rocksdb::WriteBatch* batch, storage::CounterDelta* delta,
                                  const MessageAttributeMap* extra_attributes = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddDeadLetterCounters(DeadLetterMove* m, rocksdb::WriteBatch* batch);
  // After the write: settles the DLQ's pending inserts and releases its gate.
  void FinishDeadLetter(DeadLetterMove* m, bool ok) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

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
  Status CommitReceiveLocked(ReceiveContext* ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  enum class EntryOutcome { kTaken, kDropped, kBlocked };
  // Handles one queued index entry (`key` in `cf`; an empty `key`: a message
  // queued by seq, which has no index entry): expires it, moves it to the
  // DLQ, or leases it into ctx->taken. kBlocked: the DLQ could not take it
  // now; the entry stays.
  StatusOr<EntryOutcome> TakeQueuedLocked(ReceiveContext* ctx, storage::Cf cf,
                                          const rocksdb::Slice& key, uint64_t seq,
                                          const storage::VisibleEntry& e, const std::string& group)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What TakeQueuedLocked and TakeLeasedLocked do before leasing message
  // `seq` (sent at `sent_ms`, received `receive_count` times, first at
  // `first_receive_ms`): ends it when it has expired (deletes it) or has used
  // up its receives with a DLQ (moves it there), calling `drop` to remove the
  // entry the caller found it by. Returns that outcome, or nullopt when the
  // message is to be leased.
  StatusOr<std::optional<EntryOutcome>> EndExpiredOrDeadLocked(
      ReceiveContext* ctx, uint64_t seq, int64_t sent_ms, uint32_t receive_count,
      int64_t first_receive_ms, absl::FunctionRef<void()> drop) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Checks the in-flight limit and fills *ctx for a receive; ctx->want == 0
  // means nothing may be taken (a long poll at the limit).
  Status StartReceiveLocked(const ReceiveMessageRequest& request, int64_t now, bool long_poll,
                            std::vector<Taken>* taken, ReceiveContext* ctx)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Handles a leased message whose lease ended: expires it, moves it to the
  // DLQ, or leases it again into ctx->taken.
  StatusOr<EntryOutcome> TakeLeasedLocked(ReceiveContext* ctx, uint64_t seq)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fair queues: takes at most one message from each group in the rotation
  // (standard queues with MessageGroupId).
  Status TakeFromGroupsRoundLocked(ReceiveContext* ctx, const rocksdb::Snapshot* snapshot,
                                   const absl::flat_hash_map<std::string, uint64_t>& pending_floor,
                                   bool* progress) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves groups written to since the last receive into groups_, captures
  // pending sends per group, and takes a snapshot consistent with them (each
  // group is then read through its own bounded iterator, so no scan runs
  // into the next group's deleted entries).
  std::unique_ptr<rocksdb::ManagedSnapshot> SnapshotGroupsLocked(
      absl::flat_hash_map<std::string, uint64_t>* pending_floor) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_)
      ABSL_LOCKS_EXCLUDED(pending_mu_);
  Status LoadGroups() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- Delete and change visibility (queue_delete.cc) ----
  // The typed outcome of a call on receipt handles: each entry failed with
  // its Status, or succeeded. The batch calls render it as a BatchResult;
  // the single calls return the entry's Status itself.
  struct HandleResults {
    std::vector<std::pair<const std::string*, Status>> failed;  // entry id, why
    std::vector<const std::string*> ok;                         // entry ids
  };
  // What a single call returns: the run's own error (`run`), else its one
  // entry's Status.
  static Status SingleOutcome(const Status& run, const HandleResults& r);
  // What a batch call returns: the run's own error (`run`), else each entry's
  // outcome as a BatchResult.
  static StatusOr<BatchResult> BatchOutcome(const Status& run, const HandleResults& r);
  // A delete's `also` runs under mu_, when every entry passed.
  // DeleteMessageBatch's body. A non-OK Status fails the whole call.
  Status DeleteEntries(const std::vector<DeleteMessageBatchEntry>& entries, const AlsoWrite& also,
                       HandleResults* out) ABSL_LOCKS_EXCLUDED(gate_, mu_);
  // DeleteMessage (one handle) through DeleteEntries, its Status typed.
  Status DeleteOne(const std::string& receipt_handle, const AlsoWrite& also)
      ABSL_LOCKS_EXCLUDED(gate_, mu_);
  // What a delete writes, found under mu_.
  struct DeletePlan {
    int64_t now = 0;
    std::vector<std::pair<const std::string*, uint64_t>> targets;  // entry id, seq
    rocksdb::WriteBatch batch;
    storage::CounterDelta delta;
    std::vector<uint64_t> gone;                                     // leases it ends
    std::vector<std::pair<uint64_t, storage::LeaseEntry>> claimed;  // when claiming
  };
  // Checks the handles and fills *plan; `claim`: also keeps copies of the
  // leases it ends (to give them back if the write fails).
  Status PlanDeleteLocked(const std::vector<DeleteMessageBatchEntry>& entries, bool claim,
                          HandleResults* out, DeletePlan* plan) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A standard queue's plain delete: claims the leases under mu_, writes
  // holding only the gate.
  Status DeleteClaimed(const std::vector<DeleteMessageBatchEntry>& entries, HandleResults* out)
      ABSL_SHARED_LOCKS_REQUIRED(gate_) ABSL_LOCKS_EXCLUDED(mu_);
  // FIFO deletes and deletes with `also`: mu_ across the write.
  Status DeleteHoldingLocked(const std::vector<DeleteMessageBatchEntry>& entries,
                             const AlsoWrite& also, HandleResults* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // ChangeMessageVisibilityBatch's body. A non-OK Status fails the whole call.
  Status ChangeVisibilityEntries(const std::vector<ChangeMessageVisibilityBatchEntry>& entries,
                                 HandleResults* out) ABSL_LOCKS_EXCLUDED(mu_);

  // ---- Retention and stats (queue_retention.cc, queue_ops.cc) ----
  StatusOr<int64_t> ExpireLocked(int64_t now, size_t budget) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_)
      ABSL_LOCKS_EXCLUDED(pending_mu_);
  int64_t DelayedCountLocked(int64_t now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_)
      ABSL_LOCKS_EXCLUDED(pending_mu_);
  // Send time of the oldest message still in the queue, or -1.
  int64_t OldestSentLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- Consumer support (consumer_support.cc) ----
  // Drops up to `budget` inbox records that expired by `now`, through the
  // sweep index.
  StatusOr<int64_t> ExpireInboxLocked(int64_t now, size_t budget)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- FIFO (fifo_queue.cc) ----
  Status TryReceiveFifoLocked(const ReceiveMessageRequest& request, int64_t now, bool long_poll,
                              std::vector<Taken>* taken) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status LoadFifo() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) ABSL_LOCKS_EXCLUDED(pending_mu_);
  // Drops dedup ids whose window ended (memory and disk, the disk's write
  // under pending_mu_: see fifo_queue.cc).
  Status ExpireDedup(int64_t now) ABSL_LOCKS_EXCLUDED(pending_mu_);

  const std::shared_ptr<Core> core_;
  const uint64_t id_;
  const std::string name_;
  const std::string arn_;
  const bool fifo_;

  mutable notify::SharedMutex gate_ ABSL_ACQUIRED_BEFORE(mu_);
  std::function<void()> dead_letter_wait_hook_;  // SetDeadLetterWaitHookForTest
  std::function<void()> inbox_sweep_hook_;       // SetInboxSweepHookForTest
  std::atomic<bool> deleted_{false};
  // Whether any message with a MessageGroupId was ever queued here (fair
  // queues); until then standard receives skip the group machinery.
  std::atomic<bool> uses_groups_{false};
  // Whether this queue's counter record has the seq cursor's slot yet.
  std::atomic<bool> seq_slot_written_{false};

  mutable notify::Mutex mu_ ABSL_ACQUIRED_BEFORE(pending_mu_, send_config_mu_);
  notify::WaitList waiters_;  // blocked receivers, waiting on mu_
  api::QueueConfig config_ ABSL_GUARDED_BY(mu_);
  storage::QueueRecord record_ ABSL_GUARDED_BY(mu_);
  lease::LeaseTable leases_ ABSL_GUARDED_BY(mu_);
  int64_t cursor_ms_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t cursor_seq_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t expiry_cursor_ms_ ABSL_GUARDED_BY(mu_) = 0;
  // Messages queued by seq (seq_lane.h): every one below seq_cursor_ is
  // leased or gone. ahead_: those at or above it that are leased (taken
  // while an earlier send was unwritten); a receive passes them over.
  uint64_t seq_cursor_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<uint64_t> ahead_ ABSL_GUARDED_BY(mu_);
  int64_t last_expire_ms_ ABSL_GUARDED_BY(mu_) = 0;  // last retention sweep
  // Inbox sweep index entries before this expiry are all gone (memory only:
  // after a reopen the first sweep starts from 0).
  int64_t inbox_cursor_ms_ ABSL_GUARDED_BY(mu_) = 0;
  // A DLQ that received messages during TryReceiveLocked; its waiters are
  // woken once mu_ is released.
  std::shared_ptr<QueueImpl> dlq_wake_ ABSL_GUARDED_BY(mu_);
  // A copy of config_ for sends, which do not take mu_.
  mutable notify::Mutex send_config_mu_;
  std::shared_ptr<const api::QueueConfig> send_config_ ABSL_GUARDED_BY(send_config_mu_);

  // Serializes SendMessageAndRecord's check of the inbox with its write, so
  // that two of them with one key cannot both send. Taken before gate_.
  notify::Mutex record_send_mu_;

  notify::Mutex pending_mu_;
  std::multiset<std::pair<int64_t, uint64_t>> pending_ ABSL_GUARDED_BY(pending_mu_);
  // Sends queued by seq, not yet written.
  std::set<uint64_t> pending_by_seq_ ABSL_GUARDED_BY(pending_mu_);
  std::map<int64_t, int64_t> buckets_ ABSL_GUARDED_BY(pending_mu_);

  std::array<std::atomic<int64_t>, storage::kNumSlots> counters_{};

  // Grouped sends (FIFO and fair queues) registered and not yet written (per
  // group), groups written to since the last receive, the dedup window.
  absl::flat_hash_map<std::string, std::multiset<uint64_t>> fifo_pending_
      ABSL_GUARDED_BY(pending_mu_);
  std::vector<std::pair<std::string, uint64_t>> fifo_new_ ABSL_GUARDED_BY(pending_mu_);
  fifo::DedupTable dedup_ ABSL_GUARDED_BY(pending_mu_);
  // FIFO: group state, and receives by ReceiveRequestAttemptId.
  fifo::GroupTable groups_ ABSL_GUARDED_BY(mu_);
  struct ReceiveAttempt {
    int64_t created_ms = 0;
    std::vector<std::pair<uint64_t, storage::LeaseEntry>> items;
  };
  std::map<std::string, ReceiveAttempt> attempts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_QUEUE_IMPL_H_
