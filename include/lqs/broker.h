// lqs/broker.h — a database of queues.
//
// A Broker owns one database directory. Open it once per process; share the
// Broker (and the Queue handles it gives out) between threads. A second
// process that opens the same directory fails with kDatabaseLocked; to share
// a database between processes, run lqsd and talk to it over HTTP.
//
//   lqs::Options options;
//   options.path = "/var/lib/myapp/queues";
//   auto broker = lqs::Broker::Open(options);
//   if (!broker.ok()) { ... broker.status().ToString() ... }
//   auto queue = (*broker)->CreateQueue("jobs", {}, {});
//
// Thread safety: every method may be called concurrently from any thread.
// Close() must not race with other calls on the same Broker.

#ifndef LQS_BROKER_H_
#define LQS_BROKER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lqs/options.h"
#include "lqs/queue.h"
#include "lqs/status.h"
#include "lqs/transaction.h"
#include "lqs/types.h"

namespace lqs {

class Broker {
 public:
  // Opens (or creates) the database at options.path.
  // Errors: kDatabaseLocked (another process holds it), kIOError,
  // kCorruption (a stored record failed verification; the message names it).
  static StatusOr<std::unique_ptr<Broker>> Open(const Options& options);

  // Closes the database if Close() was not called.
  virtual ~Broker() = default;

  // Flushes and closes the database; wakes long-polling receivers, which
  // return kClosed. Idempotent. Calls after Close() fail with kClosed.
  virtual Status Close() = 0;

  // ---- Queue catalogue ----------------------------------------------------------

  // Creates a queue, or returns the existing one when every attribute given
  // equals the queue's current value (attributes not given are not compared;
  // tags are then ignored). FIFO queues: name ends in ".fifo" and
  // attributes["FifoQueue"] == "true".
  // Errors: InvalidParameterValue (bad name), InvalidAttributeName,
  // InvalidAttributeValue, QueueNameExists (same name, different attribute),
  // QueueDeletedRecently (name deleted < 60 s ago), kIOError.
  virtual StatusOr<std::shared_ptr<Queue>> CreateQueue(const std::string& name,
                                                       const AttributeMap& attributes,
                                                       const TagMap& tags) = 0;

  // The queue called `name` (case-sensitive). Errors: QueueDoesNotExist.
  virtual StatusOr<std::shared_ptr<Queue>> GetQueue(const std::string& name) = 0;

  // Deletes a queue and all its messages. The name cannot be re-created for
  // 60 s (see Options). Errors: QueueDoesNotExist, kIOError.
  virtual Status DeleteQueue(const std::string& name) = 0;

  // Queue names in name order. Without max_results at most 1000 names and no
  // next_token; with it, a next_token iff more remain.
  virtual StatusOr<ListQueuesResult> ListQueues(const ListQueuesRequest& request) = 0;

  // Names of the queues whose RedrivePolicy targets the queue `dlq_name`,
  // paginated like ListQueues. Errors: QueueDoesNotExist.
  virtual StatusOr<ListQueuesResult> ListDeadLetterSourceQueues(
      const std::string& dlq_name, const ListQueuesRequest& request) = 0;

  // The queue whose ARN is `arn`. Errors: QueueDoesNotExist,
  // InvalidParameterValue (not an ARN of this region and account).
  virtual StatusOr<std::shared_ptr<Queue>> GetQueueByArn(const std::string& arn) = 0;

  // ---- Message move tasks (DLQ redrive) ------------------------------------------

  // Starts moving the messages of a dead-letter queue, oldest first, to
  // destination_arn or (when absent) back to each message's source queue, at
  // most max_number_of_messages_per_second. Moved messages are new messages
  // (new MessageId, new SentTimestamp). The task runs in the background
  // thread (or in RunMaintenance) and survives a restart.
  // Errors: ResourceNotFound (no such source or destination),
  // InvalidParameterValue (source not a DLQ, a task already running, bad ARN,
  // rate out of 1..500).
  virtual StatusOr<std::string> StartMessageMoveTask(
      const StartMessageMoveTaskRequest& request) = 0;

  // Cancels a running task; returns the number of messages moved so far.
  // Errors: InvalidParameterValue (undecodable handle), ResourceNotFound
  // (unknown source queue or task, or a task that is no longer running).
  virtual StatusOr<int64_t> CancelMessageMoveTask(const std::string& task_handle) = 0;

  // The most recent tasks of a source queue, newest first (max_results 1..10).
  virtual StatusOr<std::vector<MessageMoveTask>> ListMessageMoveTasks(const std::string& source_arn,
                                                                      int max_results) = 0;

  // ---- Maintenance ------------------------------------------------------------------

  // Runs one pass of what the background thread does: expires messages past
  // retention, advances move tasks, reclaims space (with a storage budget,
  // Options::max_disk_bytes, it flushes and compacts a database at half its
  // budget or more that had messages deleted). Deterministic with a ManualClock, except that
  // the budget's compactions are spaced in real time; safe to call at any
  // time.
  virtual Status RunMaintenance() = 0;

  // Flushes the memtables and compacts the whole database (drops deleted
  // data); with a storage budget, measures the files afresh after. Slow; for
  // operators.
  virtual Status CompactAll() = 0;

  // The bytes the database's files take on disk: with a storage budget
  // (Options::max_disk_bytes) its estimate, which sends are checked against;
  // without one, the table files' size (the log not counted).
  virtual uint64_t DiskBytesInUse() = 0;

  // Walks every queue and checks the invariants (every message in exactly one
  // state; counters agree with the data; every record verifies). Returns a
  // list of problems (empty = consistent). Slow: reads everything.
  virtual StatusOr<std::vector<std::string>> Verify() = 0;

  // ---- Tables and transactions (lqs/transaction.h) -------------------------------

  // A new transaction on this database (see lqs/transaction.h).
  virtual std::unique_ptr<Transaction> BeginTransaction() = 0;
  // The committed value of `key` in `table`, or nullopt. Errors:
  // kInvalidParameterValue (a bad table name or key), kClosed, kIOError.
  virtual StatusOr<std::optional<std::string>> Get(std::string_view table,
                                                   std::string_view key) = 0;
  // The committed records of `table` whose key starts with `prefix`, in key
  // byte order, read from one consistent view. Errors: as Get.
  virtual StatusOr<std::vector<TableEntry>> Scan(std::string_view table,
                                                 std::string_view prefix) = 0;
  // The names of the tables that hold at least one record, in byte order.
  // Errors: kClosed, kIOError.
  virtual StatusOr<std::vector<std::string>> ListTables() = 0;

  // ---- Group commit (Options::deferred_commits) ---------------------------------------

  // Use these through lqs::CommitScope (lqs/commit_scope.h), which pairs them.
  // DeferCommits(true): this thread's later calls on this Broker return
  // before their changes are durable, until DeferCommits(false). Commit():
  // makes every change this thread's calls made so far durable (and whatever
  // other threads left pending); without deferral there is nothing to do.
  // Errors: kIOError (the log could not be written or synced: the changes
  // may be lost in a crash, and RocksDB refuses further writes).
  virtual void DeferCommits(bool defer) = 0;
  virtual Status Commit() = 0;

  // The options the Broker was opened with.
  virtual const Options& options() const = 0;

  // arn:aws:sqs:<region>:<account_id>:<name>
  virtual std::string ArnFor(const std::string& queue_name) const = 0;
};

}  // namespace lqs

#endif  // LQS_BROKER_H_
