#include "bench/report.h"

#include <rocksdb/version.h>
#include <sqlite3.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "lqs/version.h"

namespace lqs::bench {
namespace {

const Measurement* Find(const Row& row, SystemKind k) {
  auto it = row.by_system.find(k);
  return it == row.by_system.end() || !it->second.ok ? nullptr : &it->second;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string Rate(const Measurement* m) { return m ? Fmt("%.0f", m->MsgsPerSec()) : "-"; }

nlohmann::json Num(double v) { return v; }

double TenthAvg(const std::vector<double>& v, bool last) {
  if (v.empty()) return 0;
  return last ? v.back() : v.front();
}

}  // namespace

nlohmann::json MachineInfo(const std::string& db_dir) {
  nlohmann::json m;
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line)) {
    if (line.rfind("model name", 0) == 0) {
      m["cpu"] = line.substr(line.find(':') + 2);
      break;
    }
  }
  m["cores"] = std::thread::hardware_concurrency();
  std::ifstream mem("/proc/meminfo");
  while (std::getline(mem, line)) {
    if (line.rfind("MemTotal:", 0) == 0) {
      m["mem_total_kb"] = std::stoll(line.substr(9));
      break;
    }
  }
  utsname u{};
  if (uname(&u) == 0) m["kernel"] = std::string(u.sysname) + " " + u.release;
  m["compiler"] = __VERSION__;
  m["lqs_version"] = lqs::Version();
  m["rocksdb_version"] = std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) +
                         "." + std::to_string(ROCKSDB_PATCH);
  m["sqlite_version"] = sqlite3_libversion();
  m["db_dir"] = db_dir;
  std::ifstream load("/proc/loadavg");
  if (std::getline(load, line)) m["loadavg_at_start"] = line;
#ifdef NDEBUG
  m["build"] = "NDEBUG";
#else
  m["build"] = "assertions on";
#endif
  return m;
}

void PrintTable(std::FILE* out, const Report& r) {
  std::fprintf(out,
               "\nThroughput (messages/s; a message = send, receive, or receive+delete as the "
               "workload says)\n");
  std::fprintf(out, "%-34s %10s %10s %8s %10s %8s %9s %9s %9s\n", "workload", "lqs", "ceiling",
               "lqs/ceil", "sqlite", "lqs/sql", "p50_us", "p99_us", "sql_p99");
  for (const Row& row : r.rows) {
    const Measurement* l = Find(row, SystemKind::kLqs);
    const Measurement* c = Find(row, SystemKind::kCeiling);
    const Measurement* s = Find(row, SystemKind::kSqlite);
    std::fprintf(out, "%-34s %10s %10s %8s %10s %8s %9s %9s %9s\n",
                 row.workload.Name().c_str(), Rate(l).c_str(), Rate(c).c_str(),
                 l && c ? Fmt("%.2f", Ratio(l->MsgsPerSec(), c->MsgsPerSec())).c_str() : "-",
                 Rate(s).c_str(),
                 l && s ? Fmt("%.2f", Ratio(l->MsgsPerSec(), s->MsgsPerSec())).c_str() : "-",
                 l ? Fmt("%.1f", l->latency.PercentileNanos(50) / 1e3).c_str() : "-",
                 l ? Fmt("%.1f", l->latency.PercentileNanos(99) / 1e3).c_str() : "-",
                 s ? Fmt("%.1f", s->latency.PercentileNanos(99) / 1e3).c_str() : "-");
  }

  if (!r.backlog.empty()) {
    std::fprintf(out, "\nBacklog scaling: receive(1)+delete(1) with N messages waiting (100 B)\n");
    std::fprintf(out, "%-10s %10s %10s %10s %10s %10s %10s %9s\n", "backlog", "lqs_p50us",
                 "lqs_p99us", "lqs_ops/s", "sql_p50us", "sql_p99us", "sql_ops/s", "fill_s");
    for (const BacklogRow& b : r.backlog) {
      auto get = [&](SystemKind k) -> const BacklogResult* {
        auto it = b.by_system.find(k);
        return it == b.by_system.end() || !it->second.ok ? nullptr : &it->second;
      };
      const BacklogResult* l = get(SystemKind::kLqs);
      const BacklogResult* s = get(SystemKind::kSqlite);
      auto p = [](const BacklogResult* x, double q) {
        return x ? Fmt("%.1f", x->latency.PercentileNanos(q) / 1e3) : std::string("-");
      };
      std::fprintf(out, "%-10lld %10s %10s %10s %10s %10s %10s %9s\n",
                   static_cast<long long>(b.backlog), p(l, 50).c_str(), p(l, 99).c_str(),
                   l ? Fmt("%.0f", l->ops_per_sec).c_str() : "-", p(s, 50).c_str(),
                   p(s, 99).c_str(), s ? Fmt("%.0f", s->ops_per_sec).c_str() : "-",
                   l ? Fmt("%.1f", l->fill_seconds).c_str() : "-");
    }
  }

  if (r.tombstones) {
    std::fprintf(out,
                 "\nTombstones: send/receive/delete lifecycles on one queue (lifecycles/s by "
                 "tenth of the run)\n");
    std::fprintf(out, "%-8s %10s %10s %10s %8s  %s\n", "system", "lifecycles", "first10%",
                 "last10%", "last/1st", "all tenths");
    for (const auto& [k, t] : r.tombstones->by_system) {
      if (!t.ok) {
        std::fprintf(out, "%-8s failed\n", SystemName(k));
        continue;
      }
      std::string tenths;
      for (double v : t.tenth_per_sec) tenths += Fmt("%.0f ", v);
      const double first = TenthAvg(t.tenth_per_sec, false), last = TenthAvg(t.tenth_per_sec, true);
      std::fprintf(out, "%-8s %10lld %10.0f %10.0f %8.2f  %s\n", SystemName(k),
                   static_cast<long long>(t.lifecycles), first, last, Ratio(last, first),
                   tenths.c_str());
      if (t.reopen_ms >= 0) {
        std::fprintf(out, "         reopen after the run: Broker::Open %.1f ms, first receive %.1f us\n",
                     t.reopen_ms, t.first_receive_after_reopen_us);
      }
    }
  }

  if (!r.memory.empty()) {
    std::fprintf(out,
                 "\nMemory and open time (lqs; each phase in its own process; VmHWM = peak RSS)\n");
    std::fprintf(out, "%-10s %9s %9s %12s %9s %10s %12s %12s %10s\n", "backlog", "inflight",
                 "fill_s", "fill_hwm_MB", "close_ms", "open_ms", "open_hwm_MB", "1st_recv_us",
                 "disk_MB");
    for (const MemoryResult& m : r.memory) {
      if (!m.ok) {
        std::fprintf(out, "%-10lld failed\n", static_cast<long long>(m.backlog));
        continue;
      }
      std::fprintf(out, "%-10lld %9lld %9.1f %12.1f %9.1f %10.1f %12.1f %12.1f %10.1f\n",
                   static_cast<long long>(m.backlog), static_cast<long long>(m.inflight),
                   m.fill_seconds, m.fill_hwm_kb / 1024.0, m.close_ms, m.open_ms,
                   m.open_hwm_kb / 1024.0, m.first_receive_us, m.disk_bytes / 1048576.0);
    }
  }
  for (const std::string& n : r.notes) std::fprintf(out, "\nnote: %s\n", n.c_str());
  std::fprintf(out, "\n");
}

nlohmann::json ToJson(const Report& r) {
  nlohmann::json doc;
  doc["results"] = nlohmann::json::array();
  for (const Row& row : r.rows) {
    const Measurement* l = Find(row, SystemKind::kLqs);
    const Measurement* c = Find(row, SystemKind::kCeiling);
    const Measurement* s = Find(row, SystemKind::kSqlite);
    nlohmann::json j;
    j["workload"] = row.workload.Name();
    j["kind"] = row.workload.Group();
    j["batch"] = row.workload.batch;
    j["body_bytes"] = row.workload.body;
    j["threads"] = row.workload.threads;
    j["durability"] = DurabilityName(row.workload.durability);
    j["messages"] = l ? l->msgs : (c ? c->msgs : (s ? s->msgs : 0));
    j["msgs_per_sec"] = l ? Num(l->MsgsPerSec()) : nlohmann::json();
    j["ceiling_msgs_per_sec"] = c ? Num(c->MsgsPerSec()) : nlohmann::json();
    j["ratio"] = l && c ? Num(Ratio(l->MsgsPerSec(), c->MsgsPerSec())) : nlohmann::json();
    j["sqlite_msgs_per_sec"] = s ? Num(s->MsgsPerSec()) : nlohmann::json();
    j["sqlite_ratio"] = l && s ? Num(Ratio(l->MsgsPerSec(), s->MsgsPerSec())) : nlohmann::json();
    j["p50_us"] = l ? Num(l->latency.PercentileNanos(50) / 1e3) : nlohmann::json();
    j["p99_us"] = l ? Num(l->latency.PercentileNanos(99) / 1e3) : nlohmann::json();
    j["ceiling_p50_us"] = c ? Num(c->latency.PercentileNanos(50) / 1e3) : nlohmann::json();
    j["ceiling_p99_us"] = c ? Num(c->latency.PercentileNanos(99) / 1e3) : nlohmann::json();
    j["sqlite_p50_us"] = s ? Num(s->latency.PercentileNanos(50) / 1e3) : nlohmann::json();
    j["sqlite_p99_us"] = s ? Num(s->latency.PercentileNanos(99) / 1e3) : nlohmann::json();
    j["seconds"] = l ? Num(l->seconds) : nlohmann::json();
    doc["results"].push_back(j);
  }
  doc["backlog"] = nlohmann::json::array();
  for (const BacklogRow& b : r.backlog) {
    nlohmann::json j;
    j["backlog"] = b.backlog;
    for (const auto& [k, x] : b.by_system) {
      if (!x.ok) continue;
      j[SystemName(k)] = {{"p50_us", x.latency.PercentileNanos(50) / 1e3},
                          {"p99_us", x.latency.PercentileNanos(99) / 1e3},
                          {"ops_per_sec", x.ops_per_sec},
                          {"ops", x.ops},
                          {"fill_seconds", x.fill_seconds}};
    }
    doc["backlog"].push_back(j);
  }
  if (r.tombstones) {
    nlohmann::json t;
    for (const auto& [k, x] : r.tombstones->by_system) {
      if (!x.ok) continue;
      nlohmann::json j;
      j["lifecycles"] = x.lifecycles;
      j["tenths_per_sec"] = x.tenth_per_sec;
      j["first_10pct_per_sec"] = TenthAvg(x.tenth_per_sec, false);
      j["last_10pct_per_sec"] = TenthAvg(x.tenth_per_sec, true);
      j["last_over_first"] = Ratio(TenthAvg(x.tenth_per_sec, true), TenthAvg(x.tenth_per_sec, false));
      if (x.reopen_ms >= 0) {
        j["reopen_ms"] = x.reopen_ms;
        j["first_receive_after_reopen_us"] = x.first_receive_after_reopen_us;
      }
      t[SystemName(k)] = j;
    }
    doc["tombstones"] = t;
  }
  doc["memory"] = nlohmann::json::array();
  for (const MemoryResult& m : r.memory) {
    if (!m.ok) continue;
    doc["memory"].push_back({{"backlog", m.backlog},
                             {"inflight", m.inflight},
                             {"fill_seconds", m.fill_seconds},
                             {"fill_peak_rss_kb", m.fill_hwm_kb},
                             {"close_ms", m.close_ms},
                             {"open_ms", m.open_ms},
                             {"open_peak_rss_kb", m.open_hwm_kb},
                             {"open_rss_kb", m.open_rss_kb},
                             {"first_receive_us", m.first_receive_us},
                             {"disk_bytes", m.disk_bytes}});
  }
  doc["notes"] = r.notes;
  doc["machine"] = r.machine;
  doc["config"] = r.config;
  return doc;
}

}  // namespace lqs::bench
