// bench/workloads.h — what lqs_bench runs, against any QueueSystem.
//
// Every throughput workload runs the same number of messages on every
// system, after the same warm-up, timed with std::chrono::steady_clock from
// the moment all worker threads are released to the moment the last one
// finishes. Latency is per call (send) or per receive+delete pair (drain,
// mixed), recorded in a per-thread Histogram.

#ifndef LQS_BENCH_WORKLOADS_H_
#define LQS_BENCH_WORKLOADS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/histogram.h"
#include "bench/systems.h"

#include "lqs/options.h"

namespace lqs::bench {

// life = lifecycles from each thread: send a batch, then receive and delete
// that many messages (any messages, in batches of up to `batch`), with a
// standing backlog of kLifeStanding messages waiting throughout.
// txsend = transactional sends: each call writes one record and sends one
// message in one commit (QueueSystem::TxSend; batch 1); msgs/s counts
// commits.
enum class Kind { kSend, kDrain, kMixed, kLifecycle, kTxSend };

inline constexpr int64_t kLifeStanding = 1000;

struct Workload {
  Kind kind = Kind::kSend;
  int batch = 1;      // messages per send / receive / delete call
  size_t body = 100;  // body bytes
  int threads = 1;    // mixed: half producers, half consumers (>= 1 each)
  Durability durability = Durability::kProcess;
  int64_t count = 0;         // messages in the timed phase
  int groups = 0;            // > 0: a FIFO queue with this many message groups
  std::string Name() const;  // "send b10 100B t1 process", "life b10 100B t1 process fifo1000g"
  // "send" | "drain" | "mixed" | "life" | "fifo" (any FIFO row) | "tx" (txsend rows)
  std::string Group() const;
  std::string KindName() const;  // "send" | "drain" | "mixed" | "life" | "txsend"
};

struct Measurement {
  bool ok = false;
  int64_t msgs = 0;
  double seconds = 0;
  Histogram latency;
  double MsgsPerSec() const { return seconds > 0 ? static_cast<double>(msgs) / seconds : 0; }
};

// Runs `w` on a fresh `kind` in `dir` (created; left for the caller to remove).
Measurement RunWorkload(SystemKind kind, const Workload& w, const std::string& dir);

// Backlog scaling: with `backlog` messages waiting (100 B), the latency of
// receive(1)+delete(1), each followed by an untimed send(1) that keeps the
// backlog constant.
struct BacklogResult {
  bool ok = false;
  int64_t backlog = 0;
  int64_t ops = 0;
  double fill_seconds = 0;
  double ops_per_sec = 0;  // over the timed receive+delete pairs only
  Histogram latency;
};
BacklogResult RunBacklog(SystemKind kind, int64_t backlog, int64_t ops, const std::string& dir);

// Tombstones: `lifecycles` send(1)/receive(1)/delete(1) rounds on one queue
// that holds a small standing backlog; throughput of each tenth.
struct TombstoneResult {
  bool ok = false;
  int64_t lifecycles = 0;
  std::vector<double> tenth_per_sec;  // lifecycles/s of each tenth, in order
  // Process CPU time (all threads, incl. RocksDB's background ones) per
  // lifecycle in each tenth, us: robust to other load on a shared machine.
  std::vector<double> tenth_cpu_us;
  double reopen_ms = -1;  // lqs only: Broker::Open after the run
  double first_receive_after_reopen_us = -1;
};
TombstoneResult RunTombstones(SystemKind kind, int64_t lifecycles, const std::string& dir);

// Memory and open time, measured in child processes (so that VmHWM is the
// peak of that phase alone): fill a backlog and put `inflight` messages in
// flight, close; then, in a new process, time Broker::Open and read VmHWM.
struct MemoryResult {
  bool ok = false;
  int64_t backlog = 0;
  int64_t inflight = 0;
  double fill_seconds = 0;
  int64_t fill_hwm_kb = 0;
  double close_ms = 0;
  double open_ms = 0;
  double first_receive_us = 0;
  int64_t open_hwm_kb = 0;
  int64_t open_rss_kb = 0;
  int64_t disk_bytes = 0;
};
MemoryResult RunMemory(int64_t backlog, int64_t inflight, const std::string& dir);

// Idle FIFO group memory, in a child process: send `messages` (100 B, batch
// 10) round-robin over `groups` message groups, receive and delete them all,
// then read the live heap and RSS after returning free memory to the system
// (jemalloc's stats.allocated, or glibc's mallinfo2 after malloc_trim). Run with
// groups = messages and with groups = 1 (the control: same messages, same
// dedup ids, same keys sizes), the difference is what idle groups keep.
// Right after draining, the memtables still hold RocksDB's insert hint for
// each group written since their last flush (lib/storage/insert_hints.h: a
// 224-byte position in the memtable's arena, within its write buffer, and a
// map entry); Broker::CompactAll then flushes them, and what is left is what
// the engine itself keeps per idle group, the figure the target judges.
struct FifoIdleResult {
  bool ok = false;
  int64_t messages = 0;
  int64_t groups = 0;
  int64_t heap_before = 0;   // bytes in use (see LiveHeap in workloads.cc)
  int64_t heap_queued = 0;   // all messages sent, none received
  int64_t heap_drained = 0;  // all received and deleted
  int64_t heap_flushed = 0;  // then Broker::CompactAll (memtables flushed)
  int64_t rss_before_kb = 0, rss_queued_kb = 0, rss_drained_kb = 0;
  double seconds = 0;
};
FifoIdleResult RunFifoIdle(int64_t messages, int64_t groups, const std::string& dir);

// Entry point of the child processes RunMemory starts (lqs_bench --child=...).
int RunChild(const std::string& mode, const std::string& dir, int64_t backlog, int64_t inflight);

// Peak and current resident set size of this process, from /proc/self/status.
int64_t ReadProcStatusKb(const char* field);

}  // namespace lqs::bench

#endif  // LQS_BENCH_WORKLOADS_H_
