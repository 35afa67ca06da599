// wire/sigv4.h — AWS Signature Version 4 (docs/sqs-reference.md §13.3) as both sides
// of lqs compute it: lqsd verifies signatures (server/sigv4.h) and the `lqs`
// CLI signs its requests to lqsd (tools/remote_backend.cc), with the same
// key derivation and string to sign. SHA-256 and HMAC are OpenSSL's.
//
// Thread safety: pure functions.

#ifndef LQS_WIRE_SIGV4_H_
#define LQS_WIRE_SIGV4_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/api/md5.h"

namespace lqs::wire {

inline constexpr std::string_view kSigV4Algorithm = "AWS4-HMAC-SHA256";

// Lower-case hex SHA-256 of `data` (lib/api/md5.h).
using api::Sha256Hex;
// Raw HMAC-SHA256 bytes.
std::string HmacSha256(std::string_view key, std::string_view data);

// Hex signature of `string_to_sign` with the key derived from `secret`,
// `date` (yyyymmdd), `region` and `service`.
std::string SignatureFor(std::string_view secret, std::string_view date, std::string_view region,
                         std::string_view service, std::string_view string_to_sign);

// "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex SHA-256 of canonical_request>".
std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);

// Seconds since the epoch -> "20240101T000000Z" (UTC).
std::string FormatAmzDate(int64_t unix_seconds);

// Who signs, for which region and service.
struct SigningCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty: none (else sent and signed as X-Amz-Security-Token)
  std::string region;
  std::string service = "sqs";
};

// RFC 3986 encoding as SigV4 wants it: everything except A-Z a-z 0-9 - _ .
// ~ becomes %XX (upper-case hex); '/' too unless keep_slash.
std::string UriEncode(std::string_view text, bool keep_slash);

// SigV4's canonical query string of decoded (name, value) pairs: each name
// and value UriEncode'd (no '/' kept), the pairs sorted by encoded name, then
// value, joined as "n1=v1&n2=v2". It is also a valid query string to send:
// a server that decodes it and canonicalises it again gets the same text.
std::string CanonicalQuery(std::vector<std::pair<std::string, std::string>> params);

// Signs a request. `path` must already be in canonical form (unreserved
// characters and '/' only, e.g. "/"); `canonical_query` is the request's
// query string exactly as sent, which must be CanonicalQuery's form (empty:
// none); `headers` are the fields to sign, names in lower case, each name
// once (host included). Returns the fields to add to the request, in this
// order: x-amz-date, x-amz-security-token (only with a session token) and
// authorization (every given header, and those two, signed).
std::vector<std::pair<std::string, std::string>> SignRequest(
    const SigningCredentials& credentials, std::string_view method, std::string_view path,
    std::vector<std::pair<std::string, std::string>> headers, std::string_view body,
    int64_t now_unix, std::string_view canonical_query = {});

}  // namespace lqs::wire

#endif  // LQS_WIRE_SIGV4_H_
