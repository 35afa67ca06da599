// wire/sqs_codec.h — lqs types to and from the SQS JSON 1.0 protocol
// (awsJson1_0, docs/sqs-reference.md §12), as a client writes and reads them: the CLI's
// remote mode (tools/remote_backend.cc) and the bridges (lqs/bridge.h). Pure
// functions, no I/O, so they are unit-tested against the protocol's examples.
//
// Also the message-attribute JSON shape shared with `lqs export`:
//   {"name": {"DataType": "String", "StringValue": "x"},
//    "bin":  {"DataType": "Binary", "BinaryValue": "<base64>"}}

#ifndef LQS_WIRE_SQS_CODEC_H_
#define LQS_WIRE_SQS_CODEC_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "wire/base64.h"
#include "wire/message_json.h"

#include "lqs/status.h"
#include "lqs/types.h"

namespace lqs::wire::codec {

using Json = nlohmann::ordered_json;

// Standard base64 with padding, shared with lqsd.
using lqs::wire::Base64Encode;
// Either alphabet, padding optional (wire::Base64DecodeLenient); nullopt when
// `text` is not base64.
inline std::optional<std::string> Base64Decode(std::string_view text) {
  return lqs::wire::Base64DecodeLenient(text);
}

// ---- Message attributes (also the export format) ----------------------------------
// Encoded as lqsd writes them (wire/message_json.h).
using lqs::wire::MessageAttributesJson;
// Fails with InvalidParameterValue on a malformed value.
lqs::StatusOr<lqs::MessageAttributeMap> DecodeMessageAttributes(const Json& json);

// ---- Requests: the JSON body of AmazonSQS.<Action> ---------------------------------
// A string map as a JSON object ({} when empty).
Json StringMap(const std::map<std::string, std::string>& m);
Json EncodeCreateQueue(const std::string& name, const lqs::AttributeMap& attributes,
                       const lqs::TagMap& tags);
Json EncodeListQueues(const lqs::ListQueuesRequest& request);
Json EncodeSendMessage(const std::string& queue_url, const lqs::SendMessageRequest& request);
Json EncodeSendMessageBatch(const std::string& queue_url,
                            const std::vector<lqs::SendMessageBatchEntry>& entries);
Json EncodeReceiveMessage(const std::string& queue_url, const lqs::ReceiveMessageRequest& request);
Json EncodeDeleteMessageBatch(const std::string& queue_url,
                              const std::vector<lqs::DeleteMessageBatchEntry>& entries);
Json EncodeStartMessageMoveTask(const lqs::StartMessageMoveTaskRequest& request);

// ---- Responses -----------------------------------------------------------------------
// The last path segment of a queue URL ("http://h:1/123/jobs" -> "jobs").
std::string QueueNameFromUrl(const std::string& url);
// The object member `key` as a string map (a value that is not a string as its
// JSON text); empty when there is no such object.
std::map<std::string, std::string> DecodeStringMap(const Json& json, const char* key);
lqs::ListQueuesResult DecodeListQueues(const Json& json, const char* member = "QueueUrls");
lqs::SendMessageResult DecodeSendMessageResult(const Json& json);
lqs::SendMessageBatchResult DecodeSendMessageBatch(const Json& json);
lqs::StatusOr<lqs::ReceiveMessageResult> DecodeReceiveMessage(const Json& json);
lqs::BatchResult DecodeBatchResult(const Json& json);
std::vector<lqs::MessageMoveTask> DecodeListMessageMoveTasks(const Json& json);

// An error response's parts: `type` is __type's text after '#' (and before
// ':'), `query_code` the x-amzn-query-error header's code, `code` the first
// of the two that is set, else "HTTP <status>"; `message` is the body's
// "message" (or "Message"), or the start of a body that is not JSON.
struct ErrorParts {
  std::string type;
  std::string query_code;
  std::string code;
  std::string message;
};
ErrorParts DecodeErrorParts(int http_status, const std::string& query_error_header,
                            const std::string& body);

// The Status of an error response: `__type` (text after '#'), else the
// x-amzn-query-error header's code, mapped back to lqs::ErrorCode. A 4xx
// with a code lqs does not know becomes `unknown_refusal`, a 5xx kIOError,
// anything else kInternal, with the server's code (or "HTTP <status>") in
// the message.
lqs::Status DecodeError(int http_status, const std::string& query_error_header,
                        const std::string& body, lqs::ErrorCode unknown_refusal);

// ErrorCode from any of its spellings (enumerator name, JSON shape, query code).
std::optional<lqs::ErrorCode> ErrorCodeFromName(std::string_view name);

}  // namespace lqs::wire::codec

#endif  // LQS_WIRE_SQS_CODEC_H_
