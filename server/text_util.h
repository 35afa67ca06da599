// server/text_util.h — small text codecs lqsd needs on the wire: base64
// (BinaryValue), percent-decoding (query strings and form bodies), XML text
// escaping (docs/sqs-reference.md §11.5), table-driven character escaping,
// request ids, a few string helpers,
// and the byte-level scanners of the JSON writer (sqs_json.h).
//
// Thread safety: pure functions over values; NewRequestId() uses a
// thread-local generator.

#ifndef LQS_SERVER_TEXT_UTIL_H_
#define LQS_SERVER_TEXT_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wire/base64.h"
#include "wire/sigv4.h"

namespace lqsd {

// Standard base64 (RFC 4648, with padding), shared with the CLI; decoding
// as SQS decodes a BinaryValue (wire/base64.h).
using lqs::wire::Base64Decode;
using lqs::wire::Base64Encode;

// Percent-decoding. `plus_is_space`: '+' means ' ' (form bodies and query
// strings). A '%' not followed by two hex digits is kept literally.
std::string PercentDecode(std::string_view text, bool plus_is_space);

// SigV4's RFC 3986 encoding (wire/sigv4.h), shared with the CLI's signer.
using lqs::wire::UriEncode;

// Splits "a=1&b=2" into decoded (name, value) pairs, in order. Empty pieces
// are skipped; a piece without '=' has an empty value. `plus_is_space`: as in
// PercentDecode (form bodies: true; SigV4's canonical query: false).
std::vector<std::pair<std::string, std::string>> ParseFormPairs(std::string_view text,
                                                                bool plus_is_space = true);

// Appends `text` to `out` as XML character data: & < > " escaped as
// entities, CR as &#xD; (so \r survives XML parsers' newline normalisation).
// Characters that XML 1.0 cannot carry at all (C0 controls other than tab,
// LF, CR; U+FFFE/U+FFFF; malformed UTF-8) are replaced by U+FFFD; a valid
// message body never contains them.
void AppendXmlEscaped(std::string& out, std::string_view text);
std::string XmlEscape(std::string_view text);

// A character and the text that stands for it once escaped.
struct CharEscape {
  char c;
  std::string_view replacement;
};
// `text` with each character that `escapes` lists replaced by its text (the
// escapings of HTML text, Prometheus label values, ...).
std::string EscapeChars(std::string_view text, std::span<const CharEscape> escapes);

// Replaces each byte that starts no well-formed UTF-8 sequence by
// `replacement` (by default U+FFFD, for text echoed in errors).
std::string SanitizeUtf8(std::string_view text, std::string_view replacement = "\xEF\xBF\xBD");

// A random (version 4) UUID, lower-case: "5fea7756-0ea4-451a-a703-a558b933e274".
std::string NewRequestId();

// ASCII lower-casing.
std::string AsciiLower(std::string_view text);

// StartsWith(AsciiLower(s), lower_prefix), without the copy.
bool StartsWithLower(std::string_view s, std::string_view lower_prefix);

// `s` without the spaces and tabs at either end (HTTP's optional whitespace).
std::string_view Trim(std::string_view s);

// How many bytes from p on (before `end`) a JSON string literal holds as
// they are: printable ASCII (0x20..0x7f) other than '"' and '\\'. Eight
// bytes at a time.
inline size_t PlainAsciiLength(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHighs = 0x8080808080808080ull;
  const char* const start = p;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t quote = w ^ (kOnes * '"');
    const uint64_t backslash = w ^ (kOnes * '\\');
    // A byte < 0x20, a zero byte of `quote` or `backslash`, or a byte >= 0x80
    // (the usual "has less than" and "has zero" tricks: exact about whether
    // any byte matches, which is all this needs).
    const uint64_t special = ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) |
                             ((backslash - kOnes) & ~backslash) | w;
    if ((special & kHighs) != 0) break;
    p += 8;
  }
  while (p != end) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++p;
  }
  return static_cast<size_t>(p - start);
}

// The length of the well-formed UTF-8 sequence that starts at p (a byte >=
// 0x80) and ends before `end`: 2 to 4, or 0 when it is malformed (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF; the sequences
// the JSON writer (sqs_json::AppendString) passes through as they are).
size_t Utf8SequenceLength(const char* p, const char* end);

// The value of the four hex digits (either case) p[0..3], or -1 when they
// are not four hex digits. The caller guarantees that 4 bytes are readable.
inline int32_t Hex4(const char* p) {
  int32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

// Strict decimal integer ("-12", "30"); nullopt on anything else or overflow.
std::optional<long long> ParseInt64(std::string_view text);

}  // namespace lqsd

#endif  // LQS_SERVER_TEXT_UTIL_H_
