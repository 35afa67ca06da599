// lib/api/config_text.h — text helpers shared by the queue-attribute rules
// (queue_config.cc) and the Policy rules (queue_policy.cc): SQS's
// InvalidParameterValue wording, name and digit checks, compact JSON.
//
// Internal to lib/api (included by those two files only). Thread safety:
// pure functions over values.

#ifndef LQS_LIB_API_CONFIG_TEXT_H_
#define LQS_LIB_API_CONFIG_TEXT_H_

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "lqs/status.h"

namespace lqs::api {

// Attribute documents keep their members in the order they were written.
using Json = nlohmann::ordered_json;

inline std::string Concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view part : parts) out.append(part);
  return out;
}

// "Value <v> for parameter <Name> is invalid. Reason: <reason>"
inline Status InvalidParameterValue(std::string_view value, std::string_view name,
                                    std::string_view reason) {
  return Status(ErrorCode::kInvalidParameterValue, Concat({"Value ", value, " for parameter ", name,
                                                           " is invalid. Reason: ", reason}));
}

// InvalidParameterValue for the value `value` of parameter `name`, as a
// function of the reason. Borrows both views: they must outlive it.
inline auto InvalidParameterValueOf(std::string_view value, std::string_view name) {
  return
      [value, name](std::string_view reason) { return InvalidParameterValue(value, name, reason); };
}

// [A-Za-z0-9_-]{1,max_length}: queue names and permission labels.
inline bool IsPlainName(std::string_view name, size_t max_length) {
  if (name.empty() || name.size() > max_length) return false;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// One or more ASCII digits.
inline bool IsDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// `text` parsed, when it is a JSON object; nullopt when it is not JSON or not
// an object (never throws).
inline std::optional<Json> ParseObject(const std::string& text) {
  Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  return json;
}

// Compact JSON that never throws (invalid UTF-8 is replaced).
template <typename J>
std::string Dump(const J& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace lqs::api

#endif  // LQS_LIB_API_CONFIG_TEXT_H_
