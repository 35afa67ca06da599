// fuzz/fuzz_sigv4.cc — lqsd's SigV4 verifier (server/sigv4.h) against a fixed
// key table, on requests the project's signer (wire/sigv4.h) signed and on
// arbitrary ones.
//
// The first byte picks the mode:
//   0  raw: the rest is "<method> <target>\n", "<name>: <value>\n" lines, a
//      blank line and the body (names lower-cased and values trimmed, as the
//      HTTP layer gives them), verified at kNow. An input "V<hash>\n<raw>"
//      whose 16 hex digits are the start of the SHA-256 of <raw> asserts
//      that <raw> verifies (the seed corpus holds such requests, made with
//      the project's signer; a mutated input loses its hash and asserts
//      nothing).
//   1  header-signed: a request built from the bytes (key, region, service,
//      method, path, signed and unsigned fields, optional session token and
//      x-amz-content-sha256, body, signing time) and signed with
//      lqs::wire::SignRequest.
//   2  presigned: a query-string signature (X-Amz-Algorithm, -Credential,
//      -Date, -Expires, -SignedHeaders, -Signature in any order among other
//      parameters) computed with wire's StringToSign and SignatureFor.
//
// Properties: Verify and SigningRegion never crash; a request Verify
// accepts carries the signature the fuzzer computes for it from its own
// reading of the request, with a key of the table, and its signed_region is
// SigningRegion()'s; a correctly signed request verifies (within the 15
// minutes of skew, or before its X-Amz-Expires), with an unknown key fails
// with InvalidClientTokenId, outside the skew fails; unsigned fields added
// change nothing; a presigned request past its X-Amz-Expires, or with one
// that is not a non-negative integer, fails (before the key is looked up);
// after any single-byte change to the signature (other than its case), the
// credential scope, the SignedHeaders list, X-Amz-Date, a signed field's
// value (other than in its white space, which is canonicalised), the body,
// the method, the path or a signed query parameter, the request fails.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <openssl/crypto.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "server/sigv4.h"
#include "server/text_util.h"
#include "wire/sigv4.h"

namespace {

using lqs::fuzz::FuzzInput;
using lqsd::HttpRequest;

constexpr int64_t kNow = 1704067200;  // 2024-01-01T00:00:00Z
constexpr int64_t kSkew = 15 * 60;

struct Key {
  const char* id;
  const char* secret;
};
// Distinct secrets: no key's signature is another's.
constexpr Key kKeys[] = {{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},
                         {"lqsdtest", "lqsdtest"},
                         {"AKID2", "another secret"}};
constexpr Key kUnknownKey = {"AKIDUNKNOWN", "not in the table"};

const lqsd::SigV4Verifier& Verifier() {
  static const lqsd::SigV4Verifier verifier([] {
    std::map<std::string, std::string> secrets;
    for (const Key& k : kKeys) secrets[k.id] = k.secret;
    return secrets;
  }());
  return verifier;
}

const char* SecretOf(std::string_view id) {
  for (const Key& k : kKeys) {
    if (id == k.id) return k.secret;
  }
  return nullptr;
}

void Check(bool ok, const char* what) { lqs::fuzz::CheckProperty("fuzz_sigv4", ok, what); }

void CheckFails(const std::optional<lqsd::SqsError>& err, const char* what) {
  if (!err.has_value()) {
    std::fprintf(stderr, "fuzz_sigv4: accepted after a single-byte change to %s\n", what);
    std::abort();
  }
}

// Bytes mapped onto an alphabet.
std::string Map(std::string_view bytes, std::string_view alphabet) {
  std::string out;
  for (const char c : bytes) out += alphabet[static_cast<unsigned char>(c) % alphabet.size()];
  return out;
}

constexpr std::string_view kToken = "abcdefghijklmnopqrstuvwxyz0123456789-";
constexpr std::string_view kAlnum =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view kUnreservedNoDot =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~";
constexpr std::string_view kValue =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 \t,;=/:._-\"()";

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// A field value in SigV4's canonical form: trimmed, runs of white space
// made one space.
std::string Canonical(std::string_view v) {
  std::string out;
  bool space = false;
  for (const char c : v) {
    if (IsSpace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// ---- The fuzzer's own reading of an accepted request ----

// The signature the request should carry, recomputed from the fuzzer's own
// reading of its signature fields; nullopt when it cannot read them.
struct Reading {
  std::string access_key, date, region, service, amz_date, signed_headers, signature;
  bool presigned = false;
};

std::optional<Reading> Read(const HttpRequest& r) {
  Reading out;
  std::string credential;
  if (const std::string* auth = r.Header("authorization")) {
    std::string_view v = Trim(*auth);
    constexpr std::string_view kPrefix = "AWS4-HMAC-SHA256 ";
    if (v.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
    v.remove_prefix(kPrefix.size());
    // Components "Name=value" separated by commas; the last of a name wins.
    for (std::string_view part : Split(v, ',')) {
      part = Trim(part);
      const size_t eq = part.find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view name = Trim(part.substr(0, eq));
      const std::string value(Trim(part.substr(eq + 1)));
      if (name == "Credential") credential = value;
      if (name == "SignedHeaders") out.signed_headers = value;
      if (name == "Signature") out.signature = value;
    }
    const std::string* date = r.Header("x-amz-date");
    if (date == nullptr) return std::nullopt;
    out.amz_date = std::string(Trim(*date));
  } else {
    const std::string_view query = r.RawQuery();
    std::map<std::string, std::string> first;  // the first value of each name
    for (std::string_view piece : Split(query, '&')) {
      if (piece.empty()) continue;
      const size_t eq = piece.find('=');
      std::string name = lqsd::PercentDecode(piece.substr(0, eq), false);
      std::string value =
          eq == std::string_view::npos ? "" : lqsd::PercentDecode(piece.substr(eq + 1), false);
      first.emplace(std::move(name), std::move(value));
    }
    if (first["X-Amz-Algorithm"] != "AWS4-HMAC-SHA256") return std::nullopt;
    credential = first["X-Amz-Credential"];
    out.amz_date = first["X-Amz-Date"];
    out.signed_headers = first["X-Amz-SignedHeaders"];
    out.signature = first["X-Amz-Signature"];
    out.presigned = true;
  }
  const std::vector<std::string_view> scope = Split(credential, '/');
  if (scope.size() != 5 || scope[4] != "aws4_request") return std::nullopt;
  out.access_key = scope[0];
  out.date = scope[1];
  out.region = scope[2];
  out.service = scope[3];
  return out;
}

// An accepted request: its signature is one the fuzzer computes for it.
void CheckAccepted(const HttpRequest& r, const std::string& signed_region) {
  const std::optional<Reading> reading = Read(r);
  Check(reading.has_value(), "accepted a request whose signature fields do not read");
  const char* secret = SecretOf(reading->access_key);
  Check(secret != nullptr, "accepted a key not in the table");
  Check(reading->region == signed_region, "signed_region is not the credential's region");
  const std::optional<std::string> region = lqsd::SigningRegion(r);
  Check(region.has_value() && *region == signed_region, "SigningRegion differs from Verify");
  const std::optional<int64_t> when = lqsd::ParseAmzDate(reading->amz_date);
  Check(when.has_value(), "accepted a malformed X-Amz-Date");
  if (!reading->presigned) {
    Check(*when >= kNow - kSkew && *when <= kNow + kSkew, "accepted outside the skew");
  }
  std::vector<std::string> hashes;
  if (const std::string* declared = r.Header("x-amz-content-sha256")) {
    const std::string d(Trim(*declared));
    Check(d == "UNSIGNED-PAYLOAD" || lqsd::AsciiLower(d) == lqsd::Sha256Hex(r.body),
          "accepted a wrong x-amz-content-sha256");
    hashes.push_back(d);
  } else {
    if (reading->presigned) hashes.emplace_back("UNSIGNED-PAYLOAD");
    hashes.push_back(lqsd::Sha256Hex(r.body));
  }
  const std::string scope =
      reading->date + "/" + reading->region + "/" + reading->service + "/aws4_request";
  const std::string given = lqsd::AsciiLower(reading->signature);
  bool match = false;
  for (const std::string& hash : hashes) {
    const std::string canonical =
        lqsd::CanonicalRequest(r, reading->signed_headers, hash, reading->presigned);
    const std::string expected =
        lqs::wire::SignatureFor(secret, reading->date, reading->region, reading->service,
                                lqs::wire::StringToSign(reading->amz_date, scope, canonical));
    match = match || expected == given;
  }
  Check(match, "accepted a signature the fuzzer does not compute");
}

// Verifies at `now`; checks an acceptance. Returns the error.
std::optional<lqsd::SqsError> Verify(const HttpRequest& r, int64_t now = kNow) {
  std::string region = "unset";
  std::optional<lqsd::SqsError> err = Verifier().Verify(r, now, &region);
  (void)lqsd::SigningRegion(r);
  if (!err.has_value()) {
    if (now == kNow) CheckAccepted(r, region);
  } else {
    Check(region == "unset", "signed_region set on failure");
    Check(err->http_status == 400 || err->http_status == 403, "error status");
  }
  return err;
}

bool Is(const std::optional<lqsd::SqsError>& err, std::string_view query_code) {
  return err.has_value() && err->query_code == query_code;
}

// ---- Mode 0: raw requests ----

void Raw(std::string_view in) {
  bool must_verify = false;
  if (in.size() > 18 && in[0] == 'V' && in[17] == '\n') {
    const std::string_view rest = in.substr(18);
    // Compared with CRYPTO_memcmp, which libFuzzer does not intercept: with
    // memcmp it learns the hash it is compared with and writes it into
    // mutated inputs, which then "assert" that they verify.
    const std::string hash = lqsd::Sha256Hex(rest);
    if (CRYPTO_memcmp(hash.data(), in.data() + 1, 16) == 0) {
      must_verify = true;
      in = rest;
    }
  }
  HttpRequest r;
  size_t eol = in.find('\n');
  const std::string_view line = in.substr(0, eol);
  const size_t sp = line.find(' ');
  r.method = std::string(line.substr(0, sp));
  if (sp != std::string_view::npos) r.target = std::string(line.substr(sp + 1));
  in.remove_prefix(eol == std::string_view::npos ? in.size() : eol + 1);
  while (!in.empty()) {
    eol = in.find('\n');
    const std::string_view field = in.substr(0, eol);
    in.remove_prefix(eol == std::string_view::npos ? in.size() : eol + 1);
    if (field.empty()) break;
    const size_t colon = field.find(':');
    r.headers.emplace_back(lqsd::AsciiLower(field.substr(0, colon)),
                           colon == std::string_view::npos
                               ? std::string()
                               : std::string(Trim(field.substr(colon + 1))));
  }
  r.body = std::string(in);
  const std::optional<lqsd::SqsError> err = Verify(r);
  if (must_verify) Check(!err.has_value(), "a seed signed by the project's signer fails");
  // Much later, any header-signed request is outside the skew.
  if (r.Header("authorization") != nullptr) {
    Check(Verify(r, kNow + 24 * 3600).has_value(), "accepted a day after its date");
  }
}

// ---- Single-byte changes ----

std::vector<std::pair<std::string, std::string>> DecodedQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string_view piece : Split(query, '&')) {
    if (piece.empty()) continue;
    const size_t eq = piece.find('=');
    out.emplace_back(
        lqsd::PercentDecode(piece.substr(0, eq), false),
        eq == std::string_view::npos ? "" : lqsd::PercentDecode(piece.substr(eq + 1), false));
  }
  return out;
}

// Changes one byte of `s` in [begin, end) (at a position and to a byte the
// input picks; never to itself). `alphabet` non-empty: the new byte is taken
// from it. False when the range is empty.
bool Mutate(FuzzInput& in, std::string* s, size_t begin, size_t end,
            std::string_view alphabet = {}) {
  if (begin >= end || end > s->size()) return false;
  const size_t at = begin + in.Range<size_t>(0, end - begin - 1);
  const char old = (*s)[at];
  char c = static_cast<char>(in.Byte());
  if (!alphabet.empty()) c = alphabet[static_cast<unsigned char>(c) % alphabet.size()];
  if (c == old) {
    if (alphabet.empty()) {
      c = static_cast<char>(old ^ 1);
    } else {
      const size_t i = alphabet.find(old);
      c = alphabet[(i == std::string_view::npos ? 0 : i + 1) % alphabet.size()];
    }
  }
  (*s)[at] = c;
  return true;
}

char LowerChar(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The positions [begin, end) of the value of `name=` in an Authorization
// header as wire::SignRequest writes it.
std::pair<size_t, size_t> AuthValue(const std::string& auth, std::string_view name) {
  const size_t at = auth.find(std::string(name) + "=");
  if (at == std::string::npos) return {0, 0};
  const size_t begin = at + name.size() + 1;
  const size_t end = std::min(auth.find(',', begin), auth.size());
  return {begin, end};
}

std::string* FieldValue(HttpRequest* r, std::string_view name) {
  for (auto& [n, v] : r->headers) {
    if (n == name) return &v;
  }
  return nullptr;
}

constexpr const char* kRegions[] = {"us-east-1", "eu-west-1", "ap-south-2"};
constexpr const char* kPaths[] = {"/", "/123456789012/q", "/123456789012/orders.fifo",
                                  "/queue/eu-west-1/123456789012/my-queue_1"};
constexpr const char* kHosts[] = {"localhost:9324", "127.0.0.1:9324",
                                  "sqs.us-east-1.amazonaws.com"};

const Key& PickKey(FuzzInput& in, bool* known) {
  const size_t i = in.Range<size_t>(0, std::size(kKeys));
  *known = i < std::size(kKeys);
  return *known ? kKeys[i] : kUnknownKey;
}

std::string PickRegion(FuzzInput& in) {
  if (in.Bool()) return kRegions[in.Range<size_t>(0, std::size(kRegions) - 1)];
  return Map(in.String(12), kToken);
}

// ---- Mode 1: header-signed ----

void HeaderSigned(FuzzInput& in) {
  bool known = false;
  const Key& key = PickKey(in, &known);
  lqs::wire::SigningCredentials creds;
  creds.access_key_id = key.id;
  creds.secret_access_key = key.secret;
  creds.region = PickRegion(in);
  if (in.Bool()) creds.service = Map(in.String(6), kToken);
  if (in.Bool()) creds.session_token = Map(in.String(24), kAlnum);
  static constexpr const char* kMethods[] = {"POST", "GET", "PUT", "DELETE"};
  const std::string method = in.Pick(kMethods);
  const std::string path = in.Pick(kPaths);

  std::vector<std::pair<std::string, std::string>> fields = {{"host", in.Pick(kHosts)}};
  if (in.Bool()) fields.emplace_back("content-type", "application/x-amz-json-1.0");
  if (in.Bool()) fields.emplace_back("x-amz-target", "AmazonSQS.SendMessage");
  const size_t extra = in.Range<size_t>(0, 3);
  for (size_t i = 0; i < extra; ++i) {
    std::string name = "x-" + Map(in.String(8), kToken);
    // Values signed as given by the signer: canonical already.
    std::string value = Canonical(Map(in.String(24), kValue));
    bool dup = name.rfind("x-amz-", 0) == 0;  // the signer's, or the payload hash
    for (const auto& f : fields) dup = dup || f.first == name;
    if (!dup) fields.emplace_back(std::move(name), std::move(value));
  }
  const std::string body = in.String(200);
  if (in.Bool()) fields.emplace_back("x-amz-content-sha256", lqsd::Sha256Hex(body));
  const int64_t signed_at = kNow + in.Range<int64_t>(-2 * kSkew, 2 * kSkew);

  const auto added = lqs::wire::SignRequest(creds, method, path, fields, body, signed_at);
  HttpRequest r;
  r.method = method;
  r.target = path;
  if (in.Bool()) std::reverse(fields.begin(), fields.end());
  r.headers = fields;
  r.headers.insert(r.headers.begin() + static_cast<long>(in.Range<size_t>(0, fields.size())),
                   added.begin(), added.end());
  // Unsigned fields ("u-" names: never signed here) change nothing.
  const size_t unsigned_fields = in.Range<size_t>(0, 2);
  for (size_t i = 0; i < unsigned_fields; ++i) {
    r.headers.emplace_back("u-" + Map(in.String(6), kToken), Map(in.String(16), kValue));
  }
  r.body = body;

  const std::optional<lqsd::SqsError> err = Verify(r);
  if (!known) {
    Check(Is(err, "InvalidClientTokenId"), "an unknown key is not InvalidClientTokenId");
    return;
  }
  if (signed_at < kNow - kSkew || signed_at > kNow + kSkew) {
    Check(Is(err, "SignatureDoesNotMatch"), "a request outside the skew is not refused");
    return;
  }
  Check(!err.has_value(), "a request signed by wire::SignRequest fails");

  // One single-byte change.
  HttpRequest m = r;
  std::string* auth = FieldValue(&m, "authorization");
  Check(auth != nullptr, "no authorization field");
  switch (in.Range(0, 7)) {
    case 0: {  // the signature, other than in case
      const auto [b, e] = AuthValue(*auth, "Signature");
      const std::string before = *auth;
      if (!Mutate(in, auth, b, e)) return;
      for (size_t i = b; i < e; ++i) {
        if (LowerChar((*auth)[i]) != LowerChar(before[i])) {
          CheckFails(Verify(m), "the signature");
          return;
        }
      }
      return;
    }
    case 1: {
      const auto [b, e] = AuthValue(*auth, "Credential");
      if (Mutate(in, auth, b, e)) CheckFails(Verify(m), "the credential scope");
      return;
    }
    case 2: {
      const auto [b, e] = AuthValue(*auth, "SignedHeaders");
      if (Mutate(in, auth, b, e)) CheckFails(Verify(m), "the SignedHeaders list");
      return;
    }
    case 3: {
      std::string* date = FieldValue(&m, "x-amz-date");
      if (Mutate(in, date, 0, date->size())) CheckFails(Verify(m), "X-Amz-Date");
      return;
    }
    case 4: {  // a signed field's value, other than in white space
      const auto& f = fields[in.Range<size_t>(0, fields.size() - 1)];
      std::string* value = FieldValue(&m, f.first);
      const std::string before = *value;
      if (!Mutate(in, value, 0, value->size())) return;
      if (Canonical(*value) != Canonical(before)) CheckFails(Verify(m), "a signed field's value");
      return;
    }
    case 5:
      if (Mutate(in, &m.body, 0, m.body.size())) CheckFails(Verify(m), "the body");
      return;
    case 6:
      if (Mutate(in, &m.method, 0, m.method.size())) CheckFails(Verify(m), "the method");
      return;
    default:
      // Unreserved characters other than '.': the canonical path changes.
      if (Mutate(in, &m.target, 0, m.target.size(), kUnreservedNoDot)) {
        CheckFails(Verify(m), "the path");
      }
      return;
  }
}

// ---- Mode 2: presigned ----

void Presigned(FuzzInput& in) {
  bool known = false;
  const Key& key = PickKey(in, &known);
  const std::string region = PickRegion(in);
  const std::string service = in.Bool() ? "sqs" : Map(in.String(6), kToken);
  const std::string method = in.Bool() ? "GET" : "POST";
  const std::string path = in.Pick(kPaths);
  const std::string host = in.Pick(kHosts);
  const int64_t signed_at = kNow - in.Range<int64_t>(-600, 8000);
  const std::string amz_date = lqs::wire::FormatAmzDate(signed_at);
  const std::string date = amz_date.substr(0, 8);
  const std::string scope = date + "/" + region + "/" + service + "/aws4_request";

  // Parameters as (name, value), both unreserved but the credential's '/'.
  std::vector<std::pair<std::string, std::string>> params = {
      {"X-Amz-Algorithm", "AWS4-HMAC-SHA256"},
      {"X-Amz-Credential", std::string(key.id) + "/" + scope},
      {"X-Amz-Date", amz_date}};
  switch (in.Range(0, 2)) {
    case 0:
      break;  // none
    case 1:
      params.emplace_back("X-Amz-Expires", std::to_string(in.Range<int64_t>(0, 7200)));
      break;
    default:
      params.emplace_back("X-Amz-Expires", Map(in.String(20), "0123456789-"));
      break;
  }
  const bool sign_target = in.Bool();
  params.emplace_back("X-Amz-SignedHeaders", sign_target ? "host;x-amz-target" : "host");
  static constexpr const char* kActions[] = {"ListQueues", "SendMessage", "GetQueueUrl"};
  params.emplace_back("Action", in.Pick(kActions));
  const size_t extra = in.Range<size_t>(0, 3);
  for (size_t i = 0; i < extra; ++i) {
    std::string name = Map(in.String(8), kAlnum);
    if (name.empty()) name = "P";
    params.emplace_back(std::move(name), Map(in.String(16), kUnreservedNoDot));
  }
  const std::string body = in.String(100);
  const bool unsigned_payload = in.Bool();

  // The canonical request, by the SigV4 rules for these characters.
  std::vector<std::pair<std::string, std::string>> sorted;
  for (const auto& [k, v] : params) sorted.emplace_back(k, lqsd::UriEncode(v, false));
  std::sort(sorted.begin(), sorted.end());
  std::string canonical = method + "\n" + path + "\n";
  for (size_t i = 0; i < sorted.size(); ++i) {
    canonical += (i > 0 ? "&" : "") + sorted[i].first + "=" + sorted[i].second;
  }
  canonical += "\nhost:" + host + "\n";
  if (sign_target) canonical += "x-amz-target:AmazonSQS.ListQueues\n";
  canonical += std::string("\n") + (sign_target ? "host;x-amz-target" : "host") + "\n" +
               (unsigned_payload ? "UNSIGNED-PAYLOAD" : lqsd::Sha256Hex(body));
  const std::string signature = lqs::wire::SignatureFor(
      key.secret, date, region, service, lqs::wire::StringToSign(amz_date, scope, canonical));
  params.insert(params.begin() + static_cast<long>(in.Range<size_t>(0, params.size())),
                {"X-Amz-Signature", signature});
  if (in.Bool()) std::reverse(params.begin(), params.end());

  HttpRequest r;
  r.method = method;
  r.target = path + "?";
  for (size_t i = 0; i < params.size(); ++i) {
    r.target +=
        (i > 0 ? "&" : "") + params[i].first + "=" + lqsd::UriEncode(params[i].second, false);
  }
  r.headers = {{"host", host}};
  if (sign_target) r.headers.emplace_back("x-amz-target", "AmazonSQS.ListQueues");
  r.headers.emplace_back("u-" + Map(in.String(6), kToken), Map(in.String(16), kValue));
  r.body = body;

  const int64_t now = kNow + in.Range<int64_t>(-60, 60);
  const std::optional<lqsd::SqsError> err = Verify(r, now);
  // The expiry as the first X-Amz-Expires gives it (an extra parameter
  // cannot be named so): none, readable seconds, or unreadable.
  const std::string* expiry = nullptr;
  for (const auto& [k, v] : params) {
    if (k == "X-Amz-Expires" && expiry == nullptr) expiry = &v;
  }
  const std::optional<long long> secs =
      expiry == nullptr ? std::nullopt : lqsd::ParseInt64(*expiry);
  if (!err.has_value()) {
    // Whatever X-Amz-Expires says, an accepted request is not past it.
    if (expiry != nullptr) {
      Check(secs.has_value() && *secs >= 0 && now - signed_at <= *secs,
            "accepted a presigned request past (or without a readable) X-Amz-Expires");
    }
    Verify(r);  // the acceptance checks at kNow
  }
  // The expiry is read first, then the key, then the signature.
  if (expiry != nullptr && (!secs.has_value() || *secs < 0)) {
    Check(Is(err, "IncompleteSignature"), "an unreadable X-Amz-Expires is not refused");
    return;
  }
  if (expiry != nullptr && now - signed_at > *secs) {
    Check(Is(err, "SignatureDoesNotMatch"), "an expired presigned request is not refused");
    return;
  }
  if (!known) {
    Check(Is(err, "InvalidClientTokenId"), "an unknown key is not InvalidClientTokenId");
    return;
  }
  Check(!err.has_value(), "a presigned request signed with wire's StringToSign fails");
  if (err.has_value()) return;

  // One single-byte change (unreserved characters only, so that the
  // canonical form changes with the bytes).
  HttpRequest m = r;
  const std::string query(m.RawQuery());
  switch (in.Range(0, 4)) {
    case 0: {  // the query string: any signed parameter, the signature too
      const size_t q = m.target.find('?') + 1;
      const size_t at = q + in.Range<size_t>(0, m.target.size() - q - 1);
      const char old = m.target[at];
      if (kUnreservedNoDot.find(old) == std::string_view::npos) return;  // a separator
      // The signature's case does not count.
      const size_t sig = m.target.find("X-Amz-Signature=");
      const bool in_sig = at >= sig + 16 && at < sig + 16 + 64;
      Mutate(in, &m.target, at, at + 1, kUnreservedNoDot);
      if (in_sig && LowerChar(m.target[at]) == LowerChar(old)) return;
      // The same parameters once percent-decoded ("%2f" is "%2F"): the
      // same canonical query.
      if (DecodedQuery(m.RawQuery()) == DecodedQuery(r.RawQuery())) return;
      CheckFails(Verify(m, now), "the query string");
      return;
    }
    case 1: {
      std::string* h = FieldValue(&m, "host");
      if (Mutate(in, h, 0, h->size(), kUnreservedNoDot)) CheckFails(Verify(m, now), "Host");
      return;
    }
    case 2:
      if (Mutate(in, &m.method, 0, m.method.size())) CheckFails(Verify(m, now), "the method");
      return;
    case 3:
      if (Mutate(in, &m.target, 0, path.size(), kUnreservedNoDot)) {
        CheckFails(Verify(m, now), "the path");
      }
      return;
    default:
      // A presigned request signed over UNSIGNED-PAYLOAD does not cover its
      // body; one signed over the body's hash does.
      if (Mutate(in, &m.body, 0, m.body.size())) {
        const std::optional<lqsd::SqsError> e = Verify(m, now);
        if (!unsigned_payload) CheckFails(e, "the body of a presigned request");
      }
      return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  FuzzInput in(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      Raw(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
      break;
    case 1:
      HeaderSigned(in);
      break;
    default:
      Presigned(in);
      break;
  }
  return 0;
}
