#include "tests/fault_fs.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace lqs::testing {
namespace {

using rocksdb::DataVerificationInfo;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// A writable file that counts its size, journals its syncs and fails writes
// while its file system says so.
class FaultWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultWritableFile(std::unique_ptr<rocksdb::FSWritableFile> base, FaultFileSystem* fs,
                    std::string path, uint64_t size)
      : FSWritableFileOwnerWrapper(std::move(base)), fs_(fs), path_(std::move(path)), size_(size) {}

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = FSWritableFileOwnerWrapper::Append(data, o, dbg);
    if (s.ok()) size_ += data.size();
    return s;
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const DataVerificationInfo& info,
                  IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = FSWritableFileOwnerWrapper::Append(data, o, info, dbg);
    if (s.ok()) size_ += data.size();
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = FSWritableFileOwnerWrapper::PositionedAppend(data, offset, o, dbg);
    if (s.ok() && offset + data.size() > size_) size_ = offset + data.size();
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            const DataVerificationInfo& info, IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = FSWritableFileOwnerWrapper::PositionedAppend(data, offset, o, info, dbg);
    if (s.ok() && offset + data.size() > size_) size_ = offset + data.size();
    return s;
  }
  IOStatus Truncate(uint64_t size, const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = FSWritableFileOwnerWrapper::Truncate(size, o, dbg);
    if (s.ok()) size_ = size;
    return s;
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedWriteFault();
    return s.ok() ? FSWritableFileOwnerWrapper::Flush(o, dbg) : s;
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override {
    return Durably([&] { return FSWritableFileOwnerWrapper::Sync(o, dbg); });
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    return Durably([&] { return FSWritableFileOwnerWrapper::Fsync(o, dbg); });
  }
  // sync_file_range(2) promises nothing about durability: not journaled.

 private:
  // A Sync or Fsync: the sync hook, then the injected fault or `sync`, and
  // on success the journal's "sync" line.
  template <typename SyncFn>
  IOStatus Durably(SyncFn sync) {
    fs_->RunSyncHook(path_);
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = sync();
    if (s.ok()) Synced();
    return s;
  }
  void Synced() {
    if (fs_->journaling()) fs_->Journal("sync " + path_ + " " + std::to_string(size_));
  }

  FaultFileSystem* const fs_;
  const std::string path_;
  // RocksDB's WritableFileWriter calls a file from one thread at a time.
  uint64_t size_;
};

class FaultRandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  FaultRandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> base, FaultFileSystem* fs)
      : FSRandomAccessFileOwnerWrapper(std::move(base)), fs_(fs) {}

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    IOStatus s = fs_->InjectedReadFault();
    return s.ok() ? FSRandomAccessFileOwnerWrapper::Read(offset, n, o, result, scratch, dbg) : s;
  }
  IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t num_reqs, const IOOptions& o,
                     IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedReadFault();
    if (s.ok()) return FSRandomAccessFileOwnerWrapper::MultiRead(reqs, num_reqs, o, dbg);
    for (size_t i = 0; i < num_reqs; ++i) reqs[i].status = s;
    return s;
  }
  IOStatus ReadAsync(rocksdb::FSReadRequest& req, const IOOptions& o,
                     std::function<void(const rocksdb::FSReadRequest&, void*)> cb, void* cb_arg,
                     void** io_handle, rocksdb::IOHandleDeleter* del_fn,
                     IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedReadFault();
    if (s.ok()) {
      return FSRandomAccessFileOwnerWrapper::ReadAsync(req, o, std::move(cb), cb_arg, io_handle,
                                                       del_fn, dbg);
    }
    return s;
  }

 private:
  FaultFileSystem* const fs_;
};

class FaultSequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  FaultSequentialFile(std::unique_ptr<rocksdb::FSSequentialFile> base, FaultFileSystem* fs)
      : FSSequentialFileOwnerWrapper(std::move(base)), fs_(fs) {}

  IOStatus Read(size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedReadFault();
    return s.ok() ? FSSequentialFileOwnerWrapper::Read(n, o, result, scratch, dbg) : s;
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions& o, Slice* result,
                          char* scratch, IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedReadFault();
    return s.ok() ? FSSequentialFileOwnerWrapper::PositionedRead(offset, n, o, result, scratch, dbg)
                  : s;
  }

 private:
  FaultFileSystem* const fs_;
};

class FaultDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  FaultDirectory(std::unique_ptr<rocksdb::FSDirectory> base, FaultFileSystem* fs, std::string path)
      : FSDirectoryWrapper(std::move(base)), fs_(fs), path_(std::move(path)) {}

  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = FSDirectoryWrapper::Fsync(o, dbg);
    if (s.ok()) Synced();
    return s;
  }
  IOStatus FsyncWithDirOptions(const IOOptions& o, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& options) override {
    IOStatus s = fs_->InjectedWriteFault();
    if (s.ok()) s = FSDirectoryWrapper::FsyncWithDirOptions(o, dbg, options);
    if (s.ok()) Synced();
    return s;
  }

 private:
  void Synced() {
    if (fs_->journaling()) fs_->Journal("dirsync " + path_);
  }

  FaultFileSystem* const fs_;
  const std::string path_;
};

// Paths are journaled as given; RocksDB names files "<dir>/<name>" from the
// directory it was opened with, and directories without a trailing '/'.
std::string Normalized(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

}  // namespace

FaultFileSystem::FaultFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base,
                                 const std::string& journal_path)
    : FileSystemWrapper(base) {
  if (journal_path.empty()) return;
  journal_fd_ = ::open(journal_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (journal_fd_ < 0) {
    std::fprintf(stderr, "fault_fs: cannot open journal %s: %s\n", journal_path.c_str(),
                 std::strerror(errno));
    std::abort();
  }
  backup_dir_ = journal_path + ".backup";
  std::error_code ec;
  std::filesystem::create_directories(backup_dir_, ec);
}

FaultFileSystem::~FaultFileSystem() {
  if (journal_fd_ >= 0) ::close(journal_fd_);
}

std::unique_ptr<rocksdb::Env> FaultFileSystem::NewEnv() {
  // A shared_ptr that does not own: the caller keeps this object alive.
  return rocksdb::NewCompositeEnv(
      std::shared_ptr<rocksdb::FileSystem>(std::shared_ptr<rocksdb::FileSystem>(), this));
}

void FaultFileSystem::Journal(const std::string& line) {
  const std::string text = line + "\n";
  const ssize_t n = ::write(journal_fd_, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size())) {
    std::fprintf(stderr, "fault_fs: journal write failed: %s\n", std::strerror(errno));
    std::abort();
  }
}

void FaultFileSystem::SetSyncHook(std::function<void(const std::string& path)> hook) {
  std::lock_guard<std::mutex> lock(sync_hook_mu_);
  sync_hook_.reset();
  if (hook) sync_hook_ = std::make_shared<const std::function<void(const std::string&)>>(hook);
}

void FaultFileSystem::RunSyncHook(const std::string& path) {
  std::shared_ptr<const std::function<void(const std::string&)>> hook;
  {
    std::lock_guard<std::mutex> lock(sync_hook_mu_);
    hook = sync_hook_;
  }
  if (hook) (*hook)(path);
}

IOStatus FaultFileSystem::InjectedWriteFault() {
  switch (write_fault_.load()) {
    case WriteFault::kNone:
      return IOStatus::OK();
    case WriteFault::kNoSpace:
      failed_writes_.fetch_add(1);
      return IOStatus::NoSpace("injected: No space left on device");
    case WriteFault::kIOError:
      failed_writes_.fetch_add(1);
      return IOStatus::IOError("injected: Input/output error (write)");
  }
  return IOStatus::OK();
}

IOStatus FaultFileSystem::InjectedReadFault() {
  if (!fail_reads_.load()) return IOStatus::OK();
  failed_reads_.fetch_add(1);
  return IOStatus::IOError("injected: Input/output error (read)");
}

// `opened`'s file *r (when it opened) wrapped in a Fault* file of `fs`.
template <typename FaultFile, typename File>
IOStatus WrapOpened(IOStatus opened, std::unique_ptr<File>* r, FaultFileSystem* fs) {
  if (opened.ok()) *r = std::make_unique<FaultFile>(std::move(*r), fs);
  return opened;
}

IOStatus FaultFileSystem::NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                            std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                            IODebugContext* dbg) {
  return WrapOpened<FaultSequentialFile>(target()->NewSequentialFile(f, o, r, dbg), r, this);
}

IOStatus FaultFileSystem::NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                              std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                              IODebugContext* dbg) {
  return WrapOpened<FaultRandomAccessFile>(target()->NewRandomAccessFile(f, o, r, dbg), r, this);
}

namespace {

// NewWritableFile (`reopen` false: the file starts empty) and
// ReopenWritableFile (true: it keeps its bytes): an injected write fault, else
// `open` (the target's call, into *r), journaled and wrapped.
IOStatus OpenWritable(FaultFileSystem* fs, const std::string& f, bool reopen,
                      const std::function<IOStatus()>& open,
                      std::unique_ptr<rocksdb::FSWritableFile>* r) {
  IOStatus s = fs->InjectedWriteFault();
  if (!s.ok()) return s;
  const bool existed = fs->target()->FileExists(f, IOOptions(), nullptr).ok();
  uint64_t size = 0;
  if (reopen && existed) {
    fs->target()->GetFileSize(f, IOOptions(), &size, nullptr).PermitUncheckedError();
  }
  s = open();
  if (!s.ok()) return s;
  const std::string path = Normalized(f);
  if (fs->journaling()) {
    if (!reopen) {
      fs->Journal((existed ? "open " : "create ") + path);
    } else {
      fs->Journal(existed ? "reopen " + path + " " + std::to_string(size) : "create " + path);
    }
  }
  *r = std::make_unique<FaultWritableFile>(std::move(*r), fs, path, size);
  return s;
}

}  // namespace

IOStatus FaultFileSystem::NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                          std::unique_ptr<rocksdb::FSWritableFile>* r,
                                          IODebugContext* dbg) {
  return OpenWritable(
      this, f, /*reopen=*/false, [&] { return target()->NewWritableFile(f, o, r, dbg); }, r);
}

IOStatus FaultFileSystem::ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                             std::unique_ptr<rocksdb::FSWritableFile>* r,
                                             IODebugContext* dbg) {
  return OpenWritable(
      this, f, /*reopen=*/true, [&] { return target()->ReopenWritableFile(f, o, r, dbg); }, r);
}

IOStatus FaultFileSystem::ReuseWritableFile(const std::string& f, const std::string& old,
                                            const rocksdb::FileOptions& o,
                                            std::unique_ptr<rocksdb::FSWritableFile>* r,
                                            IODebugContext* dbg) {
  if (journaling()) return IOStatus::NotSupported("fault_fs: ReuseWritableFile while journaling");
  IOStatus s = InjectedWriteFault();
  if (!s.ok()) return s;
  s = target()->ReuseWritableFile(f, old, o, r, dbg);
  if (s.ok()) *r = std::make_unique<FaultWritableFile>(std::move(*r), this, Normalized(f), 0);
  return s;
}

IOStatus FaultFileSystem::NewDirectory(const std::string& name, const IOOptions& o,
                                       std::unique_ptr<rocksdb::FSDirectory>* r,
                                       IODebugContext* dbg) {
  IOStatus s = target()->NewDirectory(name, o, r, dbg);
  if (s.ok()) *r = std::make_unique<FaultDirectory>(std::move(*r), this, Normalized(name));
  return s;
}

IOStatus FaultFileSystem::DeleteFile(const std::string& f, const IOOptions& o,
                                     IODebugContext* dbg) {
  IOStatus s = target()->DeleteFile(f, o, dbg);
  if (s.ok() && journaling()) Journal("delete " + Normalized(f));
  return s;
}

IOStatus FaultFileSystem::RenameFile(const std::string& from, const std::string& to,
                                     const IOOptions& o, IODebugContext* dbg) {
  IOStatus s = InjectedWriteFault();
  if (!s.ok()) return s;
  std::string backup = "-";
  if (journaling() && target()->FileExists(to, IOOptions(), nullptr).ok()) {
    backup = backup_dir_ + "/" + std::to_string(backups_.fetch_add(1));
    std::error_code ec;
    std::filesystem::copy_file(to, backup, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return IOStatus::IOError("fault_fs: cannot back up " + to + ": " + ec.message());
  }
  s = target()->RenameFile(from, to, o, dbg);
  if (s.ok() && journaling()) {
    Journal("rename " + Normalized(from) + " " + Normalized(to) + " " + backup);
  }
  return s;
}

IOStatus FaultFileSystem::LinkFile(const std::string& from, const std::string& to,
                                   const IOOptions& o, IODebugContext* dbg) {
  if (journaling()) return IOStatus::NotSupported("fault_fs: LinkFile while journaling");
  return target()->LinkFile(from, to, o, dbg);
}

IOStatus FaultFileSystem::GetFreeSpace(const std::string& path, const IOOptions& o,
                                       uint64_t* free_bytes, IODebugContext* dbg) {
  if (write_fault_.load() == WriteFault::kNoSpace) {
    *free_bytes = 0;
    return IOStatus::OK();
  }
  return target()->GetFreeSpace(path, o, free_bytes, dbg);
}

}  // namespace lqs::testing
