// fuzz/fuzz_sqs_json.cc — the AWS JSON 1.0 request parser of lqsd
// (server/sqs_json.h DecodeBody) on arbitrary bodies.
//
// Properties: DecodeBody never crashes or throws; it either returns an
// error (SerializationException) or a JSON object; an accepted object
// serialises again (as the response encoder would) without throwing.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/sqs_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  lqsd::Json params;
  const std::optional<lqsd::SqsError> err = lqsd::sqs_json::DecodeBody(body, &params);
  if (!err) {
    if (!params.is_object()) {
      std::fprintf(stderr, "fuzz_sqs_json: accepted a body that is not an object\n");
      std::abort();
    }
    (void)lqsd::sqs_json::EncodeResult(params, "req");
  } else {
    (void)lqsd::sqs_json::EncodeError(*err, "req");
  }
  (void)lqsd::sqs_json::ActionFromTarget(body);
  return 0;
}
