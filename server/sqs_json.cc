// AWS JSON 1.0 codec (see sqs_json.h).

#include "server/sqs_json.h"

#include <algorithm>

#include "server/text_util.h"

namespace lqsd::sqs_json {

std::string Dump(const Json& value) {
  // Replace (never throw on) malformed UTF-8: error texts may echo input.
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

HttpResponse Base(int status, const std::string& request_id) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Content-Type", std::string(kContentType));
  r.headers.emplace_back("x-amzn-RequestId", request_id);
  return r;
}

}  // namespace

std::string ActionFromTarget(std::string_view target) {
  if (target.substr(0, kTargetPrefix.size()) != kTargetPrefix) return std::string();
  return std::string(target.substr(kTargetPrefix.size()));
}

namespace {

bool IsEmptyCollection(const Json& value) {
  return (value.is_array() || value.is_object()) && value.empty();
}

// The letter of c's two-character escape (\" \\ \b \t \n \f \r), or 0 for a
// byte written as \u00xx.
char ShortEscape(unsigned char c) {
  constexpr std::string_view kEscaped = "\"\\\b\t\n\f\r";
  constexpr std::string_view kLetters = "\"\\btnfr";
  const size_t i = kEscaped.find(static_cast<char>(c));
  return i == std::string_view::npos ? '\0' : kLetters[i];
}

}  // namespace

HttpResponse EncodeResult(const Json& output, const std::string& request_id) {
  HttpResponse r = Base(200, request_id);
  if (!output.is_object() || output.empty()) {
    r.body = "{}";
  } else if (std::none_of(output.begin(), output.end(), IsEmptyCollection)) {
    r.body = Dump(output);
  } else {  // an empty list or map member is omitted
    Json kept = Json::object();
    for (const auto& [key, value] : output.items()) {
      if (!IsEmptyCollection(value)) kept[key] = value;
    }
    r.body = Dump(kept);
  }
  return r;
}

HttpResponse EncodeEncodedResult(std::string json_body, const std::string& request_id) {
  HttpResponse r = Base(200, request_id);
  r.body = std::move(json_body);
  return r;
}

void AppendString(std::string* out, std::string_view text) {
  // nlohmann's serialiser (ensure_ascii off): '"' and '\\' escaped, the C0
  // controls as \b \t \n \f \r or \u00xx, every other byte of well-formed
  // UTF-8 as is (DEL and '/' included).
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t mark = out->size();
  out->reserve(mark + text.size() + 2);
  out->push_back('"');
  const char* p = text.data();
  const char* const end = p + text.size();
  const char* run = p;  // the bytes not yet appended
  for (;;) {
    p += PlainAsciiLength(p, end);
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(p, end);
      if (n == 0) {
        // Malformed UTF-8 (replaced by U+FFFD): the serialiser itself.
        out->resize(mark);
        out->append(Dump(Json(std::string(text))));
        return;
      }
      p += n;
      continue;
    }
    out->append(run, static_cast<size_t>(p - run));
    out->push_back('\\');
    if (const char letter = ShortEscape(c)) {
      out->push_back(letter);
    } else {
      const char escape[] = {'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
      out->append(escape, sizeof(escape));
    }
    run = ++p;
  }
  out->append(run, static_cast<size_t>(end - run));
  out->push_back('"');
}

HttpResponse EncodeError(const SqsError& error, const std::string& request_id) {
  HttpResponse r = Base(error.http_status, request_id);
  r.headers.emplace_back("x-amzn-query-error",
                         error.query_code + (error.sender_fault ? ";Sender" : ";Receiver"));
  Json body = Json::object();
  body["__type"] = JsonType(error);
  body["message"] = MessageFor(error, Protocol::kJson);
  r.body = Dump(body);
  return r;
}

}  // namespace lqsd::sqs_json
