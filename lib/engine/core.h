// lib/engine/core.h — the state shared by a Broker and its queues: the
// database, the clock, id allocation, the queue catalogue and receipt-handle
// codec.
//
// Ownership: the public Broker holds the Core; every QueueImpl holds a
// shared_ptr to it, so a Queue handle kept after Close() fails cleanly with
// kClosed instead of touching freed memory. Close() drops the catalogue,
// which breaks the Core <-> QueueImpl cycle.
//
// Thread safety: all methods are thread-safe. Locks (each a leaf, except
// that catalog_mutex() is taken before any queue's locks and AllocateSeqs'
// seq_mu_ may be taken under a queue's pending_mu_): seq_mu_ serialises
// sequence reservations, catalog_mu_ guards the catalogue maps,
// catalog_change_mu_ serialises catalogue changes; transaction_mu_ serialises
// transactions' commits up to their write and is taken before any queue's
// locks (a commit then takes queues' gates, then their mu_, each set in
// queue id order; it releases transaction_mu_ before its write, still
// holding them, and never takes it again, so a commit that waits under
// transaction_mu_ for an earlier one's keys in table_writes_in_flight(), a
// leaf, waits for that RocksDB write only).
// Errors: Status returns.

#ifndef LQS_LIB_ENGINE_CORE_H_
#define LQS_LIB_ENGINE_CORE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/engine/table_writes_in_flight.h"
#include "lib/lease/receipt_handle.h"
#include "lib/notify/async_receiver.h"
#include "lib/notify/mutex.h"
#include "lib/storage/database.h"

#include "lqs/options.h"
#include "lqs/status.h"

namespace lqs::engine {

class QueueImpl;

class Core {
 public:
  Core(Options options, std::unique_ptr<storage::Database> db, const std::string& secret,
       uint64_t seq_reserved, uint64_t next_queue_id);

  const Options& options() const { return options_; }
  storage::Database* db() const { return db_.get(); }
  const lease::ReceiptHandleCodec& handles() const { return handles_; }
  bool closed() const { return closed_.load(std::memory_order_acquire); }

  // The clock's time, never running backwards.
  int64_t NowMillis();

  // Allocates `n` consecutive message sequence numbers, never reused within
  // this database (reservations are persisted in blocks). Returns the first.
  StatusOr<uint64_t> AllocateSeqs(uint64_t n) ABSL_LOCKS_EXCLUDED(seq_mu_);
  // Allocates a queue id; stores the counter in `batch` (caller writes it).
  uint64_t AllocateQueueId(rocksdb::WriteBatch* batch);

  std::string ArnFor(const std::string& queue_name) const;
  // The queue name in `arn` if it is an ARN of this region and account.
  bool NameFromArn(const std::string& arn, std::string* name) const;

  // Catalogue of live queues.
  std::shared_ptr<QueueImpl> FindByName(const std::string& name) const
      ABSL_LOCKS_EXCLUDED(catalog_mu_);
  std::shared_ptr<QueueImpl> FindByArn(const std::string& arn) const
      ABSL_LOCKS_EXCLUDED(catalog_mu_);
  std::shared_ptr<QueueImpl> FindById(uint64_t id) const ABSL_LOCKS_EXCLUDED(catalog_mu_);
  std::vector<std::shared_ptr<QueueImpl>> AllQueues() const ABSL_LOCKS_EXCLUDED(catalog_mu_);
  void AddQueue(std::shared_ptr<QueueImpl> q) ABSL_LOCKS_EXCLUDED(catalog_mu_);
  void RemoveQueue(const std::string& name) ABSL_LOCKS_EXCLUDED(catalog_mu_);

  // Serialises catalogue changes (create, delete, attribute changes that
  // involve other queues).
  notify::Mutex& catalog_mutex() ABSL_LOCK_RETURNED(catalog_change_mu_) {
    return catalog_change_mu_;
  }

  // Serialises transactions' commits (lib/engine/transaction.cc) up to
  // their write: no other commit comes between a commit's validation and
  // the registration of its table writes in table_writes_in_flight(). Held
  // through a notify::MutexHold, which releases it before the write.
  notify::Mutex& transaction_mutex() ABSL_LOCK_RETURNED(transaction_mu_) { return transaction_mu_; }
  // The table keys of commits that left transaction_mutex() and write now.
  TableWritesInFlight& table_writes_in_flight() { return table_writes_in_flight_; }

  // Parked asynchronous receives (Queue::ReceiveMessageAsync).
  notify::AsyncReceiver& async_receiver() { return *async_; }

  // Marks the core closed, completes parked receives, drops the catalogue.
  void Shutdown() ABSL_LOCKS_EXCLUDED(catalog_mu_);

 private:
  const Options options_;
  std::unique_ptr<storage::Database> db_;
  const lease::ReceiptHandleCodec handles_;
  std::atomic<bool> closed_{false};
  std::atomic<int64_t> last_now_ms_{0};
  std::unique_ptr<notify::AsyncReceiver> async_;

  notify::Mutex seq_mu_;
  std::atomic<uint64_t> next_seq_;
  // Written under seq_mu_ (and only increases); AllocateSeqs reads it first
  // without the lock and re-checks under it.
  std::atomic<uint64_t> seq_reserved_;

  std::atomic<uint64_t> next_queue_id_;

  mutable notify::SharedMutex catalog_mu_;
  std::map<std::string, std::shared_ptr<QueueImpl>> by_name_ ABSL_GUARDED_BY(catalog_mu_);
  std::map<uint64_t, std::shared_ptr<QueueImpl>> by_id_ ABSL_GUARDED_BY(catalog_mu_);
  notify::Mutex catalog_change_mu_ ABSL_ACQUIRED_BEFORE(catalog_mu_);
  notify::Mutex transaction_mu_ ABSL_ACQUIRED_BEFORE(catalog_mu_);
  TableWritesInFlight table_writes_in_flight_;
};

// Meta keys in the catalog column family.
inline constexpr char kMetaFormat[] = "format";
inline constexpr char kMetaSecret[] = "secret";
inline constexpr char kMetaSeqReserved[] = "seq_reserved";
inline constexpr char kMetaNextQueueId[] = "next_queue_id";
inline constexpr uint64_t kSeqBlock = 1 << 20;

// What every call on a closed database returns (storage/database.h).
using storage::ClosedError;

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_CORE_H_
