// MD5 (RFC 1321) of a byte string, for SQS's MD5OfMessageBody and
// MD5OfMessageAttributes (sqs-api.md §4.6). Not for security: SQS uses MD5 as
// a checksum, and so does lqs.
//
// lqs computes one digest per message sent, usually of a short body; OpenSSL's
// EVP interface spends about as much on its provider dispatch as on hashing
// such a body, so the digest is computed here. md5_test.cc checks it against
// RFC 1321's test suite and against OpenSSL for every length up to five
// blocks.
//
// Thread safety: pure functions; safe from any thread.

#ifndef LQS_LIB_API_MD5_H_
#define LQS_LIB_API_MD5_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace lqs::api {

using Md5Digest = std::array<uint8_t, 16>;

// The 16-byte digest of `data`.
Md5Digest Md5(std::string_view data);

// The digest as 32 lowercase hexadecimal characters.
std::string Md5Hex(std::string_view data);

// `size` bytes as 2 * size lowercase hexadecimal characters, the way lqs
// prints every digest (MD5 here, SHA-256 in message_rules.cc).
std::string LowerHex(const uint8_t* bytes, size_t size);

}  // namespace lqs::api

#endif  // LQS_LIB_API_MD5_H_
