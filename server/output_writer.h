// server/output_writer.h — the two forms an action's output members are
// written in, by one encoder per output (actions.cc).
//
// An encoder is a template over the writer: it calls the same sequence of
// BeginObject / Key / String / Bool / BeginList ... on either
//   - TextOutput: JSON text, byte for byte what sqs_json::EncodeResult gives
//     for the same members (the JSON protocol: no document tree per message),
//     including its one rule of its own: an output member (depth 1) whose
//     list or map is empty is left out; or
//   - TreeOutput: a Json tree of the same members, empty lists and maps kept
//     (the query protocol's encoder walks it: sqs_query::EncodeResult).
// So each output's member names, order and presence are stated once.
//
// Contract: calls form one JSON value (an object at the top). Keys are plain
// ASCII without quotes or backslashes (SQS's member names); map keys and
// strings may be any bytes (TextOutput replaces malformed UTF-8 as the
// serialiser does). Not thread safe; one writer per output.

#ifndef LQS_SERVER_OUTPUT_WRITER_H_
#define LQS_SERVER_OUTPUT_WRITER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "server/actions.h"

namespace lqsd {

class TextOutput {
 public:
  // `reserve`: the expected size of the text (one allocation when right).
  explicit TextOutput(size_t reserve = 64) { text_.reserve(reserve); }

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginList() { Open('['); }
  void EndList() { Close(']'); }
  // A member's name (SQS's, plain ASCII) in an object.
  void Key(std::string_view key);
  // A map's key (any text) in an object.
  void MapKey(std::string_view key);
  void String(std::string_view value);
  void Bool(bool value);

  std::string Take() { return std::move(text_); }

 private:
  void Separate();  // ',' unless the enclosing container has only just opened
  void Open(char c);
  void Close(char c);

  std::string text_;
  int depth_ = 0;
  size_t member_start_ = 0;  // where the current depth-1 member (and its ',') begins
};

class TreeOutput {
 public:
  void BeginObject() { Push(Json::object()); }
  void EndObject() { stack_.pop_back(); }
  void BeginList() { Push(Json::array()); }
  void EndList() { stack_.pop_back(); }
  void Key(std::string_view key) { key_.assign(key.data(), key.size()); }
  void MapKey(std::string_view key) { Key(key); }
  void String(std::string_view value) { Place(Json(std::string(value))); }
  void Bool(bool value) { Place(Json(value)); }

  Json Take() { return std::move(root_); }

 private:
  Json& Place(Json value);
  void Push(Json container) { stack_.push_back(&Place(std::move(container))); }

  Json root_;
  std::vector<Json*> stack_;  // the open containers, innermost last
  std::string key_;           // the key of the next value placed in an object
};

}  // namespace lqsd

#endif  // LQS_SERVER_OUTPUT_WRITER_H_
