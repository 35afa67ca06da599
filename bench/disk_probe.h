// bench/disk_probe.h — the disk's own fdatasync rate, the physical limit of
// every workload that syncs once per call (lqs_bench's fsync rows).
//
// Thread safety: a plain function; it uses only its own file.

#ifndef LQS_BENCH_DISK_PROBE_H_
#define LQS_BENCH_DISK_PROBE_H_

#include <string>

namespace lqs::bench {

// Appends 100 bytes to a new file in `dir` and fdatasyncs it, `count` times
// one after another (as a log that syncs each record does); returns the
// syncs per second, or 0 on an error (printed to stderr). Removes the file.
double FdatasyncPerSecond(const std::string& dir, int count);

}  // namespace lqs::bench

#endif  // LQS_BENCH_DISK_PROBE_H_
