#include "lib/lease/receipt_handle.h"

#include <absl/strings/escaping.h>
#include <openssl/evp.h>

#include "lib/storage/keys.h"

namespace lqs::lease {
namespace {

constexpr char kVersion = 1;
constexpr size_t kPayloadSize = 1 + 8 + 8 + 4;
constexpr size_t kMacSize = 8;

bool IsUrlChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// The 6-bit value of a base64url character (one that IsUrlChar accepts).
int UrlValue(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  return c == '-' ? 62 : 63;
}

}  // namespace

// The codec is Abseil's (built here with its own string_view type); the
// checks around it keep decoding strict, as Abseil also skips whitespace.
std::string Base64UrlEncode(std::string_view data) {
  return absl::WebSafeBase64Escape(absl::string_view(data.data(), data.size()));
}

bool Base64UrlDecode(std::string_view text, std::string* out) {
  out->clear();
  for (char c : text) {
    if (!IsUrlChar(c)) return false;
  }
  // Canonical text only: the bits of the last character past the data (4 at
  // a length of 2 mod 4, 2 at 3 mod 4) must be zero. (1 mod 4 is never
  // base64; the decoder rejects it.)
  const size_t rest = text.size() % 4;
  if (rest >= 2 && (UrlValue(text.back()) & (rest == 2 ? 0x0f : 0x03)) != 0) return false;
  if (!absl::WebSafeBase64Unescape(absl::string_view(text.data(), text.size()), out)) {
    out->clear();
    return false;
  }
  return true;
}

uint64_t SipHash24(uint64_t k0, uint64_t k1, std::string_view data) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
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
  if (Mac(std::string_view(raw.data(), kPayloadSize)) !=
      storage::GetLE64(raw.data() + kPayloadSize)) {
    return false;
  }
  out->queue_id = storage::GetBE64(raw.data() + 1);
  out->seq = storage::GetBE64(raw.data() + 9);
  out->receive_count = storage::GetLE32(raw.data() + 17);
  return out->receive_count > 0;
}

}  // namespace lqs::lease
