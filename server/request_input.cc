// A request's input members, read by simdjson (see request_input.h).

#include "server/request_input.h"

#include <new>
#include <string>
#include <utility>

#include "server/text_util.h"

namespace lqsd {
namespace {

namespace dom = simdjson::dom;

// The shared empty input {}: parsed once, never written again.
dom::object EmptyObject() {
  static const dom::document* const kEmpty = [] {
    auto* doc = new dom::document();
    dom::parser parser;
    if (parser.parse_into_document(*doc, std::string_view("{}")).error() != simdjson::SUCCESS) {
      throw std::bad_alloc();  // parsing "{}" fails only for want of memory
    }
    return doc;
  }();
  return kEmpty->root().get_object().value();
}

// This thread's parser: its scratch space (structural indexes, the copy of a
// body without padding) is reused from request to request.
dom::parser& ThreadParser() {
  thread_local dom::parser parser = [] {
    dom::parser p;
    // simdjson refuses more than max_depth containers open at once.
    if (p.allocate(simdjson::dom::MINIMAL_DOCUMENT_CAPACITY, RequestInput::kMaxDepth) !=
        simdjson::SUCCESS) {
      throw std::bad_alloc();
    }
    return p;
  }();
  return parser;
}

// Whether every object in `value` has at most kMaxMembers members (the
// document's depth is bounded by the parser, so this recursion is too).
bool MembersWithinLimit(dom::element value) {
  if (value.is_object()) {
    const dom::object object = value.get_object().value_unsafe();
    if (object.size() > RequestInput::kMaxMembers) return false;
    for (const dom::key_value_pair field : object) {
      if (!MembersWithinLimit(field.value)) return false;
    }
  } else if (value.is_array()) {
    const dom::array items = value.get_array().value_unsafe();
    for (const dom::element item : items) {
      if (!MembersWithinLimit(item)) return false;
    }
  }
  return true;
}

// The code unit of the \uXXXX escape at text[i] (text[i] == '\\'), or -1
// when there is none there.
int32_t EscapedCodeUnit(std::string_view text, size_t i) {
  if (text.size() - i < 6 || text[i + 1] != 'u') return -1;
  return Hex4(text.data() + i + 2);
}

// `text` with each \u escape of a lone surrogate as \uffff (see the header);
// false, leaving *out alone, when it has none.
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

RequestInput::RequestInput() : root_(EmptyObject()) {}

std::optional<SqsError> RequestInput::Parse(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    document_.reset();
    root_ = EmptyObject();
    return std::nullopt;
  }
  // (After the blank check: a byte order mark alone is no JSON document.)
  constexpr std::string_view kByteOrderMark = "\xef\xbb\xbf";
  if (body.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    body.remove_prefix(kByteOrderMark.size());
  }
  auto document = std::make_unique<dom::document>();
  dom::element root;
  const simdjson::error_code error =
      ThreadParser().parse_into_document(*document, body.data(), body.size()).get(root);
  if (error == simdjson::DEPTH_ERROR) {
    return SerializationError("The request body is nested too deeply.");
  }
  if (error != simdjson::SUCCESS) {
    std::string without_lone_surrogates;
    if (error == simdjson::STRING_ERROR && ReplaceLoneSurrogates(body, &without_lone_surrogates)) {
      return Parse(without_lone_surrogates);
    }
    return SerializationError("The request body is not valid JSON.");
  }
  if (!root.is_object()) return SerializationError("The request body must be a JSON object.");
  if (!MembersWithinLimit(root)) {
    return SerializationError("A JSON object of the request has too many members.");
  }
  root_ = root.get_object().value_unsafe();
  document_ = std::move(document);
  return std::nullopt;
}

std::optional<dom::element> RequestInput::Find(dom::object object, std::string_view name) {
  std::optional<dom::element> found;
  for (const dom::key_value_pair field : object) {
    if (field.key == name) found = field.value;
  }
  if (found.has_value() && found->is_null()) return std::nullopt;
  return found;
}

}  // namespace lqsd
