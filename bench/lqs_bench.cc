// lqs_bench — end-to-end throughput and latency of lqs, in the spirit of
// RocksDB's db_bench, reported as ratios to two references measured in the
// same run:
//
//   ceiling  raw RocksDB issuing the same WriteBatches per message lifecycle
//            (bench/rocksdb_ceiling.cc): lqs/ceiling is the cost of the queue.
//   sqlite   a SQLite queue table with the same lease model
//            (bench/sqlite_queue.cc): lqs/sqlite is the obvious alternative.
//
// Compare ratios, not absolute numbers: absolute rates depend on the disk.
//
// The matrix (workload = kind, batch, body, threads, durability; "p/c" =
// producer/consumer threads). Message counts are for the default mode;
// --quick divides them by ~25 (fsync ones by 5), --scale=X multiplies them.
//
//   kind  batch body    threads durability            messages
//   life  10    100B    1       process               200k  (+ FIFO, 1 and 1,000 groups)
//   life  1     100B    1       process               50k
//   send  1     100B    1       none process fsync    50k 50k 500
//   send  10    100B    1       none process fsync    200k 200k 5k
//   send  10    100B    1       process FIFO 1, 1000g 200k each
//   send  1     100B    2, 8    process               50k each
//   send  1     100B    8       fsync (group commit)  2k
//   send  10    4KiB    1       process               50k
//   send  1     256KiB  1       process               1k   (SQS max size; batch 10 > 1 MiB)
//   drain 1     100B    1       none process fsync    50k each
//   drain 10    100B    1       none process          200k each
//   drain 10    100B    2, 8    process               200k each
//   drain 10    4KiB    1       process               50k
//   drain 1     256KiB  1       process               1k
//   mixed 1     100B    1p1c    none process          50k each
//   mixed 10    100B    1p1c    process               200k
//   mixed 10    100B    4p4c    process fsync         200k 5k
//   txsend 1    100B    1       none process fsync    50k 50k 500
//   txsend 1    100B    8       fsync (group commit)  2k
//
// life  = the "lifecycle": each thread sends a batch, then receives
//         and deletes that many (batches of up to `batch`), with a standing
//         backlog of 1,000 messages (FIFO: spread round-robin over the
//         groups, so 1,000 groups each hold one); msgs/s counts lifecycles;
//         latency is per send+receive+delete round.
// FIFO rows ("fifoNg"): a FIFO queue, message n in group n % N, a unique
//         MessageDeduplicationId each; the ceiling issues the FIFO writes
//         (bench/rocksdb_ceiling.cc); SQLite has no FIFO model ("-").
// send  = SendMessage(Batch) calls; msgs/s counts messages sent.
// drain = ReceiveMessage + DeleteMessage(Batch) of a prefilled backlog
//         (prefilled in process mode, then reopened in the workload's mode).
// mixed = producers and consumers at once; msgs/s counts full lifecycles.
// txsend = a transactional send: one record (a new key, a value of the body's
//         size) and one message in one commit, at the durability of the
//         send b1 row beside it (lqs: BeginTransaction, Put, SendMessage,
//         Commit; SQLite: INSERT OR REPLACE and the enqueue in one
//         transaction, synced as its sends; the ceiling: the same writes in
//         one batch, with no transaction). msgs/s counts commits. The
//         report's "Transactional send" table sets each against send b1 of
//         the same threads and durability, and the disk's fdatasync rate.
// fdatasync = the disk's own rate, measured in the same run in the database
//         directory: append 100 bytes to a file and fdatasync it, one at a
//         time (what one synced commit at a time costs at least).
// Latency (p50/p99): per send call, or per receive+delete pair (drain, mixed).
//
// Further sections (lqs; SQLite where it makes sense):
//   backlog     receive+delete p50/p99 with 1k, 100k, 1M (--long: 10M) waiting
//               (--quick: 1k, 10k)
//   tombstones  100k (--long: 1M, --quick: 10k) lifecycles on one queue; the
//               throughput of the last tenth vs the first; lqs reopen time
//   memory      peak RSS (VmHWM) filling a 1M (--long: 10M, --quick: 100k)
//               backlog with 10k in flight, and Broker::Open time and peak RSS
//               of reopening it, each in its own child process
//   fifo        the FIFO rows above, and idle group memory: live heap
//               (jemalloc's stats.allocated after purging, or mallinfo2 after
//               malloc_trim) after sending 100k (--quick:
//               20k) messages over 100k groups and draining them, against a
//               control with the same messages in one group (child processes)
//   targets     each target of issues #3, #29 and #31 evaluated from this run:
//               MET / NOT MET (the large-message sends beside their limit,
//               the ceiling plus the MD5 of a body, bench/md5_probe.h)
//
// Flags:
//   --workloads=a,b   groups (life, send, drain, mixed, tx, backlog, tombstones,
//                     memory, fifo) or workload-name prefixes ("send b10");
//                     default all. "fifo" selects every FIFO row.
//   --systems=a,b     lqs, ceiling, sqlite (default all three)
//   --quick | --long  --scale=X   --db=DIR (default: a temp dir removed at exit)
//   --json            print the JSON document on stdout (table goes to stderr)
//   --tombstone_lifecycles=N  the tombstones run's length (default by mode)
//   --keep_dirs       with --db: leave the last run of each directory (run-lqs,
//                     tombstones-lqs, ...) in place, e.g. to read RocksDB's LOG
//   --table_out=FILE  also write the human table to FILE

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/disk_probe.h"
#include "bench/md5_probe.h"
#include "bench/report.h"
#include "bench/systems.h"
#include "bench/workloads.h"

#include "lqs/lqs.h"

namespace lqs::bench {
namespace {

struct Flags {
  bool quick = false;
  bool long_run = false;
  bool json = false;
  bool keep_dirs = false;
  int64_t tombstone_lifecycles =
      0;  // 0: by mode  // leave each run's directory (RocksDB LOG files) under --db
  double scale = 1.0;
  std::string db;
  std::string table_out;
  std::vector<std::string> workloads;  // empty: all
  std::vector<SystemKind> systems = {SystemKind::kLqs, SystemKind::kCeiling, SystemKind::kSqlite};
};

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool Selected(const Flags& f, const std::string& group, const std::string& name = "") {
  if (f.workloads.empty()) return true;
  for (const std::string& w : f.workloads) {
    if (w == group) return true;
    if (!name.empty() && name.compare(0, w.size(), w) == 0) return true;
  }
  return false;
}

int64_t Scaled(const Flags& f, int64_t count, bool fsync) {
  double c = static_cast<double>(count) * f.scale;
  if (f.quick) c = fsync ? c / 5 : c / 25;
  return std::max<int64_t>(static_cast<int64_t>(c), 20);
}

std::vector<Workload> Matrix(const Flags& f) {
  using D = Durability;
  std::vector<Workload> m;
  auto add = [&](Kind k, int batch, size_t body, int threads, D d, int64_t count, int groups = 0) {
    Workload w;
    w.groups = groups;
    w.kind = k;
    w.batch = batch;
    w.body = body;
    w.threads = threads;
    w.durability = d;
    // fsync'ed drains sync nothing (only sends are synced): full counts.
    const bool syncs = d == D::kFsync && k != Kind::kDrain;
    w.count = Scaled(f, count, syncs);
    m.push_back(w);
  };
  constexpr size_t k100 = 100, k4K = 4096, k256K = 262144;
  // The lifecycle targets of issue #3, and FIFO beside the same shape.
  add(Kind::kLifecycle, 10, k100, 1, D::kProcess, 200000);
  add(Kind::kLifecycle, 10, k100, 1, D::kProcess, 200000, 1);
  add(Kind::kLifecycle, 10, k100, 1, D::kProcess, 200000, 1000);
  add(Kind::kLifecycle, 1, k100, 1, D::kProcess, 50000);
  add(Kind::kSend, 1, k100, 1, D::kNone, 50000);
  add(Kind::kSend, 1, k100, 1, D::kProcess, 50000);
  add(Kind::kSend, 1, k100, 1, D::kFsync, 500);
  add(Kind::kSend, 10, k100, 1, D::kNone, 200000);
  add(Kind::kSend, 10, k100, 1, D::kProcess, 200000);
  add(Kind::kSend, 10, k100, 1, D::kProcess, 200000, 1);
  add(Kind::kSend, 10, k100, 1, D::kProcess, 200000, 1000);
  add(Kind::kSend, 10, k100, 1, D::kFsync, 5000);
  add(Kind::kSend, 1, k100, 2, D::kProcess, 50000);
  add(Kind::kSend, 1, k100, 8, D::kProcess, 50000);
  // With send b1 t1 fsync above: the group-commit ratio (t8 / t1).
  add(Kind::kSend, 1, k100, 8, D::kFsync, 2000);
  add(Kind::kSend, 10, k4K, 1, D::kProcess, 50000);
  add(Kind::kSend, 1, k256K, 1, D::kProcess, 1000);
  add(Kind::kDrain, 1, k100, 1, D::kNone, 50000);
  add(Kind::kDrain, 1, k100, 1, D::kProcess, 50000);
  add(Kind::kDrain, 1, k100, 1, D::kFsync, 50000);
  add(Kind::kDrain, 10, k100, 1, D::kNone, 200000);
  add(Kind::kDrain, 10, k100, 1, D::kProcess, 200000);
  add(Kind::kDrain, 10, k100, 2, D::kProcess, 200000);
  add(Kind::kDrain, 10, k100, 8, D::kProcess, 200000);
  add(Kind::kDrain, 10, k4K, 1, D::kProcess, 50000);
  add(Kind::kDrain, 1, k256K, 1, D::kProcess, 1000);
  add(Kind::kMixed, 1, k100, 2, D::kNone, 50000);
  add(Kind::kMixed, 1, k100, 2, D::kProcess, 50000);
  add(Kind::kMixed, 10, k100, 2, D::kProcess, 200000);
  add(Kind::kMixed, 10, k100, 8, D::kProcess, 200000);
  add(Kind::kMixed, 10, k100, 8, D::kFsync, 5000);
  // Transactional sends, each durability beside send b1 t1 above (issue #29).
  add(Kind::kTxSend, 1, k100, 1, D::kNone, 50000);
  add(Kind::kTxSend, 1, k100, 1, D::kProcess, 50000);
  add(Kind::kTxSend, 1, k100, 1, D::kFsync, 500);
  add(Kind::kTxSend, 1, k100, 8, D::kFsync, 2000);  // commits sharing fsyncs
  return m;
}

bool g_keep_dirs = false;

void RemoveDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// After a run: removed unless --keep_dirs.
void Cleanup(const std::string& dir) {
  if (!g_keep_dirs) RemoveDir(dir);
}

std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", v);
  return buf;
}

int Main(int argc, char** argv) {
  Flags f;
  std::string child;
  int64_t child_backlog = 0, child_inflight = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      const size_t n = std::strlen(name);
      if (a.compare(0, n, name) == 0 && a.size() > n && a[n] == '=') return argv[i] + n + 1;
      return nullptr;
    };
    if (a == "--quick") {
      f.quick = true;
    } else if (a == "--long") {
      f.long_run = true;
    } else if (a == "--json") {
      f.json = true;
    } else if (const char* v9 = value("--tombstone_lifecycles")) {
      f.tombstone_lifecycles = std::atoll(v9);
    } else if (a == "--keep_dirs") {
      f.keep_dirs = true;
    } else if (const char* v = value("--scale")) {
      f.scale = std::atof(v);
    } else if (const char* v2 = value("--db")) {
      f.db = v2;
    } else if (const char* v3 = value("--table_out")) {
      f.table_out = v3;
    } else if (const char* v4 = value("--workloads")) {
      f.workloads = Split(v4);
    } else if (const char* v5 = value("--systems")) {
      f.systems.clear();
      for (const std::string& s : Split(v5)) {
        if (s == "lqs")
          f.systems.push_back(SystemKind::kLqs);
        else if (s == "ceiling")
          f.systems.push_back(SystemKind::kCeiling);
        else if (s == "sqlite")
          f.systems.push_back(SystemKind::kSqlite);
        else {
          std::fprintf(stderr, "unknown system %s\n", s.c_str());
          return 2;
        }
      }
    } else if (const char* v6 = value("--child")) {
      child = v6;
    } else if (const char* v7 = value("--child_backlog")) {
      child_backlog = std::atoll(v7);
    } else if (const char* v8 = value("--child_inflight")) {
      child_inflight = std::atoll(v8);
    } else if (a == "--help" || a == "-h") {
      std::fprintf(stderr,
                   "usage: lqs_bench [--quick|--long] [--json] [--workloads=a,b] "
                   "[--systems=lqs,ceiling,sqlite] [--scale=X] [--db=DIR] [--table_out=FILE]\n");
      return 0;
    } else {
      std::fprintf(stderr, "unknown flag %s (try --help)\n", a.c_str());
      return 2;
    }
  }
  if (!child.empty()) return RunChild(child, f.db, child_backlog, child_inflight);
  if (f.keep_dirs && f.db.empty()) {
    std::fprintf(stderr, "--keep_dirs needs --db=DIR\n");
    return 2;
  }
  g_keep_dirs = f.keep_dirs;

  bool temp = false;
  if (f.db.empty()) {
    char tmpl[] = "/tmp/lqs_bench.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    f.db = tmpl;
    temp = true;
  }
  std::filesystem::create_directories(f.db);

  const auto run_start = std::chrono::steady_clock::now();
  Report report;
  report.machine = MachineInfo(f.db);
  report.config = {{"mode", f.quick ? "quick" : (f.long_run ? "long" : "default")},
                   {"scale", f.scale},
                   {"db", f.db},
                   {"workloads", f.workloads},
                   {"clock", "std::chrono::steady_clock"},
                   {"lqs_options",
                    "defaults (32 MiB block cache, 16 MiB write buffers, "
                    "background maintenance on)"},
                   {"visibility_timeout_s", 30}};
  std::vector<std::string> system_names;
  for (SystemKind k : f.systems) system_names.push_back(SystemName(k));
  report.config["systems"] = system_names;

  const auto matrix = Matrix(f);
  int index = 0;
  for (const Workload& w : matrix) {
    ++index;
    if (!Selected(f, w.Group(), w.Name())) continue;
    Row row;
    row.workload = w;
    std::string line = "[" + std::to_string(index) + "/" + std::to_string(matrix.size()) + "] " +
                       w.Name() + " (" + std::to_string(w.count) + " msgs):";
    for (SystemKind k : f.systems) {
      if (w.groups > 0 && k == SystemKind::kSqlite) continue;  // no FIFO model in SQLite
      const std::string dir = f.db + "/run-" + SystemName(k);
      RemoveDir(dir);
      Measurement m = RunWorkload(k, w, dir);
      Cleanup(dir);
      line += std::string(" ") + SystemName(k) + " " + (m.ok ? Short(m.MsgsPerSec()) : "FAILED");
      row.by_system[k] = std::move(m);
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    report.rows.push_back(std::move(row));
  }

  if (std::any_of(report.rows.begin(), report.rows.end(),
                  [](const Row& row) { return row.workload.durability == Durability::kFsync; })) {
    report.fdatasync_per_s = FdatasyncPerSecond(f.db, f.quick ? 100 : 500);
    std::fprintf(stderr, "disk: %.0f fdatasync/s\n", report.fdatasync_per_s);
  }

  for (const Row& row : report.rows) {
    const size_t body = row.workload.body;
    if (body >= kReadInclusiveBodyBytes && report.md5_seconds.count(body) == 0) {
      report.md5_seconds[body] = Md5SecondsPerBody(body);
      std::fprintf(stderr, "md5: %.1f us per %zu-byte body\n", report.md5_seconds[body] * 1e6,
                   body);
    }
  }

  auto has = [&](SystemKind k) {
    return std::find(f.systems.begin(), f.systems.end(), k) != f.systems.end();
  };

  if (Selected(f, "backlog")) {
    std::vector<int64_t> sizes =
        f.quick ? std::vector<int64_t>{1000, 10000} : std::vector<int64_t>{1000, 100000, 1000000};
    if (f.long_run) sizes.push_back(10000000);
    const int64_t ops = f.quick ? 2000 : 20000;
    for (int64_t b : sizes) {
      BacklogRow row;
      row.backlog = b;
      std::string line = "backlog " + std::to_string(b) + ":";
      for (SystemKind k : {SystemKind::kLqs, SystemKind::kSqlite}) {
        if (!has(k)) continue;
        const std::string dir = f.db + "/backlog-" + SystemName(k);
        RemoveDir(dir);
        BacklogResult r = RunBacklog(k, b, ops, dir);
        Cleanup(dir);
        line += std::string(" ") + SystemName(k) + " p50 " +
                Short(r.latency.PercentileNanos(50) / 1e3) + "us p99 " +
                Short(r.latency.PercentileNanos(99) / 1e3) + "us";
        row.by_system[k] = std::move(r);
      }
      std::fprintf(stderr, "%s\n", line.c_str());
      report.backlog.push_back(std::move(row));
    }
  }

  if (Selected(f, "tombstones")) {
    const int64_t n = f.tombstone_lifecycles > 0
                          ? f.tombstone_lifecycles
                          : (f.long_run ? 1000000 : (f.quick ? 10000 : 100000));
    TombstoneRow row;
    std::string line = "tombstones " + std::to_string(n) + ":";
    for (SystemKind k : f.systems) {
      const std::string dir = f.db + "/tombstones-" + SystemName(k);
      RemoveDir(dir);
      TombstoneResult r = RunTombstones(k, n, dir);
      Cleanup(dir);
      if (r.ok && !r.tenth_per_sec.empty()) {
        line += std::string(" ") + SystemName(k) + " " + Short(r.tenth_per_sec.front()) + "->" +
                Short(r.tenth_per_sec.back()) + "/s";
      }
      row.by_system[k] = std::move(r);
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    report.tombstones = std::move(row);
  }

  if (Selected(f, "memory") && has(SystemKind::kLqs)) {
    std::vector<int64_t> sizes = {1000, f.long_run ? 10000000 : (f.quick ? 100000 : 1000000)};
    for (int64_t b : sizes) {
      const std::string dir = f.db + "/memory";
      RemoveDir(dir);
      const int64_t inflight = std::min<int64_t>(10000, b / 2);
      MemoryResult r = RunMemory(b, inflight, dir);
      Cleanup(dir);
      std::fprintf(stderr, "memory %lld: fill peak %.1f MB, open %.1f ms, open peak %.1f MB\n",
                   static_cast<long long>(b), r.fill_hwm_kb / 1024.0, r.open_ms,
                   r.open_hwm_kb / 1024.0);
      report.memory.push_back(r);
    }
  }

  if (Selected(f, "fifo") && has(SystemKind::kLqs)) {
    // Idle group memory: one group per message vs all in one group.
    const int64_t n = f.quick ? 20000 : 100000;
    for (int64_t groups : {n, int64_t{1}}) {
      const std::string dir = f.db + "/fifo-idle";
      RemoveDir(dir);
      FifoIdleResult r = RunFifoIdle(n, groups, dir);
      Cleanup(dir);
      std::fprintf(stderr,
                   "fifo idle %lld msgs, %lld groups: live heap %.2f -> %.2f -> %.2f MB, "
                   "%.2f MB flushed\n",
                   static_cast<long long>(n), static_cast<long long>(groups),
                   r.heap_before / 1048576.0, r.heap_queued / 1048576.0, r.heap_drained / 1048576.0,
                   r.heap_flushed / 1048576.0);
      report.fifo_idle.push_back(r);
    }
  }

  if (temp) RemoveDir(f.db);
  report.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  {
    std::ifstream load("/proc/loadavg");
    std::string line;
    if (std::getline(load, line)) report.machine["loadavg_at_end"] = line;
  }

  if (f.json) {
    PrintTable(stderr, report);
    std::cout << ToJson(report).dump(2) << std::endl;
  } else {
    PrintTable(stdout, report);
  }
  if (!f.table_out.empty()) {
    std::FILE* out = std::fopen(f.table_out.c_str(), "w");
    if (out != nullptr) {
      PrintTable(out, report);
      std::fclose(out);
    }
  }
  for (const Row& row : report.rows) {
    for (const auto& [k, m] : row.by_system) {
      if (!m.ok) return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace lqs::bench

int main(int argc, char** argv) { return lqs::bench::Main(argc, argv); }
