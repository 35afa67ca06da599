// fuzz/fuzz_sqs_json.cc — the AWS JSON 1.0 request parser of lqsd
// (server/sqs_json.h DecodeBody) on arbitrary bodies.
//
// Properties: DecodeBody never crashes or throws; it either returns an
// error (SerializationException) or a JSON object; an accepted object
// serialises again (as the response encoder would) without throwing.
// Whatever plain_send_batch::Decode accepts, DecodeBody accepts too and
// SendMessageBatch reads to the same QueueUrl and entries.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "server/actions.h"
#include "server/plain_send_batch.h"
#include "server/sqs_json.h"

namespace {

[[noreturn]] void Mismatch(const char* what) {
  std::fprintf(stderr, "fuzz_sqs_json: plain_send_batch and the generic path differ: %s\n", what);
  std::abort();
}

void CheckPlainSendBatch(std::string_view body, const std::optional<lqsd::SqsError>& err,
                         lqsd::Json params) {
  const auto plain = lqsd::plain_send_batch::Decode(body);
  if (!plain.has_value()) return;
  if (err.has_value()) Mismatch("DecodeBody refused the body");
  std::optional<std::string> url;
  if (const auto it = params.find("QueueUrl"); it != params.end() && !it->is_null()) {
    if (!it->is_string()) Mismatch("QueueUrl type");
    url = it->get<std::string>();
  }
  if (url != plain->queue_url) Mismatch("QueueUrl");
  const auto generic = lqsd::SendBatchEntriesFromParams(params);
  if (!generic.has_value()) Mismatch("the action refused the entries");
  if (generic->size() != plain->entries.size()) Mismatch("entry count");
  for (size_t i = 0; i < generic->size(); ++i) {
    const lqs::SendMessageBatchEntry& a = plain->entries[i];
    const lqs::SendMessageBatchEntry& b = (*generic)[i];
    if (a.id != b.id || a.request.body != b.request.body ||
        a.request.delay_seconds != b.request.delay_seconds ||
        a.request.message_group_id != b.request.message_group_id ||
        a.request.message_deduplication_id != b.request.message_deduplication_id ||
        !b.request.message_attributes.empty() || !b.request.message_system_attributes.empty()) {
      Mismatch("an entry");
    }
  }
}

}  // namespace

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
  CheckPlainSendBatch(body, err, params);
  (void)lqsd::sqs_json::ActionFromTarget(body);
  return 0;
}
