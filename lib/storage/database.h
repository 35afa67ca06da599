// lib/storage/database.h — the RocksDB instance behind a Broker: column
// families, tuning for queue workloads, durability modes, and translation of
// RocksDB errors into lqs Status values.
//
// This is the only place that opens RocksDB. Writes go through Write(), which
// applies the durability mode: kNone writes no WAL, kProcess writes the WAL
// without fsync, kFsync fsyncs writes marked `must_sync` (group-committed by
// RocksDB across concurrent writers).
//
// Write errors. A failed write (ENOSPC, EIO) makes RocksDB refuse every
// later write (a background error) until it is resumed. After one, the next
// Write() or Commit() first asks RocksDB to resume (DB::Resume: it flushes
// the memtables to new files and clears the error); if that fails, the call
// fails with kIOError saying why, and the next one tries again. So once a
// full disk has room, writes succeed again without a reopen. Every write
// error's message says which case applies: a full disk (resumes by itself
// once there is room) or another error (resumes if the disk recovers, else
// reopen the database). A failed Write() applied nothing (in kFsync, a
// write whose sync failed may be in the log already: a reopen before any
// resume applies it); a failed Commit() leaves its deferred writes applied
// in memory but not durable (a crash loses them, a successful resume keeps
// them).
//
// Storage budget (Options::max_disk_bytes). Database keeps an estimate of
// the bytes its files take: RocksDB's size of the table files of every live
// version plus the sizes of the log files, measured again after a flush or
// compaction and after every budget step of bytes written, with the bytes
// written since the last measurement added (so it errs high). Measuring
// costs a few property reads and a listing of the log files, never a walk of
// the directory per call. CheckBudget() answers from the estimate;
// ReclaimForBudget() flushes and compacts when the database takes half its
// budget or more and something was deleted since the last time.
//
// Thread safety: all methods may be called concurrently, except Close().

#ifndef LQS_LIB_STORAGE_DATABASE_H_
#define LQS_LIB_STORAGE_DATABASE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "lib/storage/keys.h"

#include "lqs/options.h"
#include "lqs/status.h"

namespace rocksdb {
class Env;
}

namespace lqs::storage {

// Converts a RocksDB status; `context` says what lqs was doing.
Status FromRocks(const rocksdb::Status& s, std::string_view context);

// What every call on a closed database returns (kClosed).
inline Status ClosedError() { return Status(ErrorCode::kClosed, "the database is closed"); }

// The RocksDB options lqs opens its database with, for `options`: the
// database's and each column family's (`cache` is the shared block cache).
// Database::Open uses them; so does bench/'s raw-RocksDB ceiling, so that it
// measures the same storage configuration.
rocksdb::DBOptions DatabaseOptionsFor(const Options& options);
rocksdb::ColumnFamilyOptions ColumnFamilyOptionsFor(Cf which, const Options& options,
                                                    const std::shared_ptr<rocksdb::Cache>& cache);

class Database {
 public:
  // Opens or creates the database at options.path. `env` (optional) lets
  // tests inject file-system faults.
  // Errors: kDatabaseLocked, kIOError, kCorruption.
  static StatusOr<std::unique_ptr<Database>> Open(const Options& options,
                                                  rocksdb::Env* env = nullptr);
  ~Database();

  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* cf(Cf which) const { return handles_[static_cast<int>(which)]; }

  // Applies `batch` atomically. `must_sync`: in kFsync mode, fsync before
  // returning (sends, catalogue changes). Errors: kIOError (nothing was
  // applied; see "Write errors" above).
  Status Write(rocksdb::WriteBatch* batch, bool must_sync);

  // Deferral for the calling thread (see above). A thread may defer on
  // several databases at once (lqsd's I/O threads serve every region's).
  void DeferCommits(bool defer);
  // Makes every deferred write so far durable. While writes are stopped by
  // a failed write, a thread that made no deferred write since its last
  // Commit() gets OK at once (its reads go out); others resume first (see
  // "Write errors"). Errors: kIOError, kClosed.
  Status Commit();

  // Point read; NotFound is reported as ok() with *found = false.
  Status Get(Cf which, std::string_view key, std::string* value, bool* found);

  // Flushes memtables (needed in kNone mode, which writes no WAL) and closes.
  Status Close();

  // Compacts [begin, end) of a column family down to the last level, so that
  // deletion tombstones are dropped.
  Status CompactRange(Cf which, std::string_view begin, std::string_view end);

  // ---- Storage budget (see above) ----

  // OK when there is no budget or the estimate is under it; else
  // kOverStorageBudget naming the budget and the estimate. Cheap: atomics,
  // and a measurement only when one is due.
  Status CheckBudget();
  // The bytes the files take by the estimate (measures first when due).
  uint64_t DiskBytesInUse();
  // Measures the files now (after a flush or compaction the caller waited for).
  void MeasureDiskUse();
  // When the files take half the budget or more and a batch with point
  // deletes was written since the last reclaim: flushes every memtable and
  // compacts every column family to the bottom, then measures. At most once
  // per four times the previous reclaim took (real time). Sets *ran when it
  // did.
  Status ReclaimForBudget(bool* ran);
  // Flushes, compacts every column family and measures, whatever the budget.
  Status CompactAll();

 private:
  Database() = default;
  Options options_;
  std::unique_ptr<rocksdb::DB> db_;
  std::array<rocksdb::ColumnFamilyHandle*, static_cast<int>(Cf::kCount)> handles_{};
  rocksdb::WriteOptions sync_write_;
  rocksdb::WriteOptions plain_write_;
  // Deferred commits: the log is in RocksDB's buffer until written out.
  bool manual_log_flush_ = false;
  // Deferred must_sync writes made, and how many of them the last completed
  // sync covered (kFsync): Commit() syncs only when they differ.
  std::atomic<uint64_t> sync_requests_{0};
  std::atomic<uint64_t> synced_requests_{0};
  // A write or write-out of the log failed. RocksDB's log writer then refuses
  // (by assertion, in this build) to be synced, even if RocksDB has resumed
  // meanwhile: Close() must not sync it.
  std::atomic<bool> log_failed_{false};
  // A write failed and RocksDB has not been resumed since.
  std::atomic<bool> needs_resume_{false};
  std::atomic<bool> failed_no_space_{false};  // the last failed write's cause
  std::mutex resume_mu_;                      // one DB::Resume at a time
  std::atomic<uint64_t> resume_attempts_{0};
  Status last_resume_;  // guarded by resume_mu_

  // Storage budget: the last measurement, the bytes written since, whether a
  // flush or compaction made it stale, and how many batches with point
  // deletes were written (and how many when the last reclaim started).
  uint64_t budget_bytes_ = 0;  // 0: none
  uint64_t budget_step_ = 0;
  std::atomic<uint64_t> measured_bytes_{0};
  std::atomic<uint64_t> written_since_measure_{0};
  // Set by RocksDB's event listener (which may outlive nothing: Close()
  // closes RocksDB first, but it holds its own reference).
  std::shared_ptr<std::atomic<bool>> measure_stale_ = std::make_shared<std::atomic<bool>>(false);
  std::mutex measure_mu_;  // one measurement at a time
  std::atomic<uint64_t> delete_batches_{0};
  std::mutex reclaim_mu_;
  uint64_t delete_batches_at_reclaim_ = 0;  // guarded by reclaim_mu_
  int64_t next_reclaim_ns_ = 0;             // steady clock; guarded by reclaim_mu_
  void NoteWrite(const rocksdb::WriteBatch& batch);
  uint64_t EstimateDiskBytes();
  // The converted status of a failed write, with the advice for its case;
  // marks the database as needing a resume.
  Status WriteFailed(const rocksdb::Status& s, std::string_view context);
  // OK, or why RocksDB still refuses writes (after trying to resume).
  Status ResumeIfNeeded();
  Status TryResume();  // with resume_mu_ held
};

}  // namespace lqs::storage

#endif  // LQS_LIB_STORAGE_DATABASE_H_
