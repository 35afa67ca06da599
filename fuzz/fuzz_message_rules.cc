// fuzz/fuzz_message_rules.cc — SQS message validation
// (lib/api/message_rules.h) with fuzzed requests.
//
// Builds a queue configuration and a SendMessageRequest (body, delay,
// user and system attributes, group and dedup ids) from the input and runs
// ValidateSendMessage, plus the receive, batch-id and id-syntax checks.
// Properties:
//   * no crash, no undefined behaviour, every error carries a message;
//   * IsValidMessageText, IsValidGroupOrDedupId and IsValidBatchEntryId
//     agree with independent reference implementations (differential);
//   * an accepted request satisfies every documented rule (non-empty valid
//     body, size within MaximumMessageSize, <= 10 attributes, FIFO group and
//     dedup ids present, delay in range) and its digests are well formed.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "lib/api/message_rules.h"

namespace {

using lqs::fuzz::FuzzInput;
namespace api = lqs::api;

void Check(bool ok, const char* what) { lqs::fuzz::CheckProperty("fuzz_message_rules", ok, what); }

// Reference UTF-8 decoder + XML 1.0 Char production (RFC 3629: shortest
// form only, no surrogates, <= U+10FFFF).
bool RefValidText(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    size_t n;
    if (c < 0x80) {
      cp = c;
      n = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      cp = c & 0x1F;
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      cp = c & 0x0F;
      n = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      cp = c & 0x07;
      n = 4;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return false;
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    const bool xml = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                     (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
    if (!xml) return false;
    i += n;
  }
  return true;
}

bool RefGroupId(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (char c : s) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

bool RefBatchId(std::string_view s) {
  if (s.empty() || s.size() > 80) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsLowerHex(const std::string& s, size_t n) {
  if (s.size() != n) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

const char* const kDataTypes[] = {"String",     "Number", "Binary", "String.x", "Number.int",
                                  "Binary.gif", "string", "",       "Custom",   "Number."};
const char* const kAttrNames[] = {"a",    "Attr.1", "AWS.x",          "amazon.y", ".dot",
                                  "dot.", "a..b",   "AWSTraceHeader", "x-y_z",    ""};

// Text: either raw fuzz bytes or stitched from interesting code points.
std::string Text(FuzzInput& in, size_t max_len) {
  if (in.Bool()) return in.String(max_len);
  static const char* const kPieces[] = {"a",
                                        " ",
                                        "\t",
                                        "\n",
                                        "\r",
                                        "\x01",
                                        "\xC3\xA9",
                                        "\xED\x9F\xBF",
                                        "\xED\xA0\x80",
                                        "\xEF\xBF\xBD",
                                        "\xEF\xBF\xBE",
                                        "\xF0\x9F\x98\x80",
                                        "\xF4\x90\x80\x80",
                                        "\xC0\xAF",
                                        "\xE0\x80\xAF",
                                        "\xF8",
                                        "\x7F",
                                        "<&>"};
  std::string s;
  const int n = in.Range<int>(0, 12);
  for (int i = 0; i < n; ++i) s += in.Pick(kPieces);
  return s;
}

lqs::MessageAttributeValue Value(FuzzInput& in) {
  lqs::MessageAttributeValue v;
  v.data_type = in.Bool() ? std::string(in.Pick(kDataTypes)) : in.String(12);
  if (in.Bool()) v.string_value = Text(in, 24);
  if (in.Bool()) v.binary_value = in.String(24);
  return v;
}

std::optional<std::string> Id(FuzzInput& in) {
  switch (in.Range<int>(0, 3)) {
    case 0:
      return std::nullopt;
    case 1:
      return std::string("g").append(std::to_string(in.Byte()));
    case 2:
      return std::string(in.Range<size_t>(127, 129), 'x');
    default:
      return in.String(20);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);

  api::QueueConfig queue;
  queue.fifo = in.Bool();
  queue.content_based_deduplication = queue.fifo && in.Bool();
  queue.maximum_message_size = in.Bool() ? 1024 : in.Range<int>(1024, 1048576);
  queue.delay_seconds = in.Range<int>(0, 900);
  const bool in_batch = in.Bool();

  lqs::SendMessageRequest r;
  r.body = in.Bool() ? Text(in, 64) : std::string(in.Range<size_t>(1000, 1100), 'b');
  if (in.Bool()) r.delay_seconds = in.Range<int>(-2, 902);
  const int n_attrs = in.Range<int>(0, 12);
  for (int i = 0; i < n_attrs; ++i) {
    std::string name =
        in.Bool() ? std::string(in.Pick(kAttrNames)) + std::to_string(i) : in.String(12);
    r.message_attributes[name] = Value(in);
  }
  if (in.Bool()) {
    r.message_system_attributes[in.Bool() ? "AWSTraceHeader" : in.String(16)] = Value(in);
  }
  r.message_group_id = Id(in);
  r.message_deduplication_id = Id(in);

  const lqs::Status s = api::ValidateSendMessage(r, queue, in_batch);
  const int64_t size_bytes = api::MessageSize(r);
  if (s.ok()) {
    Check(!r.body.empty() && RefValidText(r.body), "accepted an empty or invalid body");
    Check(size_bytes <= queue.maximum_message_size, "accepted an oversized message");
    Check(r.message_attributes.size() <= 10, "accepted more than 10 attributes");
    if (queue.fifo) {
      Check(r.message_group_id.has_value() && RefGroupId(*r.message_group_id),
            "FIFO message accepted without a valid group id");
      Check(queue.content_based_deduplication || r.message_deduplication_id.has_value(),
            "FIFO message accepted without a dedup id");
      Check(!r.delay_seconds.has_value() || *r.delay_seconds == 0,
            "FIFO message accepted with a per-message delay");
    } else {
      Check(!r.message_deduplication_id.has_value(), "dedup id accepted on a standard queue");
    }
    if (r.delay_seconds) Check(*r.delay_seconds >= 0 && *r.delay_seconds <= 900, "delay range");
    for (const auto& [name, v] : r.message_attributes) {
      Check(!name.empty() && !v.data_type.empty(), "accepted an unnamed/untyped attribute");
    }
    for (const auto& [name, v] : r.message_system_attributes) {
      Check(name == "AWSTraceHeader" && v.data_type == "String", "system attribute accepted");
    }
    Check(IsLowerHex(api::Md5Hex(r.body), 32), "MD5 of body");
    if (!r.message_attributes.empty()) {
      Check(IsLowerHex(api::Md5OfMessageAttributes(r.message_attributes), 32), "MD5 of attributes");
    }
  } else {
    Check(!s.message().empty(), "error without a message");
  }
  Check(api::IsValidMessageText(r.body) == RefValidText(r.body), "IsValidMessageText differs");
  const std::string raw = in.String(140);
  Check(api::IsValidMessageText(raw) == RefValidText(raw), "IsValidMessageText differs (raw)");
  Check(api::IsValidGroupOrDedupId(raw) == RefGroupId(raw), "IsValidGroupOrDedupId differs");
  Check(api::IsValidBatchEntryId(raw) == RefBatchId(raw), "IsValidBatchEntryId differs");

  // Batch envelopes.
  std::vector<std::string> ids;
  const int n_ids = in.Range<int>(0, 11);
  for (int i = 0; i < n_ids; ++i)
    ids.push_back(in.Bool() ? std::string("e").append(std::to_string(in.Range<int>(0, 3)))
                            : in.String(8));
  const lqs::Status b = api::ValidateBatchIds(ids, "SendMessageBatchRequestEntry");
  if (b.ok()) {
    Check(!ids.empty() && ids.size() <= 10, "batch size accepted");
    std::set<std::string> distinct(ids.begin(), ids.end());
    Check(distinct.size() == ids.size(), "repeated batch ids accepted");
    for (const auto& id : ids) Check(RefBatchId(id), "bad batch id accepted");
  }

  // Receive parameters.
  lqs::ReceiveMessageRequest rr;
  rr.max_number_of_messages = in.Range<int>(-1, 12);
  if (in.Bool()) rr.visibility_timeout = in.Range<int>(-1, 43201);
  if (in.Bool()) rr.wait_time_seconds = in.Range<int>(-1, 21);
  if (in.Bool()) rr.receive_request_attempt_id = in.String(130);
  if (api::ValidateReceiveMessage(rr).ok()) {
    Check(rr.max_number_of_messages >= 1 && rr.max_number_of_messages <= 10, "max messages");
    Check(
        !rr.visibility_timeout || (*rr.visibility_timeout >= 0 && *rr.visibility_timeout <= 43200),
        "receive visibility timeout");
    Check(!rr.wait_time_seconds || (*rr.wait_time_seconds >= 0 && *rr.wait_time_seconds <= 20),
          "wait time");
  }
  const int64_t vt = in.Range<int64_t>(-2, 43202);
  Check(api::ValidateVisibilityTimeout(vt).ok() == (vt >= 0 && vt <= 43200), "visibility range");

  // Receive-side filters never crash; "All" selects everything.
  std::vector<std::string> filters;
  for (int i = in.Range<int>(0, 3); i > 0; --i) filters.push_back(in.String(10));
  for (const auto& [name, v] : r.message_attributes) {
    (void)api::MessageAttributeSelected(name, filters);
    Check(api::MessageAttributeSelected(name, {"All"}), "All does not select");
  }
  (void)api::SystemAttributeSelected(raw, filters);
  (void)api::Sha256Hex(raw);
  return 0;
}
