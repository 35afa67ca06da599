// SigV4 verification (see sigv4.h).

#include "server/sigv4.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <openssl/crypto.h>

#include "server/text_util.h"

namespace lqsd {
namespace {

constexpr std::string_view kAlgorithm = lqs::wire::kSigV4Algorithm;
constexpr int64_t kMaxSkewSeconds = 15 * 60;
constexpr std::string_view kMismatchText =
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. Consult the service "
    "documentation for details.";

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    const size_t next = s.find(sep, pos);
    out.push_back(
        s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return out;
}

// RFC 3986 §5.2.4 with empty segments dropped, as botocore and the JS SDK do.
std::string NormalizePath(std::string_view path) {
  if (path.empty()) return "/";
  std::vector<std::string_view> segments;
  for (std::string_view seg : Split(path, '/')) {
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
    } else {
      segments.push_back(seg);
    }
  }
  std::string out = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out += '/';
    out += segments[i];
  }
  if (!segments.empty() && path.back() == '/') out += '/';
  return out;
}

std::string CollapseSpaces(std::string_view v) {
  v = Trim(v);
  std::string out;
  out.reserve(v.size());
  bool space = false;
  for (const char c : v) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Raw query pairs, percent-decoded ('+' kept literally).
std::vector<std::pair<std::string, std::string>> RawQueryPairs(std::string_view query) {
  return ParseFormPairs(query, /*plus_is_space=*/false);
}

const std::string* QueryValue(const std::vector<std::pair<std::string, std::string>>& pairs,
                              std::string_view name) {
  for (const auto& [k, v] : pairs) {
    if (k == name) return &v;
  }
  return nullptr;
}

struct Credential {
  std::string access_key;
  std::string date;
  std::string region;
  std::string service;
};

std::optional<Credential> ParseCredential(std::string_view text) {
  const std::vector<std::string_view> parts = Split(text, '/');
  if (parts.size() != 5 || parts[0].empty() || parts[1].size() != 8 || parts[4] != "aws4_request") {
    return std::nullopt;
  }
  return Credential{std::string(parts[0]), std::string(parts[1]), std::string(parts[2]),
                    std::string(parts[3])};
}

// The Credential, SignedHeaders and Signature of an Authorization header's
// "Name=value" list (the part after the algorithm); the last of a name wins.
struct AuthParams {
  std::string credential;
  std::string signed_headers;
  std::string signature;
};

AuthParams ParseAuthParams(std::string_view params) {
  AuthParams out;
  for (std::string_view part : Split(params, ',')) {
    part = Trim(part);
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view k = Trim(part.substr(0, eq));
    const std::string_view v = Trim(part.substr(eq + 1));
    if (k == "Credential") out.credential = std::string(v);
    if (k == "SignedHeaders") out.signed_headers = std::string(v);
    if (k == "Signature") out.signature = std::string(v);
  }
  return out;
}

bool SameSignature(std::string_view expected, std::string_view given) {
  const std::string lower = AsciiLower(given);
  return expected.size() == lower.size() &&
         CRYPTO_memcmp(expected.data(), lower.data(), expected.size()) == 0;
}

}  // namespace

std::optional<std::string> SigningRegion(const HttpRequest& request) {
  std::optional<Credential> credential;
  if (const std::string* auth = request.Header("authorization")) {
    // Read as Verify() reads it (after the algorithm, if it is SigV4's).
    std::string_view value = Trim(*auth);
    if (value.substr(0, kAlgorithm.size()) == kAlgorithm && value.size() > kAlgorithm.size() &&
        value[kAlgorithm.size()] == ' ') {
      value.remove_prefix(kAlgorithm.size() + 1);
    }
    credential = ParseCredential(ParseAuthParams(value).credential);
  } else {
    const std::string_view query = request.RawQuery();
    if (query.find("X-Amz-Credential=") == std::string_view::npos) return std::nullopt;
    const auto pairs = RawQueryPairs(query);
    if (const std::string* cred = QueryValue(pairs, "X-Amz-Credential")) {
      credential = ParseCredential(*cred);
    }
  }
  if (!credential.has_value()) return std::nullopt;
  return std::move(credential->region);
}

std::optional<int64_t> ParseAmzDate(std::string_view text) {
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return std::nullopt;
  for (size_t i = 0; i < 15; ++i) {
    if (i == 8) continue;
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  auto num = [&](size_t pos, size_t len) {
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(4, 2) - 1;
  tm.tm_mday = num(6, 2);
  tm.tm_hour = num(9, 2);
  tm.tm_min = num(11, 2);
  tm.tm_sec = num(13, 2);
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  return static_cast<int64_t>(timegm(&tm));
}

std::string CanonicalRequest(const HttpRequest& request, std::string_view signed_headers,
                             std::string_view payload_hash, bool presigned) {
  std::string out = request.method;
  out += '\n';
  out += UriEncode(NormalizePath(request.RawPath()), /*keep_slash=*/true);
  out += '\n';

  std::vector<std::pair<std::string, std::string>> query;
  for (auto& [k, v] : RawQueryPairs(request.RawQuery())) {
    if (presigned && k == "X-Amz-Signature") continue;
    query.emplace_back(UriEncode(k, false), UriEncode(v, false));
  }
  std::sort(query.begin(), query.end());
  for (size_t i = 0; i < query.size(); ++i) {
    if (i > 0) out += '&';
    out += query[i].first;
    out += '=';
    out += query[i].second;
  }
  out += '\n';

  for (std::string_view name : Split(signed_headers, ';')) {
    out += name;
    out += ':';
    bool first = true;
    for (const auto& [hname, hvalue] : request.headers) {
      if (hname != name) continue;
      if (!first) out += ',';
      out += CollapseSpaces(hvalue);
      first = false;
    }
    out += '\n';
  }
  out += '\n';
  out += signed_headers;
  out += '\n';
  out += payload_hash;
  return out;
}

std::optional<SigV4Verifier> SigV4Verifier::LoadFile(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read auth file " + path;
    return std::nullopt;
  }
  std::map<std::string, std::string> secrets;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream fields(line);
    std::string key;
    std::string secret;
    std::string extra;
    if (!(fields >> key) || key[0] == '#') continue;
    if (!(fields >> secret) || (fields >> extra)) {
      *error =
          path + ":" + std::to_string(line_no) + ": expected \"ACCESS_KEY_ID SECRET_ACCESS_KEY\"";
      return std::nullopt;
    }
    secrets[key] = secret;
  }
  if (secrets.empty()) {
    *error = "auth file " + path + " holds no keys";
    return std::nullopt;
  }
  return SigV4Verifier(std::move(secrets));
}

std::optional<SqsError> SigV4Verifier::Verify(const HttpRequest& request, int64_t now_unix,
                                              std::string* signed_region) const {
  std::string access_key;
  std::string amz_date;
  std::string signed_headers;
  std::string signature;
  std::optional<Credential> credential;
  bool presigned = false;

  if (const std::string* auth = request.Header("authorization")) {
    const std::string_view value = Trim(*auth);
    if (value.substr(0, kAlgorithm.size()) != kAlgorithm || value.size() == kAlgorithm.size() ||
        value[kAlgorithm.size()] != ' ') {
      return IncompleteSignature("Authorization header must use the AWS4-HMAC-SHA256 algorithm.");
    }
    AuthParams params = ParseAuthParams(value.substr(kAlgorithm.size() + 1));
    const std::string& credential_text = params.credential;
    signed_headers = std::move(params.signed_headers);
    signature = std::move(params.signature);
    if (credential_text.empty() || signed_headers.empty() || signature.empty()) {
      return IncompleteSignature(
          "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' "
          "parameters.");
    }
    credential = ParseCredential(credential_text);
    if (!credential.has_value()) {
      return IncompleteSignature(
          "Credential should be scoped to a valid date, region, "
          "service and aws4_request terminator.");
    }
    const std::string* date = request.Header("x-amz-date");
    if (date == nullptr) {
      return IncompleteSignature(
          "Authorization header requires existence of a 'X-Amz-Date' "
          "header.");
    }
    amz_date = std::string(Trim(*date));
  } else {
    const auto query = RawQueryPairs(request.RawQuery());
    const std::string* algorithm = QueryValue(query, "X-Amz-Algorithm");
    const std::string* sig = QueryValue(query, "X-Amz-Signature");
    if (algorithm == nullptr && sig == nullptr) return MissingAuthenticationToken();
    const std::string* cred = QueryValue(query, "X-Amz-Credential");
    const std::string* date = QueryValue(query, "X-Amz-Date");
    const std::string* headers = QueryValue(query, "X-Amz-SignedHeaders");
    if (algorithm == nullptr || *algorithm != kAlgorithm || sig == nullptr || cred == nullptr ||
        date == nullptr || headers == nullptr) {
      return IncompleteSignature(
          "A presigned request requires X-Amz-Algorithm="
          "AWS4-HMAC-SHA256, X-Amz-Credential, X-Amz-Date, "
          "X-Amz-SignedHeaders and X-Amz-Signature.");
    }
    credential = ParseCredential(*cred);
    if (!credential.has_value()) {
      return IncompleteSignature(
          "Credential should be scoped to a valid date, region, "
          "service and aws4_request terminator.");
    }
    amz_date = *date;
    signed_headers = *headers;
    signature = *sig;
    presigned = true;
    if (const std::string* expires = QueryValue(query, "X-Amz-Expires")) {
      // An expiry that does not read is no reason to accept the request
      // for ever.
      const std::optional<long long> e = ParseInt64(*expires);
      if (!e.has_value() || *e < 0) {
        return IncompleteSignature("X-Amz-Expires must be a non-negative number of seconds.");
      }
      // now - t, not t + e: X-Amz-Expires may be up to INT64_MAX, and
      // ParseAmzDate's four-digit years keep t small.
      const std::optional<int64_t> t = ParseAmzDate(amz_date);
      if (t.has_value() && now_unix - *t > *e) {
        return SignatureDoesNotMatch(
            "Signature expired: the presigned request is past its "
            "X-Amz-Expires.");
      }
    }
  }

  const std::optional<int64_t> when = ParseAmzDate(amz_date);
  if (!when.has_value()) {
    return IncompleteSignature(
        "X-Amz-Date must be in the ISO 8601 basic format "
        "yyyyMMdd'T'HHmmss'Z'.");
  }
  access_key = credential->access_key;
  const auto secret = secrets_.find(access_key);
  if (secret == secrets_.end()) return InvalidClientTokenId();
  if (!presigned && (*when > now_unix + kMaxSkewSeconds || *when < now_unix - kMaxSkewSeconds)) {
    return SignatureDoesNotMatch("Signature expired: " + amz_date +
                                 " is outside the 15 minute window around the server time.");
  }

  const std::string scope =
      credential->date + "/" + credential->region + "/" + credential->service + "/aws4_request";
  std::vector<std::string> payload_hashes;
  if (const std::string* h = request.Header("x-amz-content-sha256")) {
    const std::string declared(Trim(*h));
    // The declared hash is signed; it must also be the body's.
    if (declared != "UNSIGNED-PAYLOAD" && AsciiLower(declared) != Sha256Hex(request.body)) {
      return SignatureDoesNotMatch(
          "The provided 'x-amz-content-sha256' header does not match what was computed.");
    }
    payload_hashes.push_back(declared);
  } else {
    if (presigned) payload_hashes.emplace_back("UNSIGNED-PAYLOAD");
    payload_hashes.push_back(Sha256Hex(request.body));
  }
  for (const std::string& payload_hash : payload_hashes) {
    const std::string canonical =
        CanonicalRequest(request, signed_headers, payload_hash, presigned);
    const std::string to_sign = lqs::wire::StringToSign(amz_date, scope, canonical);
    const std::string expected = SignatureFor(secret->second, credential->date, credential->region,
                                              credential->service, to_sign);
    if (SameSignature(expected, signature)) {
      if (signed_region != nullptr) *signed_region = std::move(credential->region);
      return std::nullopt;
    }
  }
  return SignatureDoesNotMatch(std::string(kMismatchText));
}

bool SigV4Verifier::SecretMatches(std::string_view key_id, std::string_view secret) const {
  const auto found = secrets_.find(std::string(key_id));
  if (found == secrets_.end()) return false;
  return found->second.size() == secret.size() &&
         CRYPTO_memcmp(found->second.data(), secret.data(), secret.size()) == 0;
}

}  // namespace lqsd
