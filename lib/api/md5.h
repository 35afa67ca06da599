// lib/api/md5.h — the digests lqs computes: MD5 (RFC 1321), for SQS's
// MD5OfMessageBody and MD5OfMessageAttributes (docs/sqs-reference.md §5.5),
// and SHA-256. Not for security: SQS uses MD5 as a checksum, and so does lqs.
//
// MD5 is computed by OpenSSL's MD5(): measured against EVP (a digest context
// fetched once, reused per thread) and against a hand-written RFC 1321
// implementation, MD5() ties the latter on 100-byte bodies and is as fast as
// either on 4 KiB and 256 KiB ones, while EVP's provider dispatch costs about
// a quarter more on short bodies. md5_test.cc checks the results against
// RFC 1321's test suite and against OpenSSL's EVP for every length up to
// five blocks.
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

// Lower-case hex SHA-256 of `data` (64 chars): FIFO content-based
// deduplication ids and SigV4 (wire/sigv4.h). OpenSSL's EVP with the
// algorithm fetched once and a digest context kept per thread; "" only if
// OpenSSL fails.
std::string Sha256Hex(std::string_view data);

// `size` bytes as 2 * size lowercase hexadecimal characters, the way lqs
// prints every digest.
std::string LowerHex(const uint8_t* bytes, size_t size);

}  // namespace lqs::api

#endif  // LQS_LIB_API_MD5_H_
