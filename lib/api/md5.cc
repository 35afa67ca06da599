// MD5 and SHA-256 by OpenSSL (see md5.h).

// OpenSSL 3 marks the MD5_* functions deprecated in favour of EVP. For the
// short bodies of most messages MD5() is measurably cheaper than EVP, whose
// provider dispatch costs about as much as hashing 100 bytes (see md5.h), so
// lqs keeps MD5() and silences the deprecation for this file only.
#define OPENSSL_SUPPRESS_DEPRECATED

#include "lib/api/md5.h"

#include <array>
#include <memory>

#include <openssl/evp.h>
#include <openssl/md5.h>

namespace lqs::api {

static_assert(sizeof(Md5Digest) == MD5_DIGEST_LENGTH);

Md5Digest Md5(std::string_view data) {
  Md5Digest digest;
  MD5(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data());
  return digest;
}

std::string Md5Hex(std::string_view data) {
  const Md5Digest digest = Md5(data);
  return LowerHex(digest.data(), digest.size());
}

// OpenSSL 3 looks an algorithm up on every EVP_Digest call, which costs
// more than hashing a small message; fetch it once and keep a context per
// thread instead.
std::string Sha256Hex(std::string_view data) {
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  struct CtxDeleter {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  thread_local std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (kSha256 == nullptr || !ctx || EVP_DigestInit_ex2(ctx.get(), kSha256, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest.data(), &length) != 1) {
    return std::string();
  }
  return LowerHex(digest.data(), length);
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
