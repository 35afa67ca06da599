// fuzz/fuzz_sqs_query.cc — the AWS query-protocol request parser of lqsd
// (server/text_util.h ParseFormPairs, server/sqs_query.h DecodeParams) on
// arbitrary form bodies, for every action.
//
// Properties: form parsing and the flattened-member decoding (Attribute.N.*,
// MessageAttribute.N.Value.*, SendMessageBatchRequestEntry.N.*, ...) never
// crash, throw or read out of bounds; the decoded input is a JSON object
// that the XML response encoder and its JSON rendering walk without
// throwing (the rendering is valid JSON); any Accept header is classified
// without a crash; base64 and XML escaping hold their contracts on the same
// bytes.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "server/action_model.h"
#include "server/sqs_query.h"
#include "server/text_util.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_sqs_query: property failed: %s\n", what);
    std::abort();
  }
}

// The modelled actions, and one unknown name (the last index).
std::string_view ActionFor(uint8_t byte) {
  const std::span<const lqsd::action_model::Action> actions = lqsd::action_model::All();
  const size_t index = byte % (actions.size() + 1);
  return index < actions.size() ? actions[index].name : std::string_view("NoSuchAction");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view action = ActionFor(data[0]);
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  const lqsd::sqs_query::Params params = lqsd::ParseFormPairs(body);
  const lqsd::Json input = lqsd::sqs_query::DecodeParams(action, params);
  Check(input.is_object() || input.is_null(), "decoded input is not an object");
  (void)lqsd::sqs_query::Find(params, "Action");
  // The response encoders walk arbitrary JSON-shaped output; the JSON
  // rendering (§11.7) is always a JSON document.
  (void)lqsd::sqs_query::EncodeResult(action, input, "req");
  const lqsd::HttpResponse as_json =
      lqsd::sqs_query::EncodeResult(action, input, "req", lqsd::sqs_query::Rendering::kJson);
  Check(!lqsd::Json::parse(as_json.body, nullptr, false).is_discarded(),
        "JSON rendering is not JSON");
  // Any bytes as an Accept header.
  lqsd::HttpRequest request;
  request.headers.emplace_back("accept", std::string(body));
  (void)lqsd::sqs_query::RenderingFor(request);

  // Helpers on the same bytes.
  if (auto decoded = lqsd::Base64Decode(body)) {
    Check(lqsd::Base64Decode(lqsd::Base64Encode(*decoded)) == decoded, "base64 round trip");
  }
  Check(lqsd::Base64Decode(lqsd::Base64Encode(body)) == std::string(body), "base64 encode/decode");
  Check(lqsd::PercentDecode(lqsd::UriEncode(body, false), false) == body, "URI encode/decode");
  const std::string xml = lqsd::XmlEscape(body);
  Check(xml.find('<') == std::string::npos && xml.find('>') == std::string::npos, "XML escaping");
  (void)lqsd::SanitizeUtf8(body);
  (void)lqsd::ParseInt64(body);
  return 0;
}
