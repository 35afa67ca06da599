// server/text_util.h — small text codecs lqsd needs on the wire: base64
// (BinaryValue), percent-decoding (query strings and form bodies), XML text
// escaping (docs/sqs-reference.md §11.5), request ids, and a few string helpers.
//
// Thread safety: pure functions over values; NewRequestId() uses a
// thread-local generator.

#ifndef LQS_SERVER_TEXT_UTIL_H_
#define LQS_SERVER_TEXT_UTIL_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wire/base64.h"

namespace lqsd {

// Standard base64 (RFC 4648, with padding), shared with the CLI; decoding
// as SQS decodes a BinaryValue (wire/base64.h).
using lqs::wire::Base64Decode;
using lqs::wire::Base64Encode;

// Percent-decoding. `plus_is_space`: '+' means ' ' (form bodies and query
// strings). A '%' not followed by two hex digits is kept literally.
std::string PercentDecode(std::string_view text, bool plus_is_space);

// RFC 3986 encoding: everything except A-Z a-z 0-9 - _ . ~ becomes %XX
// (upper-case hex); '/' too unless keep_slash.
std::string UriEncode(std::string_view text, bool keep_slash);

// Splits "a=1&b=2" into decoded (name, value) pairs, in order. Empty pieces
// are skipped; a piece without '=' has an empty value.
std::vector<std::pair<std::string, std::string>> ParseFormPairs(std::string_view text);

// Appends `text` to `out` as XML character data: & < > " escaped as
// entities, CR as &#xD; (so \r survives XML parsers' newline normalisation).
// Characters that XML 1.0 cannot carry at all (C0 controls other than tab,
// LF, CR; U+FFFE/U+FFFF; malformed UTF-8) are replaced by U+FFFD; a valid
// message body never contains them.
void AppendXmlEscaped(std::string& out, std::string_view text);
std::string XmlEscape(std::string_view text);

// Replaces malformed UTF-8 sequences by U+FFFD (for text echoed in errors).
std::string SanitizeUtf8(std::string_view text);

// A random (version 4) UUID, lower-case: "5fea7756-0ea4-451a-a703-a558b933e274".
std::string NewRequestId();

// ASCII lower-casing.
std::string AsciiLower(std::string_view text);

// StartsWith(AsciiLower(s), lower_prefix), without the copy.
bool StartsWithLower(std::string_view s, std::string_view lower_prefix);

// Strict decimal integer ("-12", "30"); nullopt on anything else or overflow.
std::optional<long long> ParseInt64(std::string_view text);

}  // namespace lqsd

#endif  // LQS_SERVER_TEXT_UTIL_H_
