// bench/systems.h — the three things lqs_bench measures, behind one small
// interface so that every workload drives them identically:
//
//   lqs      the library, through its public API (Broker / Queue)
//   ceiling  raw RocksDB issuing the same WriteBatches as lqs, no queue logic
//            (bench/rocksdb_ceiling.cc)
//   sqlite   a queue table in SQLite with the same receive-with-visibility-
//            timeout and delete-by-handle model (bench/sqlite_queue.cc)
//
// lqs and sqlite also run a transactional send (a record and a message in one
// commit: TxSend).
//
// A "handle" is opaque to the workloads: an lqs receipt handle, or 8 bytes of
// sequence number for the ceiling, or "rowid" for SQLite.
//
// Thread safety: Send/Receive/Delete may be called concurrently.

#ifndef LQS_BENCH_SYSTEMS_H_
#define LQS_BENCH_SYSTEMS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lqs/options.h"

namespace lqs::bench {

enum class SystemKind { kLqs, kCeiling, kSqlite };
const char* SystemName(SystemKind k);

struct SystemConfig {
  std::string dir;  // a directory owned by this system (created if missing)
  Durability durability = Durability::kProcess;
  size_t body_bytes = 100;
  // > 0: a FIFO queue whose messages are spread round-robin over this many
  // message groups (group of the n-th message sent = n % fifo_groups), each
  // with a unique MessageDeduplicationId. lqs and ceiling only.
  int fifo_groups = 0;
  // The ceiling's receive also reads each message's record (a Get into a
  // pinned slice, as lqs must read what it returns). Set for the rows whose
  // bodies are large (kReadInclusiveBodyBytes), where reading is most of a
  // receive's work; ignored by lqs and sqlite, which always read.
  bool ceiling_reads = false;
};
// The body size from which the ceiling's receive reads the records.
inline constexpr size_t kReadInclusiveBodyBytes = 4096;

// The name of group `i` of a FIFO workload: fixed width, so that runs with 1
// and with 100,000 groups write keys of the same size.
std::string GroupName(int64_t i);

class QueueSystem {
 public:
  virtual ~QueueSystem() = default;
  // Sends `n` (1..10) messages of config.body_bytes in one call (n == 1: the
  // single-message call). False on error (printed to stderr).
  virtual bool Send(int n) = 0;
  // Receives up to `max` (1..10) messages; appends their handles. Returns the
  // number received, or -1 on error.
  virtual int Receive(int max, std::vector<std::string>* handles) = 0;
  // Deletes the messages named (1..10 handles; one call, batch when > 1).
  virtual bool Delete(const std::vector<std::string>& handles) = 0;
  // One transaction: writes a record (a new key, config.body_bytes of value)
  // and sends one message of config.body_bytes, committed together at the
  // system's durability. False on error, or (printed) when the system has
  // no transactions (the ceiling).
  virtual bool TxSend() = 0;
  // Closes (flushes in kNone mode). Not timed by the workloads.
  virtual bool Close() = 0;
};

// A new S, a QueueSystem with `bool Init(const SystemConfig&)`, initialised
// with `config`; nullptr when Init fails (it has printed why to stderr).
template <typename S>
std::unique_ptr<QueueSystem> MakeSystem(const SystemConfig& config) {
  auto system = std::make_unique<S>();
  if (!system->Init(config)) return nullptr;
  return system;
}

// Opens `kind` at config.dir. nullptr on error (printed to stderr).
std::unique_ptr<QueueSystem> OpenSystem(SystemKind kind, const SystemConfig& config);

// The systems besides lqs, as OpenSystem opens them; each file's comment
// says what it writes and why.
std::unique_ptr<QueueSystem> OpenRocksDbCeiling(const SystemConfig& config);  // rocksdb_ceiling.cc
std::unique_ptr<QueueSystem> OpenSqliteQueue(const SystemConfig& config);     // sqlite_queue.cc

// A printable body of `n` bytes (valid SQS message text).
std::string MakeBody(size_t n);

}  // namespace lqs::bench

#endif  // LQS_BENCH_SYSTEMS_H_
