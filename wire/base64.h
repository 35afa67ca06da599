// wire/base64.h — standard base64 encoding (RFC 4648 §4, with padding), as
// SQS writes BinaryValue and as the CLI exports binary attributes.
//
// Decoding stays with each caller on purpose: lqsd rejects what SQS rejects,
// the CLI also accepts URL-safe input (server/text_util.h, tools/sqs_codec.h).
//
// Thread safety: a pure function.

#ifndef LQS_WIRE_BASE64_H_
#define LQS_WIRE_BASE64_H_

#include <string>
#include <string_view>

namespace lqs::wire {

// "f" -> "Zg==", "fo" -> "Zm8=", "foo" -> "Zm9v"; "" -> "".
std::string Base64Encode(std::string_view bytes);

}  // namespace lqs::wire

#endif  // LQS_WIRE_BASE64_H_
