#include "lib/storage/database.h"

#include <algorithm>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/table_properties_collectors.h>

#include "lib/storage/counters.h"
#include "lib/storage/insert_hints.h"

namespace lqs::storage {

Status FromRocks(const rocksdb::Status& s, std::string_view context) {
  if (s.ok()) return Status::OK();
  std::string msg(context);
  msg += ": ";
  msg += s.ToString();
  if (s.IsCorruption()) return Status(ErrorCode::kCorruption, msg);
  return Status(ErrorCode::kIOError, msg);
}

namespace {

bool IsLockError(const rocksdb::Status& s) {
  const std::string text = s.ToString();
  return s.IsIOError() &&
         (text.find("lock") != std::string::npos || text.find("LOCK") != std::string::npos);
}

}  // namespace

rocksdb::ColumnFamilyOptions ColumnFamilyOptionsFor(Cf which, const Options& options,
                                                    const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = static_cast<size_t>(options.write_buffer_bytes);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  if (which == Cf::kMessages || which == Cf::kInflight || which == Cf::kCatalog ||
      which == Cf::kCounters || which == Cf::kInbox) {
    // Point lookups by key: bloom filters make misses cheap (for the inbox,
    // a miss is the common answer of InboxContains).
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  }
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  if (which == Cf::kCounters) {
    cf.merge_operator = NewCounterMergeOperator();
    // Every state change merges into its queue's counter key. The operands
    // are folded at flush (and by the one Get at queue load), not at every
    // merge: max_successive_merges would search the key's run of operands in
    // the memtable on each write, an eighth of a single send's CPU in lqsd.
    // A 1M-lifecycle run keeps its last tenth as fast as its first with the
    // folding left to the flushes (docs/performance.md, fifth session).
    cf.max_successive_merges = 0;
  }
  // Memtable insert hints per stream of ordered keys (see insert_hints.h).
  cf.memtable_insert_with_hint_prefix_extractor = InsertHintPrefix(which);
  // A spare memtable lets writes continue while one is being flushed.
  cf.max_write_buffer_number = 3;
  if (which != Cf::kCatalog && which != Cf::kCounters) {
    // Queues delete what they insert: files dense with tombstones are
    // compacted early so that range scans do not wade through them.
    cf.table_properties_collector_factories.emplace_back(
        rocksdb::NewCompactOnDeletionCollectorFactory(/*window=*/4096,
                                                      /*trigger=*/2048,
                                                      /*ratio=*/0.5));
  }
  cf.level_compaction_dynamic_level_bytes = true;
  // Flushes write L0 uncompressed: most of a queue's records are deleted
  // within minutes, so compressing them at flush is CPU spent on data that
  // compaction drops (8% of lqsd's instructions in a send-only run). Compaction
  // compresses what lives on, from the base level down.
  cf.compression_per_level = {rocksdb::kNoCompression, rocksdb::kSnappyCompression};
  return cf;
}

rocksdb::DBOptions DatabaseOptionsFor(const Options& options) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  // Databases created before a column family existed (e.g. `inbox`) gain it
  // empty at open.
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  // RocksDB's LOG at INFO: Debian's librocksdb is built without NDEBUG, so it
  // defaults to DEBUG, which logs a line for every FlushWAL (each commit of
  // Options::deferred_commits: a gettid and a formatted write each, and a LOG
  // file that grows without end on a busy server).
  db_options.info_log_level = rocksdb::InfoLogLevel::INFO_LEVEL;
  db_options.bytes_per_sync = 1 << 20;
  db_options.keep_log_file_num = 3;
  db_options.max_total_wal_size = 64 << 20;
  // Memtable inserts by one thread at a time, the write group's leader
  // inserting every batch of the group: RocksDB ignores the per-stream insert
  // hints (insert_hints.h) in concurrent memtable writes, and on two cores
  // the hinted inserts are the cheaper ones.
  db_options.allow_concurrent_memtable_write = false;
  // Without a write-ahead log, column families flushed at different moments
  // would disagree after a crash (a message in no state, or two): flush them
  // together. With the log, recovery replays it and keeps them consistent.
  db_options.atomic_flush = options.durability == Durability::kNone;
  // Deferred commits: the log stays in RocksDB's buffer until Database
  // writes it out (after each write, or at a deferring thread's Commit).
  db_options.manual_wal_flush = options.deferred_commits && options.durability != Durability::kNone;
  // RocksDB flushes unlogged writes when it closes unless told not to.
  db_options.avoid_flush_during_shutdown = !options.flush_on_close;
  return db_options;
}

StatusOr<std::unique_ptr<Database>> Database::Open(const Options& options, rocksdb::Env* env) {
  if (options.path.empty()) {
    return Status(ErrorCode::kInvalidParameterValue, "Options::path is empty");
  }
  std::unique_ptr<Database> d(new Database());
  d->options_ = options;

  rocksdb::DBOptions db_options = DatabaseOptionsFor(options);
  if (env != nullptr) db_options.env = env;

  auto cache = rocksdb::NewLRUCache(static_cast<size_t>(options.block_cache_bytes));
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (int i = 0; i < static_cast<int>(Cf::kCount); ++i) {
    Cf which = static_cast<Cf>(i);
    descriptors.emplace_back(CfName(which), ColumnFamilyOptionsFor(which, options, cache));
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, options.path, descriptors, &handles, &raw);
  if (!s.ok()) {
    if (IsLockError(s)) {
      return Status(ErrorCode::kDatabaseLocked,
                    "the database at " + options.path + " is in use by another process (it holds " +
                        options.path +
                        "/LOCK); to share a database between processes, run lqsd "
                        "and connect to it over HTTP");
    }
    return FromRocks(s, "opening the database at " + options.path);
  }
  d->db_.reset(raw);
  for (size_t i = 0; i < handles.size(); ++i) d->handles_[i] = handles[i];

  d->plain_write_.sync = false;
  d->plain_write_.disableWAL = options.durability == Durability::kNone;
  d->sync_write_ = d->plain_write_;
  d->sync_write_.sync = options.durability == Durability::kFsync;
  d->manual_log_flush_ = db_options.manual_wal_flush;
  return d;
}

namespace {

// The databases the calling thread defers its commits on (few: one per
// region an lqsd I/O thread serves).
thread_local std::vector<const Database*> deferring_on;

bool DefersHere(const Database* db) {
  return std::find(deferring_on.begin(), deferring_on.end(), db) != deferring_on.end();
}

}  // namespace

Database::~Database() { Close().IgnoreError(); }

Status Database::Write(rocksdb::WriteBatch* batch, bool must_sync) {
  if (!db_) return Status(ErrorCode::kClosed, "the database is closed");
  if (!manual_log_flush_) {
    return Noted(FromRocks(db_->Write(must_sync ? sync_write_ : plain_write_, batch),
                           "writing to the database"));
  }
  // The record goes to RocksDB's log buffer; the write-out (and sync) is
  // ours, now or at the deferring thread's Commit().
  rocksdb::Status s = db_->Write(plain_write_, batch);
  if (!s.ok()) return Noted(FromRocks(s, "writing to the database"));
  const bool sync = must_sync && options_.durability == Durability::kFsync;
  if (DefersHere(this)) {
    if (sync) sync_requests_.fetch_add(1, std::memory_order_acq_rel);
    return Status::OK();
  }
  return Noted(FromRocks(db_->FlushWAL(sync), "writing the log"));
}

Status Database::Noted(Status st) {
  if (!st.ok()) log_failed_.store(true, std::memory_order_release);
  return st;
}

void Database::DeferCommits(bool defer) {
  const bool deferring = DefersHere(this);
  if (defer && !deferring) {
    deferring_on.push_back(this);
  } else if (!defer && deferring) {
    deferring_on.erase(std::find(deferring_on.begin(), deferring_on.end(), this));
  }
}

Status Database::Commit() {
  if (!db_) return Status(ErrorCode::kClosed, "the database is closed");
  if (!manual_log_flush_) return Status::OK();
  // Read before the write-out: every deferred sync counted here has its
  // record in the buffer that FlushWAL writes, so the sync covers it.
  const uint64_t requests = sync_requests_.load(std::memory_order_acquire);
  const bool sync = requests != synced_requests_.load(std::memory_order_acquire);
  Status st = Noted(FromRocks(db_->FlushWAL(sync), sync ? "syncing the log" : "writing the log"));
  if (st.ok() && sync) {
    uint64_t done = synced_requests_.load(std::memory_order_acquire);
    while (done < requests &&
           !synced_requests_.compare_exchange_weak(done, requests, std::memory_order_acq_rel)) {
    }
  }
  return st;
}

Status Database::Get(Cf which, std::string_view key, std::string* value, bool* found) {
  if (!db_) return Status(ErrorCode::kClosed, "the database is closed");
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), cf(which), rocksdb::Slice(key.data(), key.size()), value);
  *found = s.ok();
  if (s.IsNotFound()) return Status::OK();
  return FromRocks(s, "reading from the database");
}

Status Database::CompactRange(Cf which, std::string_view begin, std::string_view end) {
  if (!db_) return Status(ErrorCode::kClosed, "the database is closed");
  rocksdb::CompactRangeOptions o;
  o.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  rocksdb::Slice b(begin.data(), begin.size()), e(end.data(), end.size());
  return FromRocks(
      db_->CompactRange(o, cf(which), begin.empty() ? nullptr : &b, end.empty() ? nullptr : &e),
      "compacting");
}

Status Database::Close() {
  if (!db_) return Status::OK();
  // Flush the memtables in every mode: kNone needs it to keep anything, and
  // for the others it means the next Open replays no log (open time stays
  // proportional to in-flight state, not to recent traffic). Not for a
  // database about to be removed (Options::flush_on_close).
  Status result;
  if (options_.flush_on_close) {
    rocksdb::FlushOptions fo;
    std::vector<rocksdb::ColumnFamilyHandle*> all(handles_.begin(), handles_.end());
    result = FromRocks(db_->Flush(fo, all), "flushing at close");
  }
  // After a failed log write the log cannot be synced (see log_failed_);
  // what was acknowledged before the failure was already written out.
  if (result.ok() && options_.durability != Durability::kNone &&
      !log_failed_.load(std::memory_order_acquire)) {
    result = FromRocks(db_->FlushWAL(true), "syncing the log at close");
  }
  for (auto* h : handles_) {
    if (h != nullptr) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  handles_.fill(nullptr);
  rocksdb::Status s = db_->Close();
  if (result.ok() && !s.ok()) result = FromRocks(s, "closing the database");
  db_.reset();
  return result;
}

}  // namespace lqs::storage
