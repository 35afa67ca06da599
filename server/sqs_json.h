// server/sqs_json.h — the AWS JSON 1.0 protocol (docs/sqs-reference.md §12):
// `X-Amz-Target: AmazonSQS.<Action>`, a JSON object body in, a JSON object
// out (request bodies are read by request_input.h), errors as {"__type": "<namespace>#<shape>",
// "message": ...} with the x-amzn-query-error header "<query code>;Sender|Receiver".
//
// Thread safety: pure functions over values.

#ifndef LQS_SERVER_SQS_JSON_H_
#define LQS_SERVER_SQS_JSON_H_

#include <optional>
#include <string>
#include <string_view>

#include "server/actions.h"
#include "server/error_map.h"
#include "server/http_types.h"

namespace lqsd::sqs_json {

inline constexpr std::string_view kContentType = "application/x-amz-json-1.0";
inline constexpr std::string_view kTargetPrefix = "AmazonSQS.";

// The action named by an X-Amz-Target value ("AmazonSQS.SendMessage" ->
// "SendMessage"); empty when the prefix is not AmazonSQS.
std::string ActionFromTarget(std::string_view target);

// `value` as compact JSON text, as every lqsd response writes it: no ASCII
// escaping, malformed UTF-8 (error texts may echo input) replaced by U+FFFD,
// never a throw.
std::string Dump(const Json& value);

// A 200 response with `output` (never null; {} for actions without output).
// An output member whose value is an empty list or map is left out, as AWS
// leaves it out on this protocol (batch results without failures have no
// Failed, ListDeadLetterSourceQueues without sources no queueUrls, ...);
// the query protocol's encoder gets the same tree and keeps them. Members
// nested deeper (a message's Attributes) are omitted by whoever builds the
// tree.
HttpResponse EncodeResult(const Json& output, const std::string& request_id);

// The same 200 response for an output object already encoded (by the
// writers below) exactly as EncodeResult would encode it.
HttpResponse EncodeEncodedResult(std::string json_body, const std::string& request_id);

// Appends `text` as a JSON string literal, byte for byte as EncodeResult's
// serialiser writes it (no ASCII escaping; control characters escaped;
// malformed UTF-8 replaced by U+FFFD). One pass; only malformed UTF-8 goes
// through the serialiser itself.
void AppendString(std::string* out, std::string_view text);
// Appends `"key":` (key must be plain ASCII without quotes or backslashes).
inline void AppendKey(std::string* out, std::string_view key) {
  out->push_back('"');
  out->append(key.data(), key.size());
  out->append("\":");
}
// Appends `"key":"value"` (key as AppendKey).
inline void AppendMember(std::string* out, std::string_view key, std::string_view value) {
  AppendKey(out, key);
  AppendString(out, value);
}

// An error response (status from the error; x-amzn-query-error always set).
HttpResponse EncodeError(const SqsError& error, const std::string& request_id);

}  // namespace lqsd::sqs_json

#endif  // LQS_SERVER_SQS_JSON_H_
