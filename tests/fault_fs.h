// tests/fault_fs.h — a RocksDB FileSystem for tests: it journals what has
// reached the disk durably (for simulated power loss, tests/power_cut.h) and
// fails reads or writes on demand (full disks, failing disks).
//
// Power loss. A process killed with SIGKILL keeps everything it wrote with
// write(2): the kernel's page cache survives it, a power cut does not. So
// the file system passes every write through to the real files and, beside
// them, appends to a journal what a power cut could not take back:
//
//   create <path>            a new file (its directory entry is not durable)
//   open <path>              an existing file reopened empty for writing
//   reopen <path> <size>     an existing file reopened for appending
//   sync <path> <size>       Sync/Fsync returned: the first <size> bytes are durable
//   dirsync <dir>            the directory's entries are durable
//   rename <from> <to> <backup|->  <to> replaced; its old bytes are in <backup>
//   delete <path>            removed (deletions are not undone: see power_cut.h)
//
// Each line is one write(2) with O_APPEND, made after the operation
// succeeded, so a kill between the two leaves the operation unjournaled,
// which the model reads as "it became durable by itself": a state a real
// disk can also be in. After the SIGKILL, ApplyPowerCut (power_cut.h) reads
// the journal and puts the files in the state that a disk which kept only the
// journaled durable state would show. RangeSync (sync_file_range) is not a
// sync; LinkFile and ReuseWritableFile are refused while journaling (RocksDB
// uses them only for features lqs does not turn on).
//
// Faults. FailWrites() makes every later write operation (Append,
// PositionedAppend, Flush, Sync, Fsync, Truncate, the creation of a writable
// file, a rename, a directory sync) fail with ENOSPC's or EIO's status, and
// while it injects ENOSPC GetFreeSpace reports 0 bytes, as a full disk's
// statvfs(2) does; FailReads()
// makes reads of random-access and sequential files fail with EIO's. Both
// count the calls they fail.
//
// Thread safety: every method may be called from any thread (RocksDB's
// background threads write too). The journal is opened at construction;
// a failure to write it aborts the process (the test cannot go on blind).

#ifndef LQS_TESTS_FAULT_FS_H_
#define LQS_TESTS_FAULT_FS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

namespace lqs::testing {

class FaultFileSystem : public rocksdb::FileSystemWrapper {
 public:
  enum class WriteFault { kNone, kNoSpace, kIOError };

  // Wraps `base`. A non-empty `journal_path` turns on the power-loss journal
  // (the file is created or appended to; keep it outside the database).
  explicit FaultFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base,
                           const std::string& journal_path = "");
  ~FaultFileSystem() override;

  static const char* kClassName() { return "LqsFaultFileSystem"; }
  const char* Name() const override { return kClassName(); }

  void FailWrites(WriteFault fault) { write_fault_.store(fault); }
  // Calls `hook` with the file's path at the start of every Sync and Fsync
  // of a writable file (empty: none). The hook may block: a test holds a
  // write in its sync this way.
  void SetSyncHook(std::function<void(const std::string& path)> hook);
  void RunSyncHook(const std::string& path);
  void FailReads(bool fail) { fail_reads_.store(fail); }
  // How many calls each kind of fault has failed so far.
  int64_t failed_writes() const { return failed_writes_.load(); }
  int64_t failed_reads() const { return failed_reads_.load(); }

  // An Env that uses this file system (and the default Env for the rest);
  // what Database::Open takes. The FileSystem must outlive it.
  std::unique_ptr<rocksdb::Env> NewEnv();

  rocksdb::IOStatus NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                        rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                                      const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* r,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& f, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& from, const std::string& to,
                               const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& from, const std::string& to,
                             const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFreeSpace(const std::string& path, const rocksdb::IOOptions& o,
                                 uint64_t* free_bytes, rocksdb::IODebugContext* dbg) override;

  // For the file wrappers (fault_fs.cc).
  bool journaling() const { return journal_fd_ >= 0; }
  void Journal(const std::string& line);
  // The status of an injected write fault, or OK (and counts it).
  rocksdb::IOStatus InjectedWriteFault();
  rocksdb::IOStatus InjectedReadFault();

 private:
  int journal_fd_ = -1;
  std::string backup_dir_;  // rename backups: <journal_path>.backup/
  std::atomic<int64_t> backups_{0};
  std::atomic<WriteFault> write_fault_{WriteFault::kNone};
  std::atomic<bool> fail_reads_{false};
  std::atomic<int64_t> failed_writes_{0};
  std::atomic<int64_t> failed_reads_{0};
  std::mutex sync_hook_mu_;
  std::shared_ptr<const std::function<void(const std::string&)>> sync_hook_;  // sync_hook_mu_
};

}  // namespace lqs::testing

#endif  // LQS_TESTS_FAULT_FS_H_
