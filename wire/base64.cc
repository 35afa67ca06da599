#include "wire/base64.h"

#include <cstddef>

#include <absl/strings/escaping.h>

namespace lqs::wire {
namespace {

bool IsAlnum(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Abseil here is built with its own string_view type.
absl::string_view View(std::string_view text) { return {text.data(), text.size()}; }

}  // namespace

std::string Base64Encode(std::string_view bytes) { return absl::Base64Escape(View(bytes)); }

std::optional<std::string> Base64Decode(std::string_view text) {
  size_t data_end = text.size();
  while (data_end > 0 && text[data_end - 1] == '=' && text.size() - data_end < 2) --data_end;
  if (data_end < text.size() && text.size() % 4 != 0) return std::nullopt;
  for (size_t i = 0; i < data_end; ++i) {
    const char c = text[i];
    if (!IsAlnum(c) && c != '+' && c != '/') return std::nullopt;
  }
  std::string out;
  if (!absl::Base64Unescape(View(text), &out)) return std::nullopt;
  return out;
}

std::optional<std::string> Base64DecodeLenient(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string standard(text);
  for (char& c : standard) {
    if (c == '-') {
      c = '+';
    } else if (c == '_') {
      c = '/';
    } else if (!IsAlnum(c) && c != '+' && c != '/') {
      return std::nullopt;
    }
  }
  std::string out;
  if (!absl::Base64Unescape(standard, &out)) return std::nullopt;
  return out;
}

}  // namespace lqs::wire
