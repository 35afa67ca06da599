// bench/report.h — lqs_bench's results: the human table and the JSON document.

#ifndef LQS_BENCH_REPORT_H_
#define LQS_BENCH_REPORT_H_

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/systems.h"
#include "bench/workloads.h"

namespace lqs::bench {

// One throughput workload, measured on each system that ran it.
struct Row {
  Workload workload;
  std::map<SystemKind, Measurement> by_system;
};

struct BacklogRow {
  int64_t backlog = 0;
  std::map<SystemKind, BacklogResult> by_system;
};

struct TombstoneRow {
  std::map<SystemKind, TombstoneResult> by_system;
};

// One of the targets of issue #3, evaluated from this run's rows.
struct Target {
  std::string name;       // what is compared
  std::string value;      // measured (formatted)
  std::string threshold;  // required
  std::string status;     // "MET", "NOT MET", or "n/a (...)" when not measured
};

struct Report {
  std::vector<Row> rows;
  std::vector<BacklogRow> backlog;
  std::optional<TombstoneRow> tombstones;
  std::vector<MemoryResult> memory;
  std::vector<FifoIdleResult> fifo_idle;  // [0]: one group per message, [1]: control
  double elapsed_seconds = 0;
  // The disk's fdatasync rate (bench/disk_probe.h), measured after the
  // workload rows when any of them ran in mode fsync; 0 when not measured.
  double fdatasync_per_s = 0;
  // Seconds of MD5 per body (bench/md5_probe.h), by body size, measured
  // after the workload rows for each large body size they ran.
  std::map<size_t, double> md5_seconds;
  std::vector<std::string> notes;  // skipped workloads (FIFO) and other remarks
  nlohmann::json machine;
  nlohmann::json config;
};

// Facts about this machine and build (CPU, cores, memory, kernel, versions).
nlohmann::json MachineInfo(const std::string& db_dir);

std::vector<Target> Targets(const Report& r);

void PrintTable(std::FILE* out, const Report& r);
nlohmann::json ToJson(const Report& r);

}  // namespace lqs::bench

#endif  // LQS_BENCH_REPORT_H_
