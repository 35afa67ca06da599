#include "lib/lease/receipt_handle.h"

#include <openssl/evp.h>

#include "lib/storage/keys.h"

namespace lqs::lease {
namespace {

constexpr char kVersion = 1;
constexpr size_t kPayloadSize = 1 + 8 + 8 + 4;
constexpr size_t kMacSize = 8;
constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

}  // namespace

std::string Base64UrlEncode(std::string_view data) {
  const auto* in = reinterpret_cast<const unsigned char*>(data.data());
  const size_t n = data.size();
  std::string out((n * 4 + 2) / 3, '\0');
  char* o = out.data();
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    *o++ = kAlphabet[(v >> 18) & 63];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = kAlphabet[(v >> 6) & 63];
    *o++ = kAlphabet[v & 63];
  }
  const size_t rest = n - i;
  if (rest > 0) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (rest == 2 ? uint32_t{in[i + 1]} << 8 : 0);
    *o++ = kAlphabet[(v >> 18) & 63];
    *o++ = kAlphabet[(v >> 12) & 63];
    if (rest == 2) *o++ = kAlphabet[(v >> 6) & 63];
  }
  return out;
}

bool Base64UrlDecode(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() % 4 == 1) return false;
  out->resize(text.size() * 3 / 4);
  char* o = out->data();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = DecodeChar(c);
    if (v < 0) {
      out->clear();
      return false;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *o++ = static_cast<char>((acc >> bits) & 0xff);
    }
  }
  // Leftover bits must be zero (canonical encoding only).
  return (acc & ((1u << bits) - 1)) == 0;
}

uint64_t SipHash24(uint64_t k0, uint64_t k1, std::string_view data) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
  };
  const size_t n = data.size();
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t m = 0;
    for (int j = 7; j >= 0; --j) m = (m << 8) | p[i + j];
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(n & 0xff) << 56;
  for (size_t j = 0; i + j < n; ++j) last |= static_cast<uint64_t>(p[i + j]) << (8 * j);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int r = 0; r < 4; ++r) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

ReceiptHandleCodec::ReceiptHandleCodec(const std::string& secret) {
  // The 128-bit SipHash key: the first half of SHA-256(secret).
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(secret.data(), secret.size(), digest, &len, EVP_sha256(), nullptr);
  for (int i = 7; i >= 0; --i) k0_ = (k0_ << 8) | digest[i];
  for (int i = 15; i >= 8; --i) k1_ = (k1_ << 8) | digest[i];
}

uint64_t ReceiptHandleCodec::Mac(std::string_view payload) const {
  return SipHash24(k0_, k1_, payload);
}

std::string ReceiptHandleCodec::Encode(const ReceiptHandle& h) const {
  char raw[kPayloadSize + kMacSize];
  raw[0] = kVersion;
  for (int b = 0; b < 8; ++b) {
    raw[1 + b] = static_cast<char>(h.queue_id >> (56 - 8 * b));
    raw[9 + b] = static_cast<char>(h.seq >> (56 - 8 * b));
  }
  for (int b = 0; b < 4; ++b) raw[17 + b] = static_cast<char>(h.receive_count >> (8 * b));
  const uint64_t mac = Mac(std::string_view(raw, kPayloadSize));
  for (int b = 0; b < 8; ++b) raw[kPayloadSize + b] = static_cast<char>(mac >> (8 * b));
  return Base64UrlEncode(std::string_view(raw, sizeof raw));
}

bool ReceiptHandleCodec::Decode(std::string_view text, ReceiptHandle* out) const {
  if (text.size() > 64) return false;
  std::string raw;
  if (!Base64UrlDecode(text, &raw)) return false;
  if (raw.size() != kPayloadSize + kMacSize || raw[0] != kVersion) return false;
  if (Mac(std::string_view(raw.data(), kPayloadSize)) != storage::GetLE64(raw.data() + kPayloadSize)) {
    return false;
  }
  out->queue_id = storage::GetBE64(raw.data() + 1);
  out->seq = storage::GetBE64(raw.data() + 9);
  out->receive_count = storage::GetLE32(raw.data() + 17);
  return out->receive_count > 0;
}

}  // namespace lqs::lease
