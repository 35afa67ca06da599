// MD5 as RFC 1321 specifies it: 64-byte blocks, four rounds of sixteen steps,
// little-endian words, the message padded with 0x80, zeros and its length in
// bits.

#include "lib/api/md5.h"

#include <cmath>
#include <cstring>

namespace lqs::api {
namespace {

// Left-rotation amounts, four per round.
constexpr int kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

// T[i] = floor(2^32 * |sin(i + 1)|), RFC 1321 §3.4. A double holds each
// product exactly enough for the floor; the RFC test vectors pin the table.
struct SineTable {
  uint32_t t[64];
  SineTable() {
    for (int i = 0; i < 64; ++i) {
      t[i] = static_cast<uint32_t>(
          std::floor(std::fabs(std::sin(static_cast<double>(i + 1))) * 4294967296.0));
    }
  }
};

const SineTable& Table() {
  static const SineTable table;
  return table;
}

uint32_t RotateLeft(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

uint32_t LoadLE32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

struct State {
  uint32_t a = 0x67452301;
  uint32_t b = 0xefcdab89;
  uint32_t c = 0x98badcfe;
  uint32_t d = 0x10325476;
};

// One round's sixteen steps, unrolled so that the rotation amounts and word
// indices are constants.
template <int kRound>
void Round(const uint32_t* m, const uint32_t* t, uint32_t& a, uint32_t& b, uint32_t& c,
           uint32_t& d) {
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) {
    uint32_t f = 0;
    int g = 0;
    if constexpr (kRound == 0) {
      f = d ^ (b & (c ^ d));  // (b & c) | (~b & d)
      g = j;
    } else if constexpr (kRound == 1) {
      f = c ^ (d & (b ^ c));  // (b & d) | (c & ~d)
      g = (5 * j + 1) & 15;
    } else if constexpr (kRound == 2) {
      f = b ^ c ^ d;
      g = (3 * j + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * j) & 15;
    }
    const uint32_t rotated = RotateLeft(a + f + t[16 * kRound + j] + m[g], kShift[kRound][j & 3]);
    a = d;
    d = c;
    c = b;
    b += rotated;
  }
}

void ProcessBlock(const uint8_t* block, const uint32_t* t, State* state) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = LoadLE32(block + 4 * i);
  uint32_t a = state->a;
  uint32_t b = state->b;
  uint32_t c = state->c;
  uint32_t d = state->d;
  Round<0>(m, t, a, b, c, d);
  Round<1>(m, t, a, b, c, d);
  Round<2>(m, t, a, b, c, d);
  Round<3>(m, t, a, b, c, d);
  state->a += a;
  state->b += b;
  state->c += c;
  state->d += d;
}

void StoreLE32(uint32_t v, uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

Md5Digest Md5(std::string_view data) {
  const uint32_t* t = Table().t;
  State state;
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t whole = data.size() / 64;
  for (size_t i = 0; i < whole; ++i) ProcessBlock(bytes + 64 * i, t, &state);

  // The tail, 0x80, zeros up to 56 mod 64, and the length in bits: one
  // block, or two when the tail leaves fewer than 9 bytes free.
  uint8_t last[128] = {};
  const size_t tail = data.size() - 64 * whole;
  if (tail > 0) std::memcpy(last, bytes + 64 * whole, tail);
  last[tail] = 0x80;
  const size_t padded = tail < 56 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) last[padded - 8 + i] = static_cast<uint8_t>(bits >> (8 * i));
  ProcessBlock(last, t, &state);
  if (padded == 128) ProcessBlock(last + 64, t, &state);

  Md5Digest digest;
  StoreLE32(state.a, digest.data());
  StoreLE32(state.b, digest.data() + 4);
  StoreLE32(state.c, digest.data() + 8);
  StoreLE32(state.d, digest.data() + 12);
  return digest;
}

std::string Md5Hex(std::string_view data) {
  const Md5Digest digest = Md5(data);
  return LowerHex(digest.data(), digest.size());
}

std::string LowerHex(const uint8_t* bytes, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * size, '\0');
  for (size_t i = 0; i < size; ++i) {
    hex[2 * i] = kHex[bytes[i] >> 4];
    hex[2 * i + 1] = kHex[bytes[i] & 0x0f];
  }
  return hex;
}

}  // namespace lqs::api
