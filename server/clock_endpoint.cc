// server/clock_endpoint.cc — see clock_endpoint.h.

#include "server/clock_endpoint.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/text_util.h"

namespace lqsd::clock_endpoint {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kParameter = "seconds";

HttpResponse JsonResponse(int status, const Json& body) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Content-Type", "application/json");
  r.headers.emplace_back("Cache-Control", "no-store");
  r.body = body.dump() + "\n";
  return r;
}

HttpResponse Error(int status, std::string_view code, const std::string& message) {
  return JsonResponse(status, Json{{"code", code}, {"message", message}});
}

Json Now(lqs::ManualClock& clock) {
  const int64_t now = clock.NowMillis();
  return Json{{"now_millis", now}, {"now", Iso8601(now)}, {"running", clock.running()}};
}

std::string Quoted(std::string_view text) {
  return "'" + SanitizeUtf8(text.substr(0, 64)) + (text.size() > 64 ? "...'" : "'");
}

// The `seconds` of a JSON body: a number, or text ParseSeconds reads.
std::optional<int64_t> SecondsFromJson(const Json& value, std::string* error) {
  if (value.is_string()) return ParseSeconds(value.get<std::string>(), error);
  if (value.is_number_unsigned() || value.is_number_integer()) {
    return ParseSeconds(std::to_string(value.get<int64_t>()), error);
  }
  if (value.is_number_float()) {
    const double s = value.get<double>();
    if (!std::isfinite(s) || s < 0 || s > static_cast<double>(kMaxAdvanceSeconds)) {
      *error = "The parameter seconds must be a number from 0 to " +
               std::to_string(kMaxAdvanceSeconds) + ", got " + value.dump() + ".";
      return std::nullopt;
    }
    return std::llround(s * 1000.0);
  }
  *error = "The parameter seconds must be a number, got " + SanitizeUtf8(value.dump()) + ".";
  return std::nullopt;
}

// The step in milliseconds, or the error response.
std::pair<std::optional<int64_t>, std::optional<HttpResponse>> ReadStep(
    const HttpRequest& request) {
  std::string error;
  auto invalid = [&] {
    return std::make_pair(std::optional<int64_t>(),
                          std::optional<HttpResponse>(Error(400, "InvalidParameterValue", error)));
  };
  for (const auto& [name, value] : ParseFormPairs(request.RawQuery())) {
    if (name != kParameter) continue;
    std::optional<int64_t> ms = ParseSeconds(value, &error);
    if (!ms.has_value()) return invalid();
    return {ms, std::nullopt};
  }
  const size_t first = request.body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (request.body[first] == '{' || request.body[first] == '[')) {
    // JSON, whatever the Content-Type says (curl -d sends a form type).
    const Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (!body.is_object()) {
      error = "The body is not a JSON object; send {\"seconds\": N}.";
      return invalid();
    }
    const auto it = body.find(kParameter);
    if (it != body.end()) {
      std::optional<int64_t> ms = SecondsFromJson(*it, &error);
      if (!ms.has_value()) return invalid();
      return {ms, std::nullopt};
    }
  } else if (first != std::string::npos) {
    for (const auto& [name, value] : ParseFormPairs(request.body)) {
      if (name != kParameter) continue;
      std::optional<int64_t> ms = ParseSeconds(value, &error);
      if (!ms.has_value()) return invalid();
      return {ms, std::nullopt};
    }
  }
  return {std::nullopt,
          Error(400, "MissingParameter",
                "The request must contain the parameter seconds: a JSON body {\"seconds\": N}, "
                "a form body or a query parameter seconds=N.")};
}

HttpResponse NotAllowed(std::string_view allow) {
  HttpResponse r =
      Error(405, "MethodNotAllowed", "This path answers only " + std::string(allow) + " requests.");
  r.headers.emplace_back("Allow", std::string(allow));
  return r;
}

}  // namespace

bool IsClockRequest(const HttpRequest& request) {
  const std::string_view path = request.RawPath();
  if (path != kPath && path != kAdvancePath) return false;
  if (request.Header("x-amz-target") != nullptr) return false;
  for (const auto& [name, value] : ParseFormPairs(request.RawQuery())) {
    if (name == "Action") return false;
  }
  return true;
}

HttpResponse Serve(const HttpRequest& request, lqs::ManualClock& clock) {
  if (request.RawPath() == kPath) {
    if (request.method != "GET") return NotAllowed("GET");
    return JsonResponse(200, Now(clock));
  }
  if (request.method != "POST") return NotAllowed("POST");
  auto [step, error] = ReadStep(request);
  if (error.has_value()) return std::move(*error);
  clock.AdvanceMillis(*step);  // wakes the Brokers' parked long polls
  Json out = Now(clock);
  out["advanced_millis"] = *step;
  return JsonResponse(200, out);
}

std::optional<int64_t> ParseSeconds(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) {
    *error = "The parameter seconds " + why + ", got " + Quoted(text) + ".";
    return std::nullopt;
  };
  if (!text.empty() && text[0] == '-') return fail("must be >= 0");
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  auto digits = [](std::string_view s) {
    for (const char c : s) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  };
  if ((whole.empty() && fraction.empty()) || !digits(whole) || !digits(fraction) ||
      (dot != std::string_view::npos && fraction.empty())) {
    return fail("must be a number of seconds (digits, with a fraction for milliseconds: 1.5)");
  }
  const size_t leading = whole.find_first_not_of('0');
  const std::string_view significant =
      leading == std::string_view::npos ? std::string_view() : whole.substr(leading);
  const std::optional<long long> s = significant.empty()       ? 0LL
                                     : significant.size() > 12 ? std::nullopt
                                                               : ParseInt64(significant);
  if (!s.has_value() || *s > kMaxAdvanceSeconds) {
    return fail("must be at most " + std::to_string(kMaxAdvanceSeconds));
  }
  int64_t ms = *s * 1000;
  // The first three fraction digits are milliseconds; the fourth rounds.
  int64_t scale = 100;
  for (size_t i = 0; i < fraction.size() && i < 3; ++i, scale /= 10) {
    ms += (fraction[i] - '0') * scale;
  }
  if (fraction.size() > 3 && fraction[3] >= '5') ++ms;
  return ms;
}

std::string Iso8601(int64_t millis) {
  const auto seconds =
      static_cast<std::time_t>(millis >= 0 ? millis / 1000 : (millis - 999) / 1000);
  const int64_t ms = millis - static_cast<int64_t>(seconds) * 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace lqsd::clock_endpoint
