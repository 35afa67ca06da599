// Text codecs for lqsd (see text_util.h).

#include "server/text_util.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <random>

namespace lqsd {
namespace {

int HexValue(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Decodes one UTF-8 sequence at text[i]; returns its length and the code
// point, or 0 when malformed (overlong, surrogate, out of range, truncated).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t* cp) {
  const auto c0 = static_cast<unsigned char>(text[i]);
  if (c0 < 0x80) {
    *cp = c0;
    return 1;
  }
  size_t len;
  uint32_t value;
  uint32_t min;
  if ((c0 & 0xE0) == 0xC0) {
    len = 2, value = c0 & 0x1F, min = 0x80;
  } else if ((c0 & 0xF0) == 0xE0) {
    len = 3, value = c0 & 0x0F, min = 0x800;
  } else if ((c0 & 0xF8) == 0xF0) {
    len = 4, value = c0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    value = (value << 6) | (c & 0x3F);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  *cp = value;
  return len;
}

bool IsXmlChar(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

}  // namespace

std::string PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    // Copy the run up to the next character that may decode differently.
    size_t j = i;
    while (j < text.size() && text[j] != '%' && !(plus_is_space && text[j] == '+')) ++j;
    out.append(text.data() + i, j - i);
    if (j == text.size()) break;
    i = j;
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (i + 2 < text.size() && HexValue(static_cast<unsigned char>(text[i + 1])) >= 0 &&
               HexValue(static_cast<unsigned char>(text[i + 2])) >= 0) {
      out += static_cast<char>(HexValue(static_cast<unsigned char>(text[i + 1])) * 16 +
                               HexValue(static_cast<unsigned char>(text[i + 2])));
      i += 2;
    } else {
      out += c;
    }
    ++i;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ParseFormPairs(std::string_view text,
                                                                bool plus_is_space) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t amp = text.find('&', pos);
    if (amp == std::string_view::npos) amp = text.size();
    const std::string_view piece = text.substr(pos, amp - pos);
    if (!piece.empty()) {
      const size_t eq = piece.find('=');
      if (eq == std::string_view::npos) {
        out.emplace_back(PercentDecode(piece, plus_is_space), std::string());
      } else {
        out.emplace_back(PercentDecode(piece.substr(0, eq), plus_is_space),
                         PercentDecode(piece.substr(eq + 1), plus_is_space));
      }
    }
    pos = amp + 1;
  }
  return out;
}

void AppendXmlEscaped(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\r':
        out += "&#xD;";
        ++i;
        continue;
      default:
        break;
    }
    uint32_t cp = 0;
    const size_t len = DecodeUtf8(text, i, &cp);
    if (len == 0) {
      out += kReplacement;
      ++i;
    } else if (!IsXmlChar(cp)) {
      out += kReplacement;
      i += len;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
  }
}

std::string EscapeChars(std::string_view text, std::span<const CharEscape> escapes) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto e =
        std::find_if(escapes.begin(), escapes.end(), [c](const CharEscape& x) { return x.c == c; });
    if (e == escapes.end()) {
      out += c;
    } else {
      out += e->replacement;
    }
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  AppendXmlEscaped(out, text);
  return out;
}

std::string SanitizeUtf8(std::string_view text, std::string_view replacement) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    uint32_t cp = 0;
    const size_t len = DecodeUtf8(text, i, &cp);
    if (len == 0) {
      out += replacement;
      ++i;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
  }
  return out;
}

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = rng();
  const uint64_t lo = rng();
  unsigned char b[16];
  for (int k = 0; k < 8; ++k) {
    b[k] = static_cast<unsigned char>(hi >> (56 - 8 * k));
    b[8 + k] = static_cast<unsigned char>(lo >> (56 - 8 * k));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  char text[36];
  size_t n = 0;
  for (int k = 0; k < 16; ++k) {
    if (k == 4 || k == 6 || k == 8 || k == 10) text[n++] = '-';
    text[n++] = kHex[b[k] >> 4];
    text[n++] = kHex[b[k] & 15];
  }
  return std::string(text, sizeof(text));
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return std::string_view();
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool StartsWithLower(std::string_view s, std::string_view lower_prefix) {
  if (s.size() < lower_prefix.size()) return false;
  for (size_t i = 0; i < lower_prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_prefix[i]) return false;
  }
  return true;
}

size_t Utf8SequenceLength(const char* p, const char* end) {
  uint32_t cp = 0;
  return DecodeUtf8(std::string_view(p, static_cast<size_t>(end - p)), 0, &cp);
}

std::optional<long long> ParseInt64(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string_view digits = text;
  if (digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  long long value = 0;
  const char* begin = digits.data();
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace lqsd
