// bench/md5_probe.cc — see md5_probe.h.

#include "bench/md5_probe.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "bench/systems.h"
#include "lib/api/md5.h"

namespace lqs::bench {

double Md5SecondsPerBody(size_t bytes) {
  const std::string body = MakeBody(bytes);
  const size_t count = std::max<size_t>(16, (size_t{64} << 20) / std::max<size_t>(1, bytes));
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    size_t sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < count; ++i) sink += api::Md5Hex(body)[0];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                     static_cast<double>(count);
    if (sink == 0) return 0;  // keeps the digests; a hex digit is never NUL
    if (round == 0 || s < best) best = s;
  }
  return best;
}

}  // namespace lqs::bench
