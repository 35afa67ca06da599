// AWS JSON 1.0 codec (see sqs_json.h).

#include "server/sqs_json.h"

#include <algorithm>

#include "server/json_fast.h"

namespace lqsd::sqs_json {

std::string Dump(const Json& value) {
  // Replace (never throw on) malformed UTF-8: error texts may echo input.
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

// SQS inputs nest at most 4 levels (Entries[].MessageAttributes.x.Value) and
// no object of theirs has more than a few dozen members.
constexpr int kMaxDepth = 32;
constexpr size_t kMaxMembers = 1000;

// The deepest nesting of [ and { outside strings, and the most members any
// one object has (colons directly inside it, an upper bound for a valid
// document): a pre-scan, so that neither parsing nor converting recurses
// deeply, and so that small objects can be parsed straight into the
// insertion-ordered Json (whose key lookup is linear).
struct Shape {
  int max_depth = 0;
  size_t max_members = 0;
};

Shape ScanShape(std::string_view text) {
  Shape shape;
  // Per open container: is it an object, and its colons so far. Beyond
  // kMaxDepth only the depth is tracked (the request is refused anyway).
  struct Level {
    bool object;
    size_t colons;
  };
  Level stack[kMaxDepth + 1];
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (depth >= 0 && depth < kMaxDepth + 1) stack[depth] = Level{c == '{', 0};
      shape.max_depth = std::max(shape.max_depth, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ':' && depth > 0 && depth <= kMaxDepth + 1 && stack[depth - 1].object) {
      shape.max_members = std::max(shape.max_members, ++stack[depth - 1].colons);
    }
  }
  return shape;
}

bool MembersWithinLimit(const nlohmann::json& value) {
  if (value.is_object()) {
    if (value.size() > kMaxMembers) return false;
    for (const auto& [k, v] : value.items()) {
      if (!MembersWithinLimit(v)) return false;
    }
  } else if (value.is_array()) {
    for (const auto& v : value) {
      if (!MembersWithinLimit(v)) return false;
    }
  }
  return true;
}

HttpResponse Base(int status, const std::string& request_id) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Content-Type", std::string(kContentType));
  r.headers.emplace_back("x-amzn-RequestId", request_id);
  return r;
}

// The code unit of the \uXXXX escape at text[i] (text[i] == '\\'), or -1
// when there is none there.
int32_t EscapedCodeUnit(std::string_view text, size_t i) {
  if (text.size() - i < 6 || text[i + 1] != 'u') return -1;
  return json_fast::Hex4(text.data() + i + 2);
}

// JSON's grammar (RFC 8259 section 8.2) allows a \u escape of a lone UTF-16
// surrogate, and SQS reads such a document; it then refuses the character
// where it checks characters (InvalidMessageContents in a MessageBody,
// InvalidParameterValue elsewhere). nlohmann refuses the whole document. So
// each escape of a lone surrogate becomes \uffff, a code point that SQS
// refuses wherever it refuses a surrogate, and the request gets AWS's error.
// Returns false, leaving *out alone, when `text` has no such escape.
bool ReplaceLoneSurrogates(std::string_view text, std::string* out) {
  std::string replaced;
  bool any = false;
  size_t copied = 0;  // text[0, copied) is in `replaced`
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') continue;
    const int32_t unit = EscapedCodeUnit(text, i);
    if (unit < 0xd800 || unit > 0xdfff) {
      ++i;  // another escape (an escaped backslash, say): skip its second character
      continue;
    }
    if (unit <= 0xdbff) {
      const int32_t low =
          text.size() - i >= 12 && text[i + 6] == '\\' ? EscapedCodeUnit(text, i + 6) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) {
        i += 11;  // a pair
        continue;
      }
    }
    replaced.append(text.substr(copied, i - copied));
    replaced.append("\\uffff");
    any = true;
    copied = i + 6;
    i += 5;
  }
  if (!any) return false;
  replaced.append(text.substr(copied));
  *out = std::move(replaced);
  return true;
}

}  // namespace

std::string ActionFromTarget(std::string_view target) {
  if (target.substr(0, kTargetPrefix.size()) != kTargetPrefix) return std::string();
  return std::string(target.substr(kTargetPrefix.size()));
}

std::optional<SqsError> DecodeBody(std::string_view body, Json* params) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    *params = Json::object();
    return std::nullopt;
  }
  // The usual request: read directly, with nlohmann's outcome (json_fast.h).
  if (json_fast::ParseObject(body, params)) return std::nullopt;
  std::string without_lone_surrogates;
  if (ReplaceLoneSurrogates(body, &without_lone_surrogates)) {
    return DecodeBody(without_lone_surrogates, params);
  }
  const Shape shape = ScanShape(body);
  if (shape.max_depth > kMaxDepth) {
    return SerializationError("The request body is nested too deeply.");
  }
  if (shape.max_members <= kMaxMembers) {
    // Every object is small: parse straight into the ordered Json (the same
    // outcome as below, without the std::map tree and its conversion).
    Json parsed = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return SerializationError("The request body is not valid JSON.");
    }
    if (!parsed.is_object()) {
      return SerializationError("The request body must be a JSON object.");
    }
    *params = std::move(parsed);
    return std::nullopt;
  }
  // Parsed into std::map-backed JSON first: the insertion-ordered Json looks
  // keys up linearly, so a huge object would cost quadratic time.
  nlohmann::json parsed =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return SerializationError("The request body is not valid JSON.");
  }
  if (!parsed.is_object()) {
    return SerializationError("The request body must be a JSON object.");
  }
  if (!MembersWithinLimit(parsed)) {
    return SerializationError("A JSON object of the request has too many members.");
  }
  *params = Json(parsed);
  return std::nullopt;
}

namespace {

bool IsEmptyCollection(const Json& value) {
  return (value.is_array() || value.is_object()) && value.empty();
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
    p += json_fast::PlainAsciiLength(p, end);
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const size_t n = json_fast::Utf8SequenceLength(p, end);
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
    switch (c) {
      case '"':
      case '\\':
        out->push_back(static_cast<char>(c));
        break;
      case '\b':
        out->push_back('b');
        break;
      case '\t':
        out->push_back('t');
        break;
      case '\n':
        out->push_back('n');
        break;
      case '\f':
        out->push_back('f');
        break;
      case '\r':
        out->push_back('r');
        break;
      default: {
        const char escape[] = {'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out->append(escape, sizeof(escape));
        break;
      }
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
