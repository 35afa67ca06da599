// tests/server/request_input_json.h — what RequestInput read, as nlohmann's
// tree: the form in which the tests and fuzz_sqs_json compare lqsd's reader
// with nlohmann's parser.
//
// Thread safety: pure functions.

#ifndef LQS_TESTS_SERVER_REQUEST_INPUT_JSON_H_
#define LQS_TESTS_SERVER_REQUEST_INPUT_JSON_H_

#include <optional>
#include <string>
#include <string_view>

#include "server/actions.h"
#include "server/request_input.h"

namespace lqsd {

inline Json ToJson(simdjson::dom::element e);

// `object` as a tree, members in document order; of repeated keys the first
// position and the last value (as nlohmann keeps them).
inline Json ToJson(simdjson::dom::object object) {
  Json out = Json::object();
  for (const simdjson::dom::key_value_pair field : object) {
    out[std::string(field.key)] = ToJson(field.value);
  }
  return out;
}

// `e` as a tree (objects as above).
inline Json ToJson(simdjson::dom::element e) {
  namespace dom = simdjson::dom;
  switch (e.type()) {
    case dom::element_type::OBJECT:
      return ToJson(e.get_object().value_unsafe());
    case dom::element_type::ARRAY: {
      Json out = Json::array();
      const dom::array items = e.get_array().value_unsafe();
      for (const dom::element item : items) out.push_back(ToJson(item));
      return out;
    }
    case dom::element_type::STRING:
      return std::string(e.get_string().value_unsafe());
    case dom::element_type::INT64:
      return e.get_int64().value_unsafe();
    case dom::element_type::UINT64:
      return e.get_uint64().value_unsafe();
    case dom::element_type::DOUBLE:
      return e.get_double().value_unsafe();
    case dom::element_type::BOOL:
      return e.get_bool().value_unsafe();
    case dom::element_type::NULL_VALUE:
      return nullptr;
  }
  return nullptr;
}

// What RequestInput reads from `body`, or nullopt when it refuses it.
inline std::optional<Json> ReadInput(std::string_view body) {
  RequestInput input;
  if (input.Parse(body).has_value()) return std::nullopt;
  return ToJson(input.root());
}

}  // namespace lqsd

#endif  // LQS_TESTS_SERVER_REQUEST_INPUT_JSON_H_
