// bench/md5_probe.h — the cost of the MD5 digest SQS requires of every send
// (MD5OfMessageBody), on this machine, in the same run: part of the physical
// limit of a large-body send, which no layout of the writes removes.
//
// Thread safety: a plain function.

#ifndef LQS_BENCH_MD5_PROBE_H_
#define LQS_BENCH_MD5_PROBE_H_

#include <cstddef>

namespace lqs::bench {

// Seconds lqs's MD5 (lib/api/md5.h, OpenSSL's) takes over a body of `bytes`
// bytes: the best of a few rounds over about 64 MiB of digests.
double Md5SecondsPerBody(size_t bytes);

}  // namespace lqs::bench

#endif  // LQS_BENCH_MD5_PROBE_H_
