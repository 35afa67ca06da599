#include "lib/lease/receipt_handle.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "lib/storage/keys.h"

namespace lqs::lease {
namespace {

constexpr char kVersion = 1;
constexpr size_t kPayloadSize = 1 + 8 + 8 + 4;
constexpr size_t kMacSize = 12;
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
  std::string out;
  out.reserve((data.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    uint32_t v = (static_cast<unsigned char>(data[i]) << 16) |
                 (static_cast<unsigned char>(data[i + 1]) << 8) |
                 static_cast<unsigned char>(data[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  size_t rest = data.size() - i;
  if (rest == 1) {
    uint32_t v = static_cast<unsigned char>(data[i]) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (rest == 2) {
    uint32_t v = (static_cast<unsigned char>(data[i]) << 16) |
                 (static_cast<unsigned char>(data[i + 1]) << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

bool Base64UrlDecode(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() % 4 == 1) return false;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = DecodeChar(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // Leftover bits must be zero (canonical encoding only).
  return (acc & ((1u << bits) - 1)) == 0;
}

std::string ReceiptHandleCodec::Mac(std::string_view payload) const {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), digest,
       &len);
  return std::string(reinterpret_cast<const char*>(digest), kMacSize);
}

std::string ReceiptHandleCodec::Encode(const ReceiptHandle& h) const {
  std::string raw;
  raw.reserve(kPayloadSize + kMacSize);
  raw.push_back(kVersion);
  storage::PutBE64(&raw, h.queue_id);
  storage::PutBE64(&raw, h.seq);
  storage::PutLE32(&raw, h.receive_count);
  raw += Mac(raw);
  return Base64UrlEncode(raw);
}

bool ReceiptHandleCodec::Decode(std::string_view text, ReceiptHandle* out) const {
  if (text.size() > 64) return false;
  std::string raw;
  if (!Base64UrlDecode(text, &raw)) return false;
  if (raw.size() != kPayloadSize + kMacSize || raw[0] != kVersion) return false;
  std::string expected = Mac(std::string_view(raw.data(), kPayloadSize));
  if (CRYPTO_memcmp(expected.data(), raw.data() + kPayloadSize, kMacSize) != 0) {
    return false;
  }
  out->queue_id = storage::GetBE64(raw.data() + 1);
  out->seq = storage::GetBE64(raw.data() + 9);
  out->receive_count = storage::GetLE32(raw.data() + 17);
  return out->receive_count > 0;
}

}  // namespace lqs::lease
