// server/sqs_query.h — the AWS query protocol (docs/sqs-reference.md §11): form-encoded
// parameters in (POST body and/or URL query string), XML out in the
// 2012-11-05 namespace, errors as <ErrorResponse>.
//
// Decoding turns the flattened member-list names of §11.2
// (Attribute.N.Name/Value, MessageAttribute.N.Value.StringValue,
// SendMessageBatchRequestEntry.N.*, AttributeName.N, Tag.N.Key, ...) into the
// JSON-protocol input shape the action handlers read (actions.h). Encoding
// walks an action's JSON-shaped output and writes the matching XML (§11.4),
// escaping text so that CR survives (&#xD;, §11.5).
//
// Thread safety: pure functions over values.

#ifndef LQS_SERVER_SQS_QUERY_H_
#define LQS_SERVER_SQS_QUERY_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/actions.h"
#include "server/error_map.h"
#include "server/http_types.h"

namespace lqsd::sqs_query {

inline constexpr std::string_view kNamespace = "http://queue.amazonaws.com/doc/2012-11-05/";

using Params = std::vector<std::pair<std::string, std::string>>;

// The value of the first parameter called `name`, or nullptr.
const std::string* Find(const Params& params, std::string_view name);

// Converts flat query parameters into `action`'s input members. Integer
// members become JSON numbers when they are decimal integers (else they stay
// strings, which the handler reports as InvalidParameterValue); list indexes
// are sorted numerically and gaps tolerated; the first of repeated
// parameters wins; malformed UTF-8 in a value becomes U+FFFF, so the result
// is JSON text's to carry. Parameters that are not members of the action
// (Action, Version, signature parameters) are left out.
Json DecodeParams(std::string_view action, const Params& params);

// How a query-protocol response is written. kXml is the protocol's own
// (§11.4). kJson is the legacy JSON transliteration AWS answers a query
// request with when it accepts application/json (§11.7): the same document
// as JSON, with every flattened list or map member (Attribute, Tag,
// MessageAttribute, QueueUrl, Message, batch entries) as a JSON array under
// the member's own name (Attributes: [{"Name", "Value"}], Tags: [{"Key",
// "Value"}], QueueUrls: [...]), and errors as {"Error": {"Type", "Code",
// "Message"}, "RequestId"}. Scalars keep their JSON types.
enum class Rendering { kXml, kJson };

// kJson when the request's Accept header lists application/json.
Rendering RenderingFor(const HttpRequest& request);

// A 200 response: <{Action}Response xmlns=...>[<{Action}Result>...</...>]
// <ResponseMetadata><RequestId/></ResponseMetadata></{Action}Response>, or
// its JSON rendering {"{Action}Response": {["{Action}Result": {...},]
// "ResponseMetadata": {"RequestId": ...}}}.
HttpResponse EncodeResult(std::string_view action, const Json& output,
                          const std::string& request_id, Rendering rendering = Rendering::kXml);

// An <ErrorResponse> with Type, Code, Message, Detail and RequestId, or its
// JSON rendering.
HttpResponse EncodeError(const SqsError& error, const std::string& request_id,
                         Rendering rendering = Rendering::kXml);

// The bare <UnknownOperationException/> document AWS answers a GET without
// Action on a queue URL with (404), whatever the request accepts.
HttpResponse EncodeUnknownOperation(const std::string& request_id);

}  // namespace lqsd::sqs_query

#endif  // LQS_SERVER_SQS_QUERY_H_
