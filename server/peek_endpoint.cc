// server/peek_endpoint.cc — see peek_endpoint.h.

#include "server/peek_endpoint.h"

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/api/md5.h"
#include "lib/api/message_rules.h"
#include "server/text_util.h"

namespace lqsd::peek {
namespace {

// "true" or "1", any case (LocalStack's reading of its flags).
bool IsOn(const std::string& value) {
  if (value == "1") return true;
  if (value.size() != 4) return false;
  return StartsWithLower(value, "true");
}

// The path's segments below kPath; empty pieces skipped.
std::vector<std::string_view> SegmentsBelow(std::string_view path) {
  std::vector<std::string_view> out;
  std::string_view rest = path.substr(kPath.size());
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view piece = rest.substr(0, slash);
    if (!piece.empty()) out.push_back(piece);
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return out;
}

}  // namespace

bool IsPeekRequest(const HttpRequest& request) {
  if (request.method != "GET" && request.method != "POST") return false;
  const std::string_view path = request.RawPath();
  if (path.substr(0, kPath.size()) != kPath) return false;
  return path.size() == kPath.size() || path[kPath.size()] == '/';
}

PeekRequest ParsePeekRequest(const HttpRequest& request) {
  PeekRequest out;
  std::vector<std::pair<std::string, std::string>> params = ParseFormPairs(request.RawQuery());
  const std::string* type = request.Header("content-type");
  if (request.method == "POST" && type != nullptr) {
    if (StartsWithLower(*type, "application/x-www-form-urlencoded")) {
      for (auto& p : ParseFormPairs(request.body)) params.push_back(std::move(p));
    } else if (StartsWithLower(*type, "application/x-amz-json")) {
      const auto body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_object()) {
        const auto url = body.find("QueueUrl");
        if (url != body.end() && url->is_string()) {
          params.emplace_back("QueueUrl", url->get<std::string>());
        }
      }
    }
  }
  // The first of repeated parameters wins, as in the query protocol.
  bool seen_url = false, seen_invisible = false, seen_delayed = false;
  for (const auto& [name, value] : params) {
    if (name == "QueueUrl" && !seen_url) {
      out.queue_url = value;
      seen_url = true;
    } else if (name == "ShowInvisible" && !seen_invisible) {
      out.show_invisible = IsOn(value);
      seen_invisible = true;
    } else if (name == "ShowDelayed" && !seen_delayed) {
      out.show_delayed = IsOn(value);
      seen_delayed = true;
    }
  }
  const std::string_view path = request.RawPath();
  if (path.size() > kPath.size()) {
    out.path_form = true;
    const std::vector<std::string_view> segments = SegmentsBelow(path);
    if (segments.size() == 3) {
      out.region = PercentDecode(segments[0], /*plus_is_space=*/false);
      out.account_id = PercentDecode(segments[1], /*plus_is_space=*/false);
      out.queue_name = PercentDecode(segments[2], /*plus_is_space=*/false);
    }
  }
  return out;
}

lqs::StatusOr<lqs::ReceiveMessageResult> Peek(lqs::Queue& queue, bool show_invisible,
                                              bool show_delayed) {
  lqs::ReceiveMessageResult result;
  const lqs::Status status = queue.ScanMessages([&](const lqs::StoredMessage& m) {
    const bool delayed = m.state == "delayed";
    const bool in_flight = m.state == "in_flight";
    if ((delayed && !show_delayed) || (in_flight && !show_invisible)) return true;
    lqs::ReceivedMessage r;
    r.message_id = m.message_id;
    r.receipt_handle = std::string(kReceiptHandle);
    r.body = m.body;
    r.md5_of_body = lqs::api::Md5Hex(m.body);
    r.attributes = m.attributes;
    if (show_invisible) r.attributes["IsVisible"] = !delayed && !in_flight ? "true" : "false";
    if (show_delayed) r.attributes["IsDelayed"] = delayed ? "true" : "false";
    if (!m.message_attributes.empty()) {
      r.message_attributes = m.message_attributes;
      r.md5_of_message_attributes = lqs::api::Md5OfMessageAttributes(m.message_attributes);
    }
    result.messages.push_back(std::move(r));
    return true;
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace lqsd::peek
