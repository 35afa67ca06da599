// fuzz/fuzz_sqs_json.cc — lqsd's reader of request JSON
// (server/request_input.h) on arbitrary bodies, with nlohmann's parser as
// the oracle.
//
// Properties: Parse never crashes or throws; it either returns a
// SerializationException or reads a JSON object. Where nlohmann reads the
// body as an object within the reader's limits, the reader reads the same
// members, values and types (integers of either sign compared by value).
// An accepted input serialises again (as the response encoder would)
// without throwing.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "server/request_input.h"
#include "server/sqs_json.h"
#include "tests/server/request_input_json.h"

namespace {

using lqsd::Json;
using lqsd::RequestInput;

[[noreturn]] void Fail(const char* what, std::string_view body) {
  std::fprintf(stderr, "fuzz_sqs_json: %s: %.*s\n", what, static_cast<int>(body.size()),
               body.data());
  std::abort();
}

// Within the reader's depth and member limits, with every number nlohmann
// read as an integer or as a double from a literal the reader reads too.
bool Readable(const Json& value, int depth) {
  if (value.is_number_float()) return false;  // could be a huge integer literal: not compared
  if (!value.is_structured()) return true;
  if (depth > RequestInput::kMaxDepth) return false;
  if (value.is_object() && value.size() > RequestInput::kMaxMembers) return false;
  for (const Json& item : value) {
    if (!Readable(item, depth + 1)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  RequestInput input;
  if (const std::optional<lqsd::SqsError> error = input.Parse(body)) {
    if (error->query_code != "SerializationException") Fail("not a SerializationException", body);
    (void)lqsd::sqs_json::EncodeError(*error, "req");
  }
  const Json ours = lqsd::ToJson(input.root());
  if (!ours.is_object()) Fail("read something other than an object", body);
  (void)lqsd::sqs_json::EncodeResult(ours, "req");

  const Json reference = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  // (nlohmann reads a body only up to a NUL byte: such bodies are not compared.)
  if (!reference.is_discarded() && reference.is_object() && Readable(reference, 1) &&
      body.find('\0') == std::string_view::npos) {
    const std::optional<Json> read = lqsd::ReadInput(body);
    if (!read.has_value()) Fail("refused what nlohmann reads", body);
    if (*read != reference) Fail("read otherwise than nlohmann", body);
  }
  (void)lqsd::sqs_json::ActionFromTarget(body);
  return 0;
}
