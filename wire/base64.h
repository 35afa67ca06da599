// wire/base64.h — standard base64 (RFC 4648 §4) for lqsd and the `lqs` CLI:
// SQS's BinaryValue and the CLI's imports and exports. The codec is Abseil's
// (absl/strings/escaping.h); these functions add the checks Abseil leaves
// out, so that each caller accepts exactly the text it should (Abseil skips
// whitespace anywhere in its input). The URL-safe form of receipt handles
// and page tokens is lib/lease/receipt_handle.h's, on the same codec.
//
// Thread safety: pure functions.

#ifndef LQS_WIRE_BASE64_H_
#define LQS_WIRE_BASE64_H_

#include <optional>
#include <string>
#include <string_view>

namespace lqs::wire {

// Standard alphabet with padding: "f" -> "Zg==", "fo" -> "Zm8=",
// "foo" -> "Zm9v"; "" -> "".
std::string Base64Encode(std::string_view bytes);

// Standard alphabet, as lqsd decodes a BinaryValue: the padding may be left
// out, but when present it is one or two '=' that make the length a multiple
// of 4; any other character (URL-safe ones, whitespace) or a length of 1 mod
// 4 is an error (nullopt). Unused low bits of the last character are
// ignored, as SQS does.
std::optional<std::string> Base64Decode(std::string_view text);

// The CLI's reading of base64 it is given: either alphabet (also mixed), any
// number of trailing '='; other characters and a length of 1 mod 4 (without
// the '=') are errors.
std::optional<std::string> Base64DecodeLenient(std::string_view text);

}  // namespace lqs::wire

#endif  // LQS_WIRE_BASE64_H_
