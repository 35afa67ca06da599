#include "lib/engine/ids.h"

#include <random>

namespace lqs::engine {

std::string NewMessageId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = (rng() & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  const uint64_t lo = (rng() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  auto put = [&](uint64_t v, int from_nibble, int count) {
    for (int i = 0; i < count; ++i) {
      out.push_back(kHex[(v >> (4 * (15 - from_nibble - i))) & 0xf]);
    }
  };
  put(hi, 0, 8);
  out.push_back('-');
  put(hi, 8, 4);
  out.push_back('-');
  put(hi, 12, 4);
  out.push_back('-');
  put(lo, 0, 4);
  out.push_back('-');
  put(lo, 4, 12);
  return out;
}

std::string RandomBytes(size_t n) {
  std::random_device rd;
  std::string out;
  out.reserve(n);
  while (out.size() < n) {
    uint32_t v = rd();
    for (int i = 0; i < 4 && out.size() < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  }
  return out;
}

}  // namespace lqs::engine
