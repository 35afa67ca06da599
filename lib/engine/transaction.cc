// lib/engine/transaction.cc — a transaction (lqs/transaction.h): its table
// reads and writes in memory until Commit(), its queue operations checked at
// call time and applied at commit, and the commit itself.
//
// The commit (docs/transactions.md) holds the Core's transaction mutex from
// its validation up to its write, so that no other commit comes between:
//   1. waits until no earlier commit is still writing a table key that this
//      one read, scanned or writes (Core::table_writes_in_flight());
//   2. validates the reads: every key read from the database (Get) and every
//      range scanned still holds what the transaction saw (the values are
//      compared; a changed value is kTransactionConflict);
//   3. runs each queue's part in turn — the sends of each queue (in queue id
//      order; the send path holds the queue's gate shared), then each
//      queue's deletes and visibility changes (in queue id order, under its
//      mu_, which checks the leases) — nested, each part's AlsoWrite
//      continuing with the next one while the part still holds its locks;
//   4. the innermost step registers its table keys as in flight, releases
//      the transaction mutex and writes one WriteBatch: the first part's own
//      batch, with the later parts' batches copied and the table writes
//      added. Concurrent commits' writes meet in RocksDB's write group and
//      share one fsync. As the nesting unwinds, each part applies its
//      in-memory changes (or undoes its registrations) by the write's
//      outcome, exactly as after its own write.
// All gates are taken before any mu_, each set in queue id order, so a
// commit cannot deadlock with another commit (both take their locks in that
// order; one that released the mutex holds all of its locks already and
// releases them innermost first; one that waits in step 1 holds the mutex
// and no queue lock, and the keys it waits for leave the in-flight set as
// soon as their write returns), nor with receives, deletes and visibility
// changes (which never wait for a gate or a second mu_ while holding a mu_).

#include "lib/engine/transaction.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocksdb/write_batch.h>

#include "lib/engine/queue_impl.h"
#include "lib/engine/tables.h"
#include "lib/storage/keys.h"

namespace lqs::engine {

namespace {

using storage::Cf;

// Appends the records of one batch to another (both of this database).
class BatchCopier : public rocksdb::WriteBatch::Handler {
 public:
  BatchCopier(storage::Database* db, rocksdb::WriteBatch* out) : db_(db), out_(out) {}

  rocksdb::Status PutCF(uint32_t id, const rocksdb::Slice& k, const rocksdb::Slice& v) override {
    rocksdb::ColumnFamilyHandle* cf = Find(id);
    return cf == nullptr ? Unknown() : out_->Put(cf, k, v);
  }
  rocksdb::Status DeleteCF(uint32_t id, const rocksdb::Slice& k) override {
    rocksdb::ColumnFamilyHandle* cf = Find(id);
    return cf == nullptr ? Unknown() : out_->Delete(cf, k);
  }
  rocksdb::Status SingleDeleteCF(uint32_t id, const rocksdb::Slice& k) override {
    rocksdb::ColumnFamilyHandle* cf = Find(id);
    return cf == nullptr ? Unknown() : out_->SingleDelete(cf, k);
  }
  rocksdb::Status DeleteRangeCF(uint32_t id, const rocksdb::Slice& b,
                                const rocksdb::Slice& e) override {
    rocksdb::ColumnFamilyHandle* cf = Find(id);
    return cf == nullptr ? Unknown() : out_->DeleteRange(cf, b, e);
  }
  rocksdb::Status MergeCF(uint32_t id, const rocksdb::Slice& k, const rocksdb::Slice& v) override {
    rocksdb::ColumnFamilyHandle* cf = Find(id);
    return cf == nullptr ? Unknown() : out_->Merge(cf, k, v);
  }

 private:
  rocksdb::ColumnFamilyHandle* Find(uint32_t id) const {
    for (int i = 0; i < static_cast<int>(Cf::kCount); ++i) {
      rocksdb::ColumnFamilyHandle* cf = db_->cf(static_cast<Cf>(i));
      if (cf->GetID() == id) return cf;
    }
    return nullptr;
  }
  static rocksdb::Status Unknown() {
    return rocksdb::Status::Corruption("a batch names an unknown column family");
  }

  storage::Database* db_;
  rocksdb::WriteBatch* out_;
};

Status Finished() {
  return Status(ErrorCode::kInvalidParameterValue,
                "The transaction has already been committed or failed to commit; begin a new "
                "one.");
}

Status NoSuchQueue() {
  return Status(ErrorCode::kQueueDoesNotExist, "The specified queue does not exist.");
}

class TransactionImpl final : public Transaction {
 public:
  explicit TransactionImpl(std::shared_ptr<Core> core) : core_(std::move(core)) {}

  Status Put(std::string_view table, std::string_view key, std::string_view value) override {
    if (Status st = Usable(); !st.ok()) return st;
    if (Status st = CheckKey(table, key); !st.ok()) return st;
    if (Status st = ValidateTableValue(value); !st.ok()) return st;
    writes_[storage::TableKey(table, key)] = std::string(value);
    return Status::OK();
  }

  Status Delete(std::string_view table, std::string_view key) override {
    if (Status st = Usable(); !st.ok()) return st;
    if (Status st = CheckKey(table, key); !st.ok()) return st;
    writes_[storage::TableKey(table, key)] = std::nullopt;
    return Status::OK();
  }

  StatusOr<std::optional<std::string>> Get(std::string_view table, std::string_view key) override {
    if (Status st = Usable(); !st.ok()) return st;
    if (Status st = CheckKey(table, key); !st.ok()) return st;
    const std::string k = storage::TableKey(table, key);
    if (auto w = writes_.find(k); w != writes_.end()) return w->second;
    if (auto r = reads_.find(k); r != reads_.end()) return r->second;
    StatusOr<std::optional<std::string>> v = ReadTableValue(*core_, k);
    if (v.ok()) reads_.emplace(k, *v);
    return v;
  }

  StatusOr<std::vector<TableEntry>> Scan(std::string_view table, std::string_view prefix) override {
    if (Status st = Usable(); !st.ok()) return st;
    if (Status st = ValidateTableName(table); !st.ok()) return st;
    if (Status st = ValidateTablePrefix(prefix); !st.ok()) return st;
    ScanRead scan;
    scan.lo = storage::TableKey(table, prefix);
    scan.hi = storage::TableScanEnd(table, prefix);
    Status st = ReadTableRange(*core_, scan.lo, scan.hi, &scan.seen);
    if (!st.ok()) return st;
    // The committed records with this transaction's writes laid over them.
    std::map<std::string, std::string> merged(scan.seen.begin(), scan.seen.end());
    for (auto w = writes_.lower_bound(scan.lo); w != writes_.end() && w->first < scan.hi; ++w) {
      if (w->second) {
        merged[w->first] = *w->second;
      } else {
        merged.erase(w->first);
      }
    }
    scans_.push_back(std::move(scan));
    std::vector<TableEntry> out;
    out.reserve(merged.size());
    const size_t skip = 1 + table.size();
    for (auto& [k, v] : merged) out.push_back({k.substr(skip), std::move(v)});
    return out;
  }

  Status SendMessage(const std::string& queue_name, const SendMessageRequest& request) override {
    if (Status st = Usable(); !st.ok()) return st;
    std::shared_ptr<QueueImpl> q = core_->FindByName(queue_name);
    if (!q) return NoSuchQueue();
    if (Status st = q->CheckTxSend(request); !st.ok()) return st;
    AddSend(q, request);
    return Status::OK();
  }

  Status SendMessageBatch(const std::string& queue_name,
                          const std::vector<SendMessageBatchEntry>& entries) override {
    if (Status st = Usable(); !st.ok()) return st;
    std::shared_ptr<QueueImpl> q = core_->FindByName(queue_name);
    if (!q) return NoSuchQueue();
    if (Status st = q->CheckTxSendBatch(entries); !st.ok()) return st;
    for (const auto& e : entries) AddSend(q, e.request);
    return Status::OK();
  }

  Status DeleteMessage(const std::string& queue_name, const std::string& receipt_handle) override {
    return AddHandleOp(queue_name, receipt_handle, std::nullopt);
  }

  // DeleteMessageAndRecord (transaction.h).
  Status DeleteAndRecord(const std::string& queue_name, const std::string& receipt_handle,
                         const std::string& idempotency_key, int64_t ttl_seconds) {
    if (Status st = Usable(); !st.ok()) return st;
    std::shared_ptr<QueueImpl> q = core_->FindByName(queue_name);
    if (!q) return NoSuchQueue();
    if (Status st = q->CheckTxInboxRecord(idempotency_key, ttl_seconds); !st.ok()) return st;
    Status st = AddHandleOp(queue_name, receipt_handle, std::nullopt);
    if (!st.ok()) return st;
    QueueImpl::TxHandleOp& op = handles_[q->id()].ops.back();
    op.inbox_key = idempotency_key;
    op.inbox_ttl_seconds = ttl_seconds;
    return Status::OK();
  }

  Status ChangeMessageVisibility(const std::string& queue_name, const std::string& receipt_handle,
                                 int visibility_timeout) override {
    if (visibility_timeout < 0 || visibility_timeout > limits::kMaxVisibilityTimeoutSeconds) {
      if (Status st = Usable(); !st.ok()) return st;
      return Status(ErrorCode::kInvalidParameterValue,
                    "Value " + std::to_string(visibility_timeout) +
                        " for parameter VisibilityTimeout is invalid. Reason: Must be between 0 "
                        "and " +
                        std::to_string(limits::kMaxVisibilityTimeoutSeconds) + ".");
    }
    return AddHandleOp(queue_name, receipt_handle, visibility_timeout);
  }

  StatusOr<TransactionResult> Commit() override {
    if (Status st = Usable(); !st.ok()) return st;
    finished_ = true;
    notify::MutexHold hold(&core_->transaction_mutex());
    if (core_->closed()) return ClosedError();
    core_->table_writes_in_flight().WaitUntilNoneTouched(
        [this](const std::string& key) { return Touches(key); });
    if (Status st = ValidateReads(); !st.ok()) return st;
    if (!sends_.empty() || !writes_.empty()) {
      // Sends and records add data: the storage budget refuses them.
      if (Status st = core_->db()->CheckBudget(); !st.ok()) return st;
    }
    CommitState state;
    state.hold = &hold;
    state.results.resize(send_count_);
    for (auto& entry : sends_) {
      const SendGroup* group = &entry.second;
      state.steps.push_back([group, &state](const QueueImpl::AlsoWrite& write) {
        std::vector<const SendMessageRequest*> requests;
        requests.reserve(group->requests.size());
        for (const SendMessageRequest& r : group->requests) requests.push_back(&r);
        std::vector<SendMessageResult> results;
        Status st = group->queue->TxSend(requests, &results, write);
        if (!st.ok()) return st;
        for (size_t i = 0; i < results.size(); ++i) {
          state.results[group->result_index[i]] = std::move(results[i]);
        }
        return Status::OK();
      });
    }
    for (auto& entry : handles_) {
      const HandleGroup* group = &entry.second;
      state.steps.push_back([group](const QueueImpl::AlsoWrite& write) {
        return group->queue->TxHandleOps(group->ops, write);
      });
    }
    Status st = RunFrom(0, &state);
    if (!st.ok()) return st;
    TransactionResult out;
    out.sent = std::move(state.results);
    return out;
  }

 private:
  struct ScanRead {
    std::string lo, hi;
    RawEntries seen;
  };
  struct SendGroup {
    std::shared_ptr<QueueImpl> queue;
    std::vector<SendMessageRequest> requests;
    std::vector<size_t> result_index;  // into TransactionResult::sent
  };
  struct HandleGroup {
    std::shared_ptr<QueueImpl> queue;
    std::vector<QueueImpl::TxHandleOp> ops;
  };
  struct CommitState {
    std::vector<std::function<Status(const QueueImpl::AlsoWrite&)>> steps;
    // The commit's one batch: the first queue part's own batch, which the
    // later parts' batches and the table writes are appended to (its owner's
    // frame outlives the nested write), or `own` when no part wrote.
    rocksdb::WriteBatch own;
    rocksdb::WriteBatch* batch = &own;
    bool sync = false;
    std::vector<SendMessageResult> results;
    notify::MutexHold* hold = nullptr;  // the transaction mutex (step 4 releases it)
  };

  Status Usable() const {
    if (core_->closed()) return ClosedError();
    if (finished_) return Finished();
    return Status::OK();
  }

  static Status CheckKey(std::string_view table, std::string_view key) {
    if (Status st = ValidateTableName(table); !st.ok()) return st;
    return ValidateTableKey(key);
  }

  void AddSend(const std::shared_ptr<QueueImpl>& q, const SendMessageRequest& request) {
    SendGroup& g = sends_[q->id()];
    g.queue = q;
    g.requests.push_back(request);
    g.result_index.push_back(send_count_++);
  }

  Status AddHandleOp(const std::string& queue_name, const std::string& receipt_handle,
                     std::optional<int> visibility_timeout) {
    if (Status st = Usable(); !st.ok()) return st;
    std::shared_ptr<QueueImpl> q = core_->FindByName(queue_name);
    if (!q) return NoSuchQueue();
    StatusOr<lease::ReceiptHandle> h = q->CheckTxHandle(receipt_handle);
    if (!h.ok()) return h.status();
    HandleGroup& g = handles_[q->id()];
    for (const QueueImpl::TxHandleOp& op : g.ops) {
      if (op.handle.seq == h->seq && !op.visibility_timeout) {
        return Status(ErrorCode::kInvalidParameterValue,
                      "Value " + receipt_handle +
                          " for parameter ReceiptHandle is invalid. Reason: this transaction "
                          "already deletes the message.");
      }
    }
    g.queue = q;
    g.ops.push_back({receipt_handle, *h, visibility_timeout, {}, 0});
    return Status::OK();
  }

  // Whether this transaction read, scanned or writes the encoded table key.
  bool Touches(const std::string& key) const {
    if (reads_.count(key) != 0 || writes_.count(key) != 0) return true;
    for (const ScanRead& scan : scans_) {
      if (scan.lo <= key && key < scan.hi) return true;
    }
    return false;
  }

  // Step 2 of the commit (see the file comment).
  Status ValidateReads() {
    for (const auto& [k, seen] : reads_) {
      StatusOr<std::optional<std::string>> now = ReadTableValue(*core_, k);
      if (!now.ok()) return now.status();
      if (*now != seen) return Conflict(k, "read");
    }
    for (const ScanRead& scan : scans_) {
      RawEntries now;
      if (Status st = ReadTableRange(*core_, scan.lo, scan.hi, &now); !st.ok()) return st;
      if (now != scan.seen) return Conflict(scan.lo, "scanned keys starting with");
    }
    return Status::OK();
  }

  static Status Conflict(const std::string& encoded_key, const std::string& what) {
    std::string table, key;
    storage::DecodeTableKey(encoded_key, &table, &key);
    return Status(ErrorCode::kTransactionConflict,
                  "The transaction " + what + " key " + PrintableKey(key) + " of table " + table +
                      ", which another transaction changed since; nothing was applied. Run the "
                      "transaction again.");
  }

  // Steps 3 and 4 of the commit: step i's write continues with step i + 1;
  // after the last one, the whole batch is written.
  Status RunFrom(size_t i, CommitState* state) {
    if (i == state->steps.size()) return WriteAll(state);
    bool called = false;
    const QueueImpl::AlsoWrite write = [this, i, state, &called](rocksdb::WriteBatch* batch,
                                                                 int64_t /*now*/, bool must_sync) {
      called = true;
      if (state->batch == &state->own) {
        // The first part's batch becomes the commit's (AlsoWrite lets its
        // caller add to the batch before writing it): no copy.
        state->batch = batch;
      } else {
        BatchCopier copier(core_->db(), state->batch);
        rocksdb::Status copied = batch->Iterate(&copier);
        if (!copied.ok()) return storage::FromRocks(copied, "building a transaction's batch");
      }
      state->sync = state->sync || must_sync;
      return RunFrom(i + 1, state);
    };
    Status st = state->steps[i](write);
    // A step with nothing to write (a FIFO send of duplicates only) does not
    // call its write: the next steps still run.
    if (st.ok() && !called) st = RunFrom(i + 1, state);
    return st;
  }

  Status WriteAll(CommitState* state) {
    storage::Database* db = core_->db();
    for (const auto& [k, v] : writes_) {
      if (v) {
        state->batch->Put(db->cf(Cf::kTables), k, *v);
      } else {
        state->batch->Delete(db->cf(Cf::kTables), k);
      }
    }
    if (state->batch->Count() == 0) return Status::OK();
    std::vector<std::string> keys;
    keys.reserve(writes_.size());
    for (const auto& entry : writes_) keys.push_back(entry.first);
    const TableWritesInFlight::Registration in_flight(&core_->table_writes_in_flight(),
                                                      std::move(keys));
    // The next commit may validate now: a key this one writes waits for it
    // (step 1), and the queue parts still hold their locks.
    state->hold->Release();
    // Records are kept as durably as sends.
    return db->Write(state->batch, state->sync || !writes_.empty());
  }

  const std::shared_ptr<Core> core_;
  bool finished_ = false;
  // Table writes by encoded key (nullopt: a delete), in key order.
  std::map<std::string, std::optional<std::string>> writes_;
  // Keys read from the database, with what was read (nullopt: absent).
  std::map<std::string, std::optional<std::string>> reads_;
  std::vector<ScanRead> scans_;
  // Queue operations by queue id (the commit's lock order).
  std::map<uint64_t, SendGroup> sends_;
  std::map<uint64_t, HandleGroup> handles_;
  size_t send_count_ = 0;
};

}  // namespace

std::unique_ptr<Transaction> NewTransaction(std::shared_ptr<Core> core) {
  return std::make_unique<TransactionImpl>(std::move(core));
}

std::unique_ptr<Transaction> NewTransactionFor(Queue& queue) {
  auto* q = dynamic_cast<QueueImpl*>(&queue);
  if (q == nullptr) return nullptr;
  return NewTransaction(q->core());
}

Status DeleteMessageAndRecord(Transaction& tx, const std::string& queue_name,
                              const std::string& receipt_handle, const std::string& idempotency_key,
                              int64_t ttl_seconds) {
  auto* impl = dynamic_cast<TransactionImpl*>(&tx);
  if (impl == nullptr) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "DeleteMessageAndRecord: the transaction is not one of this engine");
  }
  return impl->DeleteAndRecord(queue_name, receipt_handle, idempotency_key, ttl_seconds);
}

}  // namespace lqs::engine
