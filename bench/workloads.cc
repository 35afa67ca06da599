#include "bench/workloads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

#include <dlfcn.h>
#include <malloc.h>
#include <nlohmann/json.hpp>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/enum_names.h"

#include "lqs/lqs.h"

namespace lqs::bench {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t NanosSince(Clock::time_point t0) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// The largest send batch under SQS's 1 MiB batch limit.
int PrefillBatch(size_t body) {
  return static_cast<int>(std::clamp<int64_t>(1048576 / static_cast<int64_t>(body), 1, 10));
}

// Sends `n` messages from `threads` threads in batches of `batch`.
bool Fill(QueueSystem* sys, int64_t n, int batch, int threads) {
  std::atomic<bool> ok{true};
  std::atomic<int64_t> left{n};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&] {
      while (ok.load()) {
        const int64_t got = left.fetch_sub(batch);
        if (got <= 0) break;
        const int k = static_cast<int>(std::min<int64_t>(batch, got));
        if (!sys->Send(k)) ok = false;
      }
    });
  }
  for (auto& t : ts) t.join();
  return ok.load();
}

// Receives and deletes exactly `n` messages from one thread (untimed).
bool DrainExactly(QueueSystem* sys, int64_t n, int batch) {
  std::vector<std::string> handles;
  int idle = 0;
  while (n > 0) {
    handles.clear();
    const int r = sys->Receive(static_cast<int>(std::min<int64_t>(batch, n)), &handles);
    if (r < 0) return false;
    if (r == 0) {
      if (++idle > 100000) {
        std::fprintf(stderr, "bench: queue empty while %lld messages were expected\n",
                     static_cast<long long>(n));
        return false;
      }
      std::this_thread::yield();
      continue;
    }
    if (!sys->Delete(handles)) return false;
    n -= r;
  }
  return true;
}

// Receive+delete until `total` reaches `target`; one latency sample per pair.
void ConsumerLoop(QueueSystem* sys, int batch, int64_t target, std::atomic<int64_t>* total,
                  std::atomic<bool>* ok, Histogram* hist) {
  std::vector<std::string> handles;
  int idle = 0;
  while (ok->load(std::memory_order_relaxed) && total->load() < target) {
    handles.clear();
    const auto t0 = Clock::now();
    const int r = sys->Receive(batch, &handles);
    if (r < 0) {
      *ok = false;
      return;
    }
    if (r == 0) {
      // Nothing ready (producers behind, or the last messages are being
      // deleted by another consumer). Same back-off for every system.
      if (++idle > 16) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      } else {
        std::this_thread::yield();
      }
      continue;
    }
    idle = 0;
    if (!sys->Delete(handles)) {
      *ok = false;
      return;
    }
    hist->Record(NanosSince(t0));
    total->fetch_add(r);
  }
}

// Releases `bodies` together and times them until all return.
template <typename Body>
double RunThreads(int n, Body body) {
  std::atomic<bool> go{false};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i) {
    ts.emplace_back([&, i] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(i);
    });
  }
  const auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();
  return SecondsSince(t0);
}

std::unique_ptr<QueueSystem> Open(SystemKind kind, const std::string& dir, Durability d,
                                  size_t body, int groups = 0) {
  SystemConfig c;
  c.dir = dir;
  c.durability = d;
  c.body_bytes = body;
  c.fifo_groups = groups;
  c.ceiling_reads = body >= kReadInclusiveBodyBytes;
  return OpenSystem(kind, c);
}

// One lifecycle unit: send `batch`, then receive+delete `batch` messages.
// False on error or when nothing could be received for 10 s.
bool LifecycleOnce(QueueSystem* sys, int batch, std::vector<std::string>* handles) {
  if (!sys->Send(batch)) return false;
  int need = batch;
  int idle = 0;
  Clock::time_point idle_since;
  while (need > 0) {
    handles->clear();
    const int r = sys->Receive(need, handles);
    if (r < 0) return false;
    if (r == 0) {
      // Only with several threads on few FIFO groups (groups locked by
      // another thread's lease): back off as ConsumerLoop does.
      if (idle++ == 0) idle_since = Clock::now();
      if (SecondsSince(idle_since) > 10) {
        std::fprintf(stderr, "bench: lifecycle: nothing receivable for 10 s\n");
        return false;
      }
      if (idle > 16) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      } else {
        std::this_thread::yield();
      }
      continue;
    }
    idle = 0;
    if (!sys->Delete(*handles)) return false;
    need -= r;
  }
  return true;
}

int64_t WarmCount(const Workload& w) {
  const int64_t unit = int64_t{w.batch} * std::max(1, w.threads);
  return RoundUp(std::clamp<int64_t>(w.count / 20, 10, 2000), unit);
}

}  // namespace

std::string Workload::KindName() const {
  static constexpr std::pair<Kind, const char*> kNames[] = {{Kind::kSend, "send"},
                                                            {Kind::kDrain, "drain"},
                                                            {Kind::kMixed, "mixed"},
                                                            {Kind::kLifecycle, "life"},
                                                            {Kind::kTxSend, "txsend"}};
  return NameIn(kNames, kind);
}

std::string Workload::Group() const {
  if (groups > 0) return "fifo";
  return kind == Kind::kTxSend ? "tx" : KindName();
}

std::string Workload::Name() const {
  std::string size =
      body >= 1024 ? std::to_string(body / 1024) + "KiB" : std::to_string(body) + "B";
  std::string t = "t" + std::to_string(threads);
  if (kind == Kind::kMixed) {
    const int p = std::max(1, threads / 2);
    t = std::to_string(p) + "p" + std::to_string(std::max(1, threads - p)) + "c";
  }
  return KindName() + " b" + std::to_string(batch) + " " + size + " " + t + " " +
         DurabilityName(durability) + (groups > 0 ? " fifo" + std::to_string(groups) + "g" : "");
}

Measurement RunWorkload(SystemKind kind, const Workload& w, const std::string& dir) {
  Measurement m;
  const int threads = std::max(1, w.threads);
  const int64_t warm = WarmCount(w);
  std::atomic<bool> ok{true};

  if (w.kind == Kind::kLifecycle) {
    const int64_t count = RoundUp(w.count, int64_t{w.batch} * threads);
    auto sys = Open(kind, dir, w.durability, w.body, w.groups);
    if (!sys || !Fill(sys.get(), kLifeStanding, 10, 1)) return m;
    std::vector<std::string> handles;
    for (int64_t i = 0; i < warm; i += w.batch) {
      if (!LifecycleOnce(sys.get(), w.batch, &handles)) return m;
    }
    std::vector<Histogram> hists(threads);
    const int64_t calls = count / w.batch / threads;
    // LQS_BENCH_PERF_CONTEXT=1 (diagnosis, 1 thread): RocksDB's per-thread
    // perf counters over the timed phase, per message, on stderr.
    const bool perf = std::getenv("LQS_BENCH_PERF_CONTEXT") != nullptr && threads == 1;
    m.seconds = RunThreads(threads, [&](int i) {
      if (perf) {
        rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
        rocksdb::get_perf_context()->Reset();
      }
      std::vector<std::string> h;
      for (int64_t c = 0; c < calls && ok.load(std::memory_order_relaxed); ++c) {
        const auto t0 = Clock::now();
        if (!LifecycleOnce(sys.get(), w.batch, &h)) ok = false;
        hists[i].Record(NanosSince(t0));
        if (perf && (c + 1) % (calls / 4 > 0 ? calls / 4 : 1) == 0) {
          const auto* pc = rocksdb::get_perf_context();
          const double n = static_cast<double>((c + 1) * w.batch);
          std::fprintf(stderr,
                       "perf_context %s %s after %lld msgs, per msg: internal_key_skipped %.1f "
                       "internal_delete_skipped %.1f memtable seeks %.2f memtable nexts %.1f\n",
                       SystemName(kind), w.Name().c_str(),
                       static_cast<long long>((c + 1) * w.batch),
                       pc->internal_key_skipped_count / n, pc->internal_delete_skipped_count / n,
                       pc->seek_on_memtable_count / n, pc->next_on_memtable_count / n);
        }
      }
      if (perf) rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    });
    for (const auto& h : hists) m.latency.Merge(h);
    m.msgs = count;
    m.ok = ok.load() && sys->Close();
    return m;
  }

  if (w.kind == Kind::kSend || w.kind == Kind::kTxSend) {
    // A transactional send is one record and one message per call.
    const bool tx = w.kind == Kind::kTxSend;
    const int batch = tx ? 1 : w.batch;
    auto call = [&](QueueSystem* s) { return tx ? s->TxSend() : s->Send(batch); };
    const int64_t count = RoundUp(w.count, int64_t{batch} * threads);
    auto sys = Open(kind, dir, w.durability, w.body, w.groups);
    if (!sys) return m;
    for (int64_t i = 0; i < warm; i += batch) {
      if (!call(sys.get())) return m;
    }
    std::vector<Histogram> hists(threads);
    const int64_t calls = count / batch / threads;
    m.seconds = RunThreads(threads, [&](int i) {
      for (int64_t c = 0; c < calls && ok.load(std::memory_order_relaxed); ++c) {
        const auto t0 = Clock::now();
        if (!call(sys.get())) ok = false;
        hists[i].Record(NanosSince(t0));
      }
    });
    for (const auto& h : hists) m.latency.Merge(h);
    m.msgs = count;
    m.ok = ok.load() && sys->Close();
    return m;
  }

  if (w.kind == Kind::kDrain) {
    const int64_t count = RoundUp(w.count, w.batch);
    {
      // Prefill in the default mode (an fsync'ed prefill would dominate the
      // run); the drain itself runs in the workload's mode after a reopen.
      auto fill = Open(kind, dir, Durability::kProcess, w.body, w.groups);
      if (!fill || !Fill(fill.get(), count + warm, PrefillBatch(w.body), 2) || !fill->Close()) {
        return m;
      }
    }
    auto sys = Open(kind, dir, w.durability, w.body, w.groups);
    if (!sys || !DrainExactly(sys.get(), warm, w.batch)) return m;
    std::vector<Histogram> hists(threads);
    std::atomic<int64_t> total{0};
    m.seconds = RunThreads(
        threads, [&](int i) { ConsumerLoop(sys.get(), w.batch, count, &total, &ok, &hists[i]); });
    for (const auto& h : hists) m.latency.Merge(h);
    m.msgs = total.load();
    m.ok = ok.load() && m.msgs == count && sys->Close();
    return m;
  }

  // Mixed: producers and consumers at once.
  const int producers = std::max(1, threads / 2);
  const int consumers = std::max(1, threads - producers);
  const int64_t count = RoundUp(w.count, int64_t{w.batch} * producers);
  auto sys = Open(kind, dir, w.durability, w.body, w.groups);
  if (!sys || !Fill(sys.get(), warm, w.batch, 1) || !DrainExactly(sys.get(), warm, w.batch)) {
    return m;
  }
  std::vector<Histogram> hists(producers + consumers);
  std::atomic<int64_t> total{0};
  const int64_t calls = count / w.batch / producers;
  m.seconds = RunThreads(producers + consumers, [&](int i) {
    if (i < producers) {
      for (int64_t c = 0; c < calls && ok.load(std::memory_order_relaxed); ++c) {
        if (!sys->Send(w.batch)) ok = false;
      }
    } else {
      ConsumerLoop(sys.get(), w.batch, count, &total, &ok, &hists[i]);
    }
  });
  for (const auto& h : hists) m.latency.Merge(h);
  m.msgs = total.load();
  m.ok = ok.load() && m.msgs == count && sys->Close();
  return m;
}

BacklogResult RunBacklog(SystemKind kind, int64_t backlog, int64_t ops, const std::string& dir) {
  BacklogResult r;
  r.backlog = backlog;
  auto sys = Open(kind, dir, Durability::kProcess, 100);
  if (!sys) return r;
  const auto f0 = Clock::now();
  if (!Fill(sys.get(), backlog, 10, 2)) return r;
  r.fill_seconds = SecondsSince(f0);
  std::vector<std::string> handles;
  double timed = 0;
  const int64_t warm = std::min<int64_t>(1000, ops / 10 + 1);
  for (int64_t i = 0; i < warm + ops; ++i) {
    handles.clear();
    const auto t0 = Clock::now();
    const int got = sys->Receive(1, &handles);
    if (got != 1 || !sys->Delete(handles)) {
      std::fprintf(stderr, "backlog: receive returned %d\n", got);
      return r;
    }
    const uint64_t ns = NanosSince(t0);
    if (i >= warm) {
      r.latency.Record(ns);
      timed += static_cast<double>(ns) / 1e9;
    }
    if (!sys->Send(1)) return r;
  }
  r.ops = ops;
  r.ops_per_sec = timed > 0 ? static_cast<double>(ops) / timed : 0;
  r.ok = sys->Close();
  return r;
}

TombstoneResult RunTombstones(SystemKind kind, int64_t lifecycles, const std::string& dir) {
  TombstoneResult r;
  r.lifecycles = lifecycles;
  constexpr int64_t kStanding = 100;
  {
    auto sys = Open(kind, dir, Durability::kProcess, 100);
    if (!sys || !Fill(sys.get(), kStanding, 10, 1)) return r;
    std::vector<std::string> handles;
    // Warm-up (caches, allocator), 1% of the run, not counted.
    for (int64_t i = 0; i < std::max<int64_t>(100, lifecycles / 100); ++i) {
      handles.clear();
      if (!sys->Send(1) || sys->Receive(1, &handles) != 1 || !sys->Delete(handles)) return r;
    }
    const int64_t tenth = std::max<int64_t>(1, lifecycles / 10);
    auto t0 = Clock::now();
    double cpu0 = ProcessCpuSeconds();
    for (int64_t i = 1; i <= lifecycles; ++i) {
      handles.clear();
      if (!sys->Send(1) || sys->Receive(1, &handles) != 1 || !sys->Delete(handles)) {
        std::fprintf(stderr, "tombstones: lifecycle %lld failed\n", static_cast<long long>(i));
        return r;
      }
      if (i % tenth == 0) {
        r.tenth_per_sec.push_back(static_cast<double>(tenth) / SecondsSince(t0));
        const double cpu = ProcessCpuSeconds();
        r.tenth_cpu_us.push_back((cpu - cpu0) * 1e6 / static_cast<double>(tenth));
        cpu0 = cpu;
        t0 = Clock::now();
      }
    }
    if (!sys->Close()) return r;
  }
  if (kind == SystemKind::kLqs) {
    // Reopen: loading leases scans the inflight family over the run's
    // tombstones; then the first receive seeks past the deleted head.
    const auto t0 = Clock::now();
    auto sys = Open(kind, dir, Durability::kProcess, 100);
    r.reopen_ms = SecondsSince(t0) * 1e3;
    if (!sys) return r;
    std::vector<std::string> handles;
    const auto t1 = Clock::now();
    if (sys->Receive(1, &handles) != 1) return r;
    r.first_receive_after_reopen_us = static_cast<double>(NanosSince(t1)) / 1e3;
    if (!sys->Close()) return r;
  }
  r.ok = true;
  return r;
}

int64_t ReadProcStatusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::stoll(line.substr(n + 1));
    }
  }
  return -1;
}

namespace {

int64_t DirBytes(const std::string& dir) {
  int64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += static_cast<int64_t>(it->file_size(ec));
  }
  return total;
}

// Runs this binary with --child=... and parses the JSON line it prints.
bool RunChildProcess(const std::vector<std::string>& args, nlohmann::json* out) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    static char self[] = "/proc/self/exe";
    argv.push_back(self);
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  *out = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return !out->is_discarded();
}

}  // namespace

MemoryResult RunMemory(int64_t backlog, int64_t inflight, const std::string& dir) {
  MemoryResult r;
  r.backlog = backlog;
  r.inflight = inflight;
  const std::string b = std::to_string(backlog), f = std::to_string(inflight);
  nlohmann::json fill, open;
  if (!RunChildProcess(
          {"--child=fill", "--db=" + dir, "--child_backlog=" + b, "--child_inflight=" + f},
          &fill) ||
      !RunChildProcess({"--child=open", "--db=" + dir}, &open)) {
    std::fprintf(stderr, "memory: a child process failed\n");
    return r;
  }
  r.fill_seconds = fill.value("fill_s", 0.0);
  r.fill_hwm_kb = fill.value("hwm_kb", int64_t{0});
  r.close_ms = fill.value("close_ms", 0.0);
  r.open_ms = open.value("open_ms", 0.0);
  r.first_receive_us = open.value("first_receive_us", 0.0);
  r.open_hwm_kb = open.value("hwm_kb", int64_t{0});
  r.open_rss_kb = open.value("rss_kb", int64_t{0});
  r.disk_bytes = DirBytes(dir);
  r.ok = true;
  return r;
}

FifoIdleResult RunFifoIdle(int64_t messages, int64_t groups, const std::string& dir) {
  FifoIdleResult r;
  r.messages = messages;
  r.groups = groups;
  nlohmann::json j;
  if (!RunChildProcess(
          {"--child=fifo_idle", "--db=" + dir, "--child_backlog=" + std::to_string(messages),
           "--child_inflight=" + std::to_string(groups)},
          &j)) {
    std::fprintf(stderr, "fifo idle: the child process failed\n");
    return r;
  }
  r.heap_before = j.value("heap_before", int64_t{0});
  r.heap_queued = j.value("heap_queued", int64_t{0});
  r.heap_drained = j.value("heap_drained", int64_t{0});
  r.heap_flushed = j.value("heap_flushed", int64_t{0});
  r.rss_before_kb = j.value("rss_before_kb", int64_t{0});
  r.rss_queued_kb = j.value("rss_queued_kb", int64_t{0});
  r.rss_drained_kb = j.value("rss_drained_kb", int64_t{0});
  r.seconds = j.value("seconds", 0.0);
  r.ok = true;
  return r;
}

namespace {

// jemalloc's control interface when lqs_bench runs on jemalloc (it links it
// when installed, see the top-level CMakeLists.txt), else null.
using MallctlFn = int (*)(const char*, void*, size_t*, void*, size_t);
MallctlFn Mallctl() {
  static const auto fn = reinterpret_cast<MallctlFn>(dlsym(RTLD_DEFAULT, "mallctl"));
  return fn;
}

// Live heap bytes after returning free memory to the system: jemalloc's
// stats.allocated after purging every arena, or glibc's mallinfo2 after
// malloc_trim.
int64_t LiveHeap() {
  if (MallctlFn mallctl = Mallctl()) {
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // MALLCTL_ARENAS_ALL
    uint64_t epoch = 1;
    size_t length = sizeof(epoch);
    mallctl("epoch", &epoch, &length, &epoch, length);  // refreshes the statistics
    size_t allocated = 0;
    length = sizeof(allocated);
    if (mallctl("stats.allocated", &allocated, &length, nullptr, 0) == 0) {
      return static_cast<int64_t>(allocated);
    }
  }
  malloc_trim(0);
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
}

int FifoIdleChild(const Options& options, int64_t messages, int64_t groups) {
  nlohmann::json out;
  auto broker = Broker::Open(options);
  if (!broker.ok()) return 2;
  auto queue = (*broker)->CreateQueue("idle.fifo", {{std::string(attr::kFifoQueue), "true"}}, {});
  if (!queue.ok()) return 2;
  const auto t0 = Clock::now();
  out["heap_before"] = LiveHeap();
  out["rss_before_kb"] = ReadProcStatusKb("VmRSS");
  const std::string body = MakeBody(100);
  std::vector<SendMessageBatchEntry> entries(10);
  for (int j = 0; j < 10; ++j) {
    entries[j].id = std::to_string(j);
    entries[j].request.body = body;
  }
  for (int64_t i = 0; i < messages; i += 10) {
    entries.resize(static_cast<size_t>(std::min<int64_t>(10, messages - i)));
    for (size_t j = 0; j < entries.size(); ++j) {
      const int64_t n = i + static_cast<int64_t>(j);
      entries[j].request.message_group_id = GroupName(n % groups);
      entries[j].request.message_deduplication_id = "d" + std::to_string(n);
    }
    auto res = (*queue)->SendMessageBatch(entries);
    if (!res.ok() || !res->failed.empty()) return 3;
  }
  out["heap_queued"] = LiveHeap();
  out["rss_queued_kb"] = ReadProcStatusKb("VmRSS");
  int64_t left = messages;
  int idle = 0;
  while (left > 0) {
    ReceiveMessageRequest req;
    req.max_number_of_messages = 10;
    req.wait_time_seconds = 0;
    auto res = (*queue)->ReceiveMessage(req);
    if (!res.ok()) return 4;
    if (res->messages.empty()) {
      if (++idle > 1000) return 4;
      continue;
    }
    std::vector<DeleteMessageBatchEntry> del;
    for (size_t j = 0; j < res->messages.size(); ++j) {
      del.push_back({std::to_string(j), res->messages[j].receipt_handle});
    }
    auto d = (*queue)->DeleteMessageBatch(del);
    if (!d.ok() || !d->failed.empty()) return 5;
    left -= static_cast<int64_t>(res->messages.size());
  }
  out["heap_drained"] = LiveHeap();
  out["rss_drained_kb"] = ReadProcStatusKb("VmRSS");
  out["seconds"] = SecondsSince(t0);
  if (!(*broker)->CompactAll().ok()) return 7;
  out["heap_flushed"] = LiveHeap();
  queue->reset();
  if (!(*broker)->Close().ok()) return 6;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int RunChild(const std::string& mode, const std::string& dir, int64_t backlog, int64_t inflight) {
  Options options;
  options.path = dir;
  nlohmann::json out;
  if (mode == "fifo_idle") return FifoIdleChild(options, backlog, std::max<int64_t>(1, inflight));
  if (mode == "fill") {
    auto broker = Broker::Open(options);
    if (!broker.ok()) return 2;
    auto queue = (*broker)->CreateQueue("bench", {}, {});
    if (!queue.ok()) return 2;
    const auto t0 = Clock::now();
    std::atomic<int64_t> left{backlog};
    std::atomic<bool> ok{true};
    std::vector<std::thread> ts;
    const std::string body = MakeBody(100);
    for (int t = 0; t < 2; ++t) {
      ts.emplace_back([&] {
        std::vector<SendMessageBatchEntry> entries(10);
        for (int j = 0; j < 10; ++j) {
          entries[j].id = std::to_string(j);
          entries[j].request.body = body;
        }
        while (ok.load()) {
          const int64_t got = left.fetch_sub(10);
          if (got <= 0) break;
          entries.resize(static_cast<size_t>(std::min<int64_t>(10, got)));
          auto res = (*queue)->SendMessageBatch(entries);
          if (!res.ok() || !res->failed.empty()) ok = false;
        }
      });
    }
    for (auto& t : ts) t.join();
    if (!ok.load()) return 3;
    out["fill_s"] = SecondsSince(t0);
    int64_t leased = 0;
    while (leased < inflight) {
      ReceiveMessageRequest req;
      req.max_number_of_messages = 10;
      req.visibility_timeout = 3600;
      req.wait_time_seconds = 0;
      auto res = (*queue)->ReceiveMessage(req);
      if (!res.ok() || res->messages.empty()) return 4;
      leased += static_cast<int64_t>(res->messages.size());
    }
    out["inflight"] = leased;
    out["hwm_kb"] = ReadProcStatusKb("VmHWM");
    queue->reset();
    const auto c0 = Clock::now();
    if (!(*broker)->Close().ok()) return 5;
    out["close_ms"] = SecondsSince(c0) * 1e3;
  } else if (mode == "open") {
    out["hwm_before_kb"] = ReadProcStatusKb("VmHWM");
    const auto t0 = Clock::now();
    auto broker = Broker::Open(options);
    if (!broker.ok()) return 2;
    out["open_ms"] = SecondsSince(t0) * 1e3;
    auto queue = (*broker)->GetQueue("bench");
    if (!queue.ok()) return 2;
    ReceiveMessageRequest req;
    req.wait_time_seconds = 0;
    const auto t1 = Clock::now();
    auto res = (*queue)->ReceiveMessage(req);
    if (!res.ok() || res->messages.size() != 1) return 3;
    out["first_receive_us"] = SecondsSince(t1) * 1e6;
    out["hwm_kb"] = ReadProcStatusKb("VmHWM");
    out["rss_kb"] = ReadProcStatusKb("VmRSS");
    queue->reset();
    if (!(*broker)->Close().ok()) return 5;
  } else {
    return 1;
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace lqs::bench
