#include "lib/engine/ids.h"

#include <random>

namespace lqs::engine {

std::string NewMessageId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = (rng() & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  const uint64_t lo = (rng() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  static constexpr char kHex[] = "0123456789abcdef";
  // 8-4-4-4-12 hex digits: hi's 16 nibbles, then lo's.
  char out[36];
  size_t at = 0;
  auto put = [&](uint64_t v, int count) {
    for (int i = 0; i < count; ++i) {
      out[at++] = kHex[v >> 60];
      v <<= 4;
    }
    return v;
  };
  uint64_t rest = put(hi, 8);
  out[at++] = '-';
  rest = put(rest, 4);
  out[at++] = '-';
  put(rest, 4);
  out[at++] = '-';
  rest = put(lo, 4);
  out[at++] = '-';
  put(rest, 12);
  return std::string(out, sizeof(out));
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
