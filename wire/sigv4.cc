// SigV4 key derivation and request signing (see sigv4.h).

#include "wire/sigv4.h"

#include <algorithm>
#include <ctime>
#include <initializer_list>

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace lqs::wire {
namespace {

// `lines` joined by '\n': the layout of SigV4's canonical request and string
// to sign.
std::string JoinLines(std::initializer_list<std::string_view> lines) {
  std::string out;
  for (const std::string_view* line = lines.begin(); line != lines.end(); ++line) {
    if (line != lines.begin()) out += '\n';
    out += *line;
  }
  return out;
}

}  // namespace

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len);
  return std::string(reinterpret_cast<const char*>(md), len);
}

std::string SignatureFor(std::string_view secret, std::string_view date, std::string_view region,
                         std::string_view service, std::string_view string_to_sign) {
  const std::string k_date = HmacSha256("AWS4" + std::string(secret), date);
  const std::string k_region = HmacSha256(k_date, region);
  const std::string k_service = HmacSha256(k_region, service);
  const std::string k_signing = HmacSha256(k_service, "aws4_request");
  const std::string signature = HmacSha256(k_signing, string_to_sign);
  return api::LowerHex(reinterpret_cast<const uint8_t*>(signature.data()), signature.size());
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  return JoinLines({kSigV4Algorithm, amz_date, scope, Sha256Hex(canonical_request)});
}

std::string FormatAmzDate(int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[20];
  const size_t n = std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return std::string(buf, n);
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || (c == '/' && keep_slash)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string CanonicalQuery(std::vector<std::pair<std::string, std::string>> params) {
  for (auto& [name, value] : params) {
    name = UriEncode(name, /*keep_slash=*/false);
    value = UriEncode(value, /*keep_slash=*/false);
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> SignRequest(
    const SigningCredentials& credentials, std::string_view method, std::string_view path,
    std::vector<std::pair<std::string, std::string>> headers, std::string_view body,
    int64_t now_unix, std::string_view canonical_query) {
  const std::string amz_date = FormatAmzDate(now_unix);
  std::vector<std::pair<std::string, std::string>> added = {{"x-amz-date", amz_date}};
  if (!credentials.session_token.empty()) {
    added.emplace_back("x-amz-security-token", credentials.session_token);
  }
  headers.insert(headers.end(), added.begin(), added.end());
  std::sort(headers.begin(), headers.end());

  // Canonical request: method, path, query, headers, signed names, payload
  // hash. Values are signed as given (the caller's have no runs of spaces to
  // collapse).
  std::string canonical_headers;  // "name:value\n" each
  std::string signed_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name;
    canonical_headers += ':';
    canonical_headers += value;
    canonical_headers += '\n';
    if (!signed_headers.empty()) signed_headers += ';';
    signed_headers += name;
  }
  const std::string canonical = JoinLines(
      {method, path, canonical_query, canonical_headers, signed_headers, Sha256Hex(body)});

  const std::string date = amz_date.substr(0, 8);
  const std::string scope =
      date + "/" + credentials.region + "/" + credentials.service + "/aws4_request";
  const std::string signature =
      SignatureFor(credentials.secret_access_key, date, credentials.region, credentials.service,
                   StringToSign(amz_date, scope, canonical));
  added.emplace_back("authorization", std::string(kSigV4Algorithm) +
                                          " Credential=" + credentials.access_key_id + "/" + scope +
                                          ", SignedHeaders=" + signed_headers +
                                          ", Signature=" + signature);
  return added;
}

}  // namespace lqs::wire
