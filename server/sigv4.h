// server/sigv4.h — optional AWS Signature Version 4 verification
// (docs/sqs-reference.md §13.3); the key derivation and string to sign are
// wire/sigv4.h's, which the `lqs` CLI signs with.
//
// Accepts the Authorization-header form (every SDK, aws-cli) and the
// presigned query-string form (X-Amz-Algorithm, X-Amz-Credential, ...).
// Outcomes: no signature -> MissingAuthenticationToken (403); a malformed
// Authorization header or presign (an X-Amz-Expires that is not a
// non-negative integer included) -> IncompleteSignature (400); an access key
// not in the key file -> InvalidClientTokenId (403); a signature that does not
// match, or a request dated more than 15 minutes from now (presigned: past
// its X-Amz-Expires) -> SignatureDoesNotMatch (403).
//
// Key file: one "ACCESS_KEY_ID SECRET_ACCESS_KEY" pair per line; blank lines
// and lines starting with '#' are ignored.
//
// Thread safety: Verify() is const and may run concurrently.

#ifndef LQS_SERVER_SIGV4_H_
#define LQS_SERVER_SIGV4_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "server/error_map.h"
#include "server/http_types.h"
#include "wire/sigv4.h"

namespace lqsd {

class SigV4Verifier {
 public:
  // Reads a key file. On error returns nullopt and sets *error.
  static std::optional<SigV4Verifier> LoadFile(const std::string& path, std::string* error);

  explicit SigV4Verifier(std::map<std::string, std::string> secrets)
      : secrets_(std::move(secrets)) {}

  // nullopt when `request` is signed by a known key; else the error to send.
  // `now_unix` is the current time in seconds since the epoch. On success,
  // `*signed_region` (when given) is the region of the verified credential
  // scope, as SigningRegion() would read it, without parsing it again.
  std::optional<SqsError> Verify(const HttpRequest& request, int64_t now_unix,
                                 std::string* signed_region = nullptr) const;

  size_t key_count() const { return secrets_.size(); }

  // True when `secret` is the secret of access key `key_id` (for the web
  // console's login form, console_session.h); compared in constant time.
  bool SecretMatches(std::string_view key_id, std::string_view secret) const;

 private:
  std::map<std::string, std::string> secrets_;  // access key id -> secret
};

// The region of the credential scope a request is signed for (the
// Authorization header's Credential, the last one as Verify() reads it, else
// a presigned X-Amz-Credential), as given; nullopt when the request carries
// no well-formed credential. Reads the signature's scope only: it verifies
// nothing.
std::optional<std::string> SigningRegion(const HttpRequest& request);

// ---- Building blocks (exposed for tests) -------------------------------------------

using lqs::wire::Sha256Hex;
using lqs::wire::SignatureFor;

// The canonical request of SigV4 for `request`, given the signed header
// names (lower-case, ';'-separated) and the payload hash. `presigned`: the
// X-Amz-Signature query parameter is left out of the canonical query.
std::string CanonicalRequest(const HttpRequest& request, std::string_view signed_headers,
                             std::string_view payload_hash, bool presigned);

// "20240101T000000Z" -> seconds since the epoch; nullopt if malformed.
std::optional<int64_t> ParseAmzDate(std::string_view text);

}  // namespace lqsd

#endif  // LQS_SERVER_SIGV4_H_
