#include "lib/storage/database.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/table.h>
#include <rocksdb/transaction_log.h>
#include <rocksdb/utilities/table_properties_collectors.h>
#include <rocksdb/write_buffer_manager.h>

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

// A catalog key no record uses ("M" is the meta prefix, keys.h): its
// tombstone, written without the log, keeps the catalog's memtable from
// being empty (see WriteErrorRecovery).
constexpr std::string_view kResumeMarkerKey = "M\xffresume";

// Writes the marker tombstone into the catalog column family ("default")
// without the log; never waits (fails instead while writes are stopped).
rocksdb::Status WriteResumeMarker(rocksdb::DB* db) {
  rocksdb::WriteOptions no_log;
  no_log.disableWAL = true;
  no_log.no_slowdown = true;
  rocksdb::WriteBatch marker;
  rocksdb::Status s = marker.Delete(db->DefaultColumnFamily(), kResumeMarkerKey);
  return s.ok() ? db->Write(no_log, &marker) : s;
}

// How lqs recovers from write errors (see database.h, "Write errors"):
// - RocksDB's own recovery is off (for a full disk it is a thread that polls
//   the free space every few seconds, and a DB::Resume during it only
//   answers Busy): Database resumes at the next write instead, at once.
// - The catalog's memtable always holds the marker. DB::Resume flushes the
//   memtables, and its flush is what moves writes to a new log, retiring the
//   log writer that failed (RocksDB 7.8 aborts on a later write to it); with
//   every memtable empty it would flush nothing and keep that writer. With
//   the log on, the marker is written at open and again after each flush of
//   the catalog.
class WriteErrorRecovery : public rocksdb::EventListener {
 public:
  explicit WriteErrorRecovery(bool keep_marker) : keep_marker_(keep_marker) {}
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason /*reason*/, rocksdb::Status /*bg_error*/,
                            bool* auto_recovery) override {
    *auto_recovery = false;
  }
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override {
    if (keep_marker_ && info.cf_id == 0) WriteResumeMarker(db).PermitUncheckedError();
  }

 private:
  const bool keep_marker_;
};

// Marks the storage budget's measurement stale when files come or go.
class BudgetListener : public rocksdb::EventListener {
 public:
  explicit BudgetListener(std::shared_ptr<std::atomic<bool>> stale) : stale_(std::move(stale)) {}
  void OnFlushCompleted(rocksdb::DB* /*db*/, const rocksdb::FlushJobInfo& /*info*/) override {
    stale_->store(true, std::memory_order_release);
  }
  void OnCompactionCompleted(rocksdb::DB* /*db*/,
                             const rocksdb::CompactionJobInfo& /*info*/) override {
    stale_->store(true, std::memory_order_release);
  }
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& /*info*/) override {
    stale_->store(true, std::memory_order_release);
  }

 private:
  std::shared_ptr<std::atomic<bool>> stale_;
};

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
      which == Cf::kCounters || which == Cf::kInbox || which == Cf::kTables) {
    // Point lookups by key: bloom filters make misses cheap (for the inbox,
    // a miss is the common answer of InboxContains).
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  }
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  if (which == Cf::kInbox) {
    // The same for the memtable, where recent records live: a recorded send
    // (the pull bridge's store) reads each key twice, and a miss otherwise
    // walks the skip list (docs/bridge.md, "Throughput").
    cf.memtable_whole_key_filtering = true;
    cf.memtable_prefix_bloom_size_ratio = 0.05;
  }
  if (which == Cf::kCounters) {
    cf.merge_operator = NewCounterMergeOperator();
    // Every state change merges into its queue's counter key. The operands
    // are folded at flush (and by the one Get at queue load), not at every
    // merge: max_successive_merges would search the key's run of operands in
    // the memtable on each write, an eighth of a single send's CPU in lqsd.
    // A 1M-lifecycle run keeps its last tenth as fast as its first with the
    // folding left to the flushes (docs/performance.md, "Design choices").
    cf.max_successive_merges = 0;
  }
  // Memtable insert hints per stream of ordered keys (see insert_hints.h).
  cf.memtable_insert_with_hint_prefix_extractor = InsertHintPrefix(which);
  // A spare memtable lets writes continue while one is being flushed.
  cf.max_write_buffer_number = std::max(2, options.max_write_buffers);
  if (which != Cf::kCatalog && which != Cf::kCounters && which != Cf::kTables) {
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
  db_options.max_background_jobs = std::max(1, options.max_background_jobs);
  // RocksDB's LOG at INFO: Debian's librocksdb is built without NDEBUG, so it
  // defaults to DEBUG, which logs a line for every FlushWAL (each commit of
  // Options::deferred_commits: a gettid and a formatted write each, and a LOG
  // file that grows without end on a busy server).
  db_options.info_log_level = rocksdb::InfoLogLevel::INFO_LEVEL;
  db_options.bytes_per_sync = 1 << 20;
  db_options.keep_log_file_num = 3;
  db_options.max_total_wal_size = 64 << 20;
  if (options.max_disk_bytes > 0) {
    // The log alone must not fill a storage budget: past a quarter of it,
    // the memtables it keeps alive are flushed.
    db_options.max_total_wal_size = std::min<uint64_t>(
        db_options.max_total_wal_size, std::max<uint64_t>(1 << 20, options.max_disk_bytes / 4));
  }
  if (options.memtable_budget_bytes > 0) {
    db_options.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
        static_cast<size_t>(options.memtable_budget_bytes));
  }
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
  const bool logged = options.durability != Durability::kNone;
  db_options.listeners.push_back(std::make_shared<WriteErrorRecovery>(logged));
  if (options.max_disk_bytes > 0) {
    d->budget_bytes_ = static_cast<uint64_t>(options.max_disk_bytes);
    d->budget_step_ = std::max<uint64_t>(64 << 10, d->budget_bytes_ / 64);
    db_options.listeners.push_back(std::make_shared<BudgetListener>(d->measure_stale_));
  }

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
  if (logged) {
    s = WriteResumeMarker(raw);
    if (!s.ok()) return FromRocks(s, "opening the database at " + options.path);
  }

  d->plain_write_.sync = false;
  d->plain_write_.disableWAL = options.durability == Durability::kNone;
  d->sync_write_ = d->plain_write_;
  d->sync_write_.sync = options.durability == Durability::kFsync;
  d->manual_log_flush_ = db_options.manual_wal_flush;
  if (d->budget_bytes_ > 0) d->MeasureDiskUse();
  return d;
}

namespace {

// The databases the calling thread defers its commits on (few: one per
// region an lqsd I/O thread serves), and those it wrote to since its last
// Commit() on them.
thread_local std::vector<const Database*> deferring_on;
thread_local std::vector<const Database*> wrote_on;

bool DefersHere(const Database* db) {
  return std::find(deferring_on.begin(), deferring_on.end(), db) != deferring_on.end();
}

void NoteDeferredWrite(const Database* db) {
  if (std::find(wrote_on.begin(), wrote_on.end(), db) == wrote_on.end()) wrote_on.push_back(db);
}

// Whether the thread wrote to `db` since its last Commit(); forgets it.
bool TakeDeferredWrite(const Database* db) {
  auto it = std::find(wrote_on.begin(), wrote_on.end(), db);
  if (it == wrote_on.end()) return false;
  wrote_on.erase(it);
  return true;
}

}  // namespace

Database::~Database() { Close().IgnoreError(); }

Status Database::Write(rocksdb::WriteBatch* batch, bool must_sync) {
  if (!db_) return ClosedError();
  if (Status st = ResumeIfNeeded(); !st.ok()) return st;
  const rocksdb::WriteOptions& write_options =
      must_sync && !manual_log_flush_ ? sync_write_ : plain_write_;
  rocksdb::Status s = db_->Write(write_options, batch);
  if (s.ok()) NoteWrite(*batch);
  if (!s.ok()) {
    // A failed write applied nothing. It may have been refused for an
    // earlier background error (a flush that found the disk full) that
    // resumes now: then it is tried once more. (A record whose sync failed
    // may be in the old log; the resume's flush moves recovery past that
    // log, so it is never applied twice.)
    Status failed = WriteFailed(s, "writing to the database");
    if (!ResumeIfNeeded().ok()) return failed;
    s = db_->Write(write_options, batch);
    if (!s.ok()) return WriteFailed(s, "writing to the database");
    NoteWrite(*batch);
  }
  if (!manual_log_flush_) return Status::OK();
  // The record went to RocksDB's log buffer; the write-out (and sync) is
  // ours, now or at the deferring thread's Commit().
  const bool sync = must_sync && options_.durability == Durability::kFsync;
  if (DefersHere(this)) {
    if (sync) sync_requests_.fetch_add(1, std::memory_order_acq_rel);
    NoteDeferredWrite(this);
    return Status::OK();
  }
  s = db_->FlushWAL(sync);
  return s.ok() ? Status::OK() : WriteFailed(s, "writing the log");
}

namespace {

// Free space beyond the memtables' size that a resume after a full disk
// waits for (room for the flush's other files: MANIFEST, OPTIONS, a log).
constexpr uint64_t kResumeMarginBytes = 4 << 20;
// What the caller can do about a failed write, by its cause.
std::string AdviceFor(const rocksdb::Status& s, bool no_space) {
  if (s.severity() >= rocksdb::Status::Severity::kFatalError) {
    return "; RocksDB cannot resume writing after this error: reopen the database (restart "
           "lqsd); reads go on";
  }
  if (no_space) {
    return "; the disk is full: writes resume by themselves once there is room (no reopen "
           "needed); reads go on";
  }
  return "; the disk refused the write: writes resume by themselves if it recovers, else "
         "reopen the database; reads go on";
}

}  // namespace

Status Database::WriteFailed(const rocksdb::Status& s, std::string_view context) {
  log_failed_.store(true, std::memory_order_release);
  failed_no_space_.store(s.IsNoSpace(), std::memory_order_release);
  needs_resume_.store(true, std::memory_order_release);
  Status st = FromRocks(s, context);
  return Status(st.code(), st.message() + AdviceFor(s, s.IsNoSpace()));
}

Status Database::ResumeIfNeeded() {
  if (!needs_resume_.load(std::memory_order_acquire)) return Status::OK();
  const uint64_t attempts_seen = resume_attempts_.load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(resume_mu_);
  if (!needs_resume_.load(std::memory_order_acquire)) return Status::OK();
  // Threads that waited for another's attempt take its answer: a full disk
  // is not tried once per waiting caller.
  if (resume_attempts_.load(std::memory_order_acquire) != attempts_seen) return last_resume_;
  last_resume_ = TryResume();
  if (last_resume_.ok()) needs_resume_.store(false, std::memory_order_release);
  resume_attempts_.fetch_add(1, std::memory_order_acq_rel);
  return last_resume_;
}

Status Database::TryResume() {
  const bool no_space = failed_no_space_.load(std::memory_order_acquire);
  if (no_space) {
    // Resuming flushes the memtables. RocksDB 7.8 makes a full disk's error
    // fatal (only a reopen clears it) when that flush finds the disk still
    // full, so it is tried only once the file system reports room for the
    // memtables and a margin, as RocksDB's own recovery waits for free space.
    uint64_t free_bytes = 0, memtables = 0;
    db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &memtables);
    const uint64_t needed = memtables + kResumeMarginBytes;
    if (db_->GetEnv()->GetFreeSpace(options_.path, &free_bytes).ok() && free_bytes < needed) {
      return Status(ErrorCode::kIOError, "writing to the database: the disk is still full (" +
                                             std::to_string(free_bytes) + " bytes free, " +
                                             std::to_string(needed) + " needed to resume)" +
                                             AdviceFor(rocksdb::Status::OK(), true));
    }
  }
  if (options_.durability != Durability::kNone) {
    // DB::Resume's flush retires the log writer that failed only if some
    // memtable holds anything; the catalog's marker sees to that, except
    // just after a catalog flush (see WriteErrorRecovery). Resuming then
    // would leave writes going to that writer, which aborts the process.
    uint64_t active = 0, immutable = 0;
    db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kNumEntriesActiveMemTable, &active);
    db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kNumEntriesImmMemTables, &immutable);
    if (active + immutable == 0) {
      return Status(ErrorCode::kIOError,
                    "writing to the database: the write failed while every memtable was empty, "
                    "and RocksDB can then not replace its log; reopen the database (restart "
                    "lqsd); reads go on");
    }
  }
  // DB::Resume flushes the memtables to new files (with a new log) and
  // clears RocksDB's background error; OK when there is none.
  rocksdb::Status s = db_->Resume();
  if (s.ok()) return Status::OK();
  Status st = FromRocks(s, "resuming writes after a failed write");
  return Status(st.code(), st.message() + AdviceFor(s, s.IsNoSpace() || no_space));
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
  if (!db_) return ClosedError();
  if (!manual_log_flush_) return Status::OK();
  // Read before the write-out: every deferred sync counted here has its
  // record in the buffer that FlushWAL writes, so the sync covers it.
  const bool wrote = TakeDeferredWrite(this);
  const uint64_t requests = sync_requests_.load(std::memory_order_acquire);
  const bool sync = requests != synced_requests_.load(std::memory_order_acquire);
  if (needs_resume_.load(std::memory_order_acquire)) {
    // Writes are stopped: a thread that wrote nothing since its last commit
    // has nothing of its own to make durable, and its reads go out. (While
    // writes run, its commit writes the whole log buffer out as before, so
    // that nothing it read from another thread's deferred write is answered
    // before that write is durable.)
    if (!wrote) return Status::OK();
    if (Status st = ResumeIfNeeded(); !st.ok()) return st;
  }
  const rocksdb::Status s = db_->FlushWAL(sync);
  Status st = s.ok() ? Status::OK() : WriteFailed(s, sync ? "syncing the log" : "writing the log");
  if (st.ok() && sync) {
    uint64_t done = synced_requests_.load(std::memory_order_acquire);
    while (done < requests &&
           !synced_requests_.compare_exchange_weak(done, requests, std::memory_order_acq_rel)) {
    }
  }
  return st;
}

Status Database::Get(Cf which, std::string_view key, std::string* value, bool* found) {
  if (!db_) return ClosedError();
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), cf(which), rocksdb::Slice(key.data(), key.size()), value);
  *found = s.ok();
  if (s.IsNotFound()) return Status::OK();
  return FromRocks(s, "reading from the database");
}

Status Database::CompactRange(Cf which, std::string_view begin, std::string_view end) {
  if (!db_) return ClosedError();
  rocksdb::CompactRangeOptions o;
  o.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  rocksdb::Slice b(begin.data(), begin.size()), e(end.data(), end.size());
  return FromRocks(
      db_->CompactRange(o, cf(which), begin.empty() ? nullptr : &b, end.empty() ? nullptr : &e),
      "compacting");
}

void Database::NoteWrite(const rocksdb::WriteBatch& batch) {
  if (budget_bytes_ == 0) return;
  written_since_measure_.fetch_add(batch.GetDataSize(), std::memory_order_relaxed);
  if (batch.HasDelete() || batch.HasSingleDelete()) {
    delete_batches_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Database::MeasureDiskUse() {
  if (budget_bytes_ == 0 || !db_) return;
  std::lock_guard<std::mutex> lock(measure_mu_);
  // Cleared before measuring: what is written or flushed meanwhile is
  // counted again by the next estimate rather than missed.
  measure_stale_->store(false, std::memory_order_release);
  written_since_measure_.store(0, std::memory_order_release);
  uint64_t sst = 0;
  db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kTotalSstFilesSize, &sst);
  uint64_t wal = 0;
  rocksdb::VectorLogPtr logs;
  if (db_->GetSortedWalFiles(logs).ok()) {
    for (const auto& log : logs) wal += log->SizeFileBytes();
  } else {
    // A log deleted while it was listed: keep the last figure's share of
    // logs, as the memtables' size (what the live logs hold at least).
    db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &wal);
  }
  measured_bytes_.store(sst + wal, std::memory_order_release);
}

uint64_t Database::EstimateDiskBytes() {
  if (measure_stale_->load(std::memory_order_acquire) ||
      written_since_measure_.load(std::memory_order_acquire) >= budget_step_) {
    MeasureDiskUse();
  }
  return measured_bytes_.load(std::memory_order_acquire) +
         written_since_measure_.load(std::memory_order_acquire);
}

uint64_t Database::DiskBytesInUse() {
  if (!db_) return 0;
  if (budget_bytes_ == 0) {
    uint64_t sst = 0;
    db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kTotalSstFilesSize, &sst);
    return sst;
  }
  return EstimateDiskBytes();
}

Status Database::CheckBudget() {
  if (budget_bytes_ == 0) return Status::OK();
  if (!db_) return ClosedError();
  const uint64_t used = EstimateDiskBytes();
  if (used < budget_bytes_) return Status::OK();
  return Status(ErrorCode::kOverStorageBudget,
                "the database is at its storage budget (max_disk_bytes = " +
                    std::to_string(budget_bytes_) + " bytes, in use " + std::to_string(used) +
                    " bytes); sends are refused until receives and deletes free space, "
                    "retry later");
}

Status Database::ReclaimForBudget(bool* ran) {
  *ran = false;
  if (budget_bytes_ == 0) return Status::OK();
  if (!db_) return ClosedError();
  std::unique_lock<std::mutex> lock(reclaim_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return Status::OK();  // one is running
  // From half the budget on: a drain that reclaimed at the budget goes on
  // reclaiming as it proceeds, rather than leaving the files just under it
  // (and the next sends to find it full again).
  if (EstimateDiskBytes() < budget_bytes_ / 2) return Status::OK();
  const uint64_t deletes = delete_batches_.load(std::memory_order_acquire);
  if (deletes == delete_batches_at_reclaim_) return Status::OK();  // nothing to drop
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  const int64_t start = now();
  if (start < next_reclaim_ns_) return Status::OK();
  delete_batches_at_reclaim_ = deletes;
  *ran = true;
  Status st = CompactAll();
  const int64_t end = now();
  // At most a fifth of the time goes to reclaiming.
  next_reclaim_ns_ = end + 4 * (end - start);
  return st;
}

Status Database::CompactAll() {
  if (!db_) return ClosedError();
  // The flush first: what the memtables hold (and the log files that keep
  // them) goes to table files, where compaction can drop it.
  std::vector<rocksdb::ColumnFamilyHandle*> all(handles_.begin(), handles_.end());
  Status st = FromRocks(db_->Flush(rocksdb::FlushOptions(), all), "flushing");
  for (int i = 0; st.ok() && i < static_cast<int>(Cf::kCount); ++i) {
    st = CompactRange(static_cast<Cf>(i), "", "");
  }
  MeasureDiskUse();
  return st;
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
