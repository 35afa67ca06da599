// The two output forms (see output_writer.h).

#include "server/output_writer.h"

#include "server/sqs_json.h"

namespace lqsd {

void TextOutput::Separate() {
  if (!text_.empty() && text_.back() != '{' && text_.back() != '[') text_.push_back(',');
}

void TextOutput::Key(std::string_view key) {
  if (depth_ == 1) member_start_ = text_.size();
  Separate();
  sqs_json::AppendKey(&text_, key);
}

void TextOutput::MapKey(std::string_view key) {
  if (depth_ == 1) member_start_ = text_.size();
  Separate();
  sqs_json::AppendString(&text_, key);
  text_.push_back(':');
}

void TextOutput::String(std::string_view value) {
  if (text_.back() != ':') Separate();  // a list item
  sqs_json::AppendString(&text_, value);
}

void TextOutput::Bool(bool value) {
  if (text_.back() != ':') Separate();
  text_.append(value ? "true" : "false");
}

void TextOutput::Open(char c) {
  if (!text_.empty() && text_.back() != ':') Separate();  // a list item
  text_.push_back(c);
  ++depth_;
}

void TextOutput::Close(char c) {
  --depth_;
  // An empty list or map as an output member: left out (sqs_json::EncodeResult).
  if (depth_ == 1 && (text_.back() == '{' || text_.back() == '[')) {
    text_.resize(member_start_);
    return;
  }
  text_.push_back(c);
}

Json& TreeOutput::Place(Json value) {
  if (stack_.empty()) {
    root_ = std::move(value);
    return root_;
  }
  Json& top = *stack_.back();
  if (top.is_array()) {
    top.push_back(std::move(value));
    return top.back();
  }
  Json& slot = top[key_];
  slot = std::move(value);
  return slot;
}

}  // namespace lqsd
