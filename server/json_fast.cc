// The fast JSON request reader (see json_fast.h).
//
// Each rule below mirrors nlohmann's lexer and DOM parser (3.11) for the
// documents accepted; anything else returns false at once, whatever
// nlohmann would make of it.

#include "server/json_fast.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace lqsd::json_fast {
namespace {

using Json = nlohmann::ordered_json;

// What a byte means inside a string literal.
enum ByteClass : uint8_t {
  kPlain,    // copied as is: 0x20..0x7f except '"' and '\'
  kQuote,    // the closing '"'
  kEscape,   // '\'
  kControl,  // 0x00..0x1f: invalid in a JSON string
  kHigh,     // 0x80..0xff: part of a UTF-8 sequence (validated)
};

constexpr std::array<uint8_t, 256> MakeByteClasses() {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    classes[c] = c < 0x20 ? kControl : c >= 0x80 ? kHigh : kPlain;
  }
  classes['"'] = kQuote;
  classes['\\'] = kEscape;
  return classes;
}

constexpr std::array<uint8_t, 256> kByteClass = MakeByteClasses();

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    const char bytes[] = {static_cast<char>(0xc0 | (cp >> 6)),
                          static_cast<char>(0x80 | (cp & 0x3f))};
    out->append(bytes, 2);
  } else if (cp < 0x10000) {
    const char bytes[] = {static_cast<char>(0xe0 | (cp >> 12)),
                          static_cast<char>(0x80 | ((cp >> 6) & 0x3f)),
                          static_cast<char>(0x80 | (cp & 0x3f))};
    out->append(bytes, 3);
  } else {
    const char bytes[] = {
        static_cast<char>(0xf0 | (cp >> 18)), static_cast<char>(0x80 | ((cp >> 12) & 0x3f)),
        static_cast<char>(0x80 | ((cp >> 6) & 0x3f)), static_cast<char>(0x80 | (cp & 0x3f))};
    out->append(bytes, 4);
  }
}

// Storage reused by every parse on a thread: the members (arrays: items) of
// the containers still open, innermost last, so that each container is
// allocated once at its final size.
struct Scratch {
  std::vector<std::pair<std::string, Json>> members;
  std::vector<Json> items;

  void Reset() {
    // Bounded: one huge document does not pin its size for the thread's life.
    constexpr size_t kKeep = 1024;
    if (members.capacity() > kKeep) {
      std::vector<std::pair<std::string, Json>>().swap(members);
    } else {
      members.clear();
    }
    if (items.capacity() > kKeep) {
      std::vector<Json>().swap(items);
    } else {
      items.clear();
    }
  }
};

class Reader {
 public:
  Reader(std::string_view text, Scratch* scratch)
      : p_(text.data()), end_(text.data() + text.size()), scratch_(*scratch) {}

  bool Document(Json* out) {
    SkipSpace();
    if (p_ == end_ || *p_ != '{') return false;  // also: a byte order mark
    Json value;
    if (!Object(&value, 1)) return false;
    SkipSpace();
    if (p_ != end_) return false;
    *out = std::move(value);
    return true;
  }

 private:
  // JSON's whitespace (nlohmann's too): space, tab, LF, CR.
  void SkipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  enum class Next { kMore, kClose, kBad };

  // After a member or an item of a container ending with `close`: kMore past
  // the ',' and the whitespace after it, kClose past `close`, kBad at anything
  // else.
  Next AfterElement(char close) {
    SkipSpace();
    if (p_ == end_) return Next::kBad;
    if (*p_ == close) {
      ++p_;
      return Next::kClose;
    }
    if (*p_ != ',') return Next::kBad;
    ++p_;
    SkipSpace();
    return Next::kMore;
  }

  // At the first byte of a value (not whitespace).
  bool Value(Json* out, int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return Object(out, depth + 1);
      case '[':
        return Array(out, depth + 1);
      case '"': {
        std::string text;
        if (!String(&text)) return false;
        *out = std::move(text);
        return true;
      }
      case 't':
        if (!Literal("true")) return false;
        *out = true;
        return true;
      case 'f':
        if (!Literal("false")) return false;
        *out = false;
        return true;
      case 'n':
        if (!Literal("null")) return false;
        *out = nullptr;
        return true;
      default:
        return Integer(out);
    }
  }

  // At '{'. `depth`: this object's.
  bool Object(Json* out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;
    const size_t first = scratch_.members.size();
    SkipSpace();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      *out = Json::object();
      return true;
    }
    for (;;) {
      if (p_ == end_ || *p_ != '"') return false;
      std::string key;
      if (!String(&key)) return false;
      const size_t count = scratch_.members.size() - first;
      if (count == kMaxMembers) return false;
      for (size_t i = first; i < scratch_.members.size(); ++i) {
        // A repeated key: nlohmann keeps the first position and the last
        // value; rare enough to leave to it.
        if (scratch_.members[i].first == key) return false;
      }
      SkipSpace();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      SkipSpace();
      Json value;
      if (!Value(&value, depth)) return false;
      scratch_.members.emplace_back(std::move(key), std::move(value));
      const Next next = AfterElement('}');
      if (next == Next::kBad) return false;
      if (next == Next::kClose) break;
    }
    Json object(Json::value_t::object);
    auto& members = object.get_ref<Json::object_t&>();
    members.reserve(scratch_.members.size() - first);
    for (size_t i = first; i < scratch_.members.size(); ++i) {
      members.emplace_back(std::move(scratch_.members[i].first),
                           std::move(scratch_.members[i].second));
    }
    scratch_.members.erase(scratch_.members.begin() + static_cast<std::ptrdiff_t>(first),
                           scratch_.members.end());
    *out = std::move(object);
    return true;
  }

  // At '['. `depth`: this array's.
  bool Array(Json* out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;
    const size_t first = scratch_.items.size();
    SkipSpace();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      *out = Json::array();
      return true;
    }
    for (;;) {
      Json value;
      if (!Value(&value, depth)) return false;
      scratch_.items.push_back(std::move(value));
      const Next next = AfterElement(']');
      if (next == Next::kBad) return false;
      if (next == Next::kClose) break;
    }
    Json array(Json::value_t::array);
    auto& items = array.get_ref<Json::array_t&>();
    items.reserve(scratch_.items.size() - first);
    for (size_t i = first; i < scratch_.items.size(); ++i) {
      items.push_back(std::move(scratch_.items[i]));
    }
    scratch_.items.erase(scratch_.items.begin() + static_cast<std::ptrdiff_t>(first),
                         scratch_.items.end());
    *out = std::move(array);
    return true;
  }

  // At '"': the decoded text of the string literal, into the empty *out.
  bool String(std::string* out) {
    ++p_;
    const char* run = p_;  // the bytes not yet copied to *out
    for (;;) {
      p_ += PlainAsciiLength(p_, end_);
      if (p_ == end_) return false;
      switch (kByteClass[static_cast<unsigned char>(*p_)]) {
        case kQuote:
          out->append(run, static_cast<size_t>(p_ - run));
          ++p_;
          return true;
        case kHigh: {
          const size_t n = Utf8SequenceLength(p_, end_);
          if (n == 0) return false;
          p_ += n;
          break;
        }
        case kEscape:
          out->append(run, static_cast<size_t>(p_ - run));
          if (!Escape(out)) return false;
          run = p_;
          break;
        default:
          return false;  // a control character
      }
    }
  }

  // At '\' inside a string: appends what the escape stands for.
  bool Escape(std::string* out) {
    ++p_;
    if (p_ == end_) return false;
    const char c = *p_++;
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out->push_back(c);
        return true;
      case 'b':
        out->push_back('\b');
        return true;
      case 'f':
        out->push_back('\f');
        return true;
      case 'n':
        out->push_back('\n');
        return true;
      case 'r':
        out->push_back('\r');
        return true;
      case 't':
        out->push_back('\t');
        return true;
      case 'u':
        break;
      default:
        return false;
    }
    int32_t cp = Hex4();
    if (cp < 0) return false;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      // A high surrogate: only as the first half of a pair.
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      const int32_t low = Hex4();
      if (low < 0xdc00 || low > 0xdfff) return false;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
      return false;  // a lone low surrogate
    }
    AppendUtf8(out, static_cast<uint32_t>(cp));
    return true;
  }

  // Four hex digits (either case) as a number; -1 when they are not.
  int32_t Hex4() {
    if (end_ - p_ < 4) return -1;
    const int32_t value = json_fast::Hex4(p_);
    p_ += 4;
    return value;
  }

  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // -?(0|[1-9][0-9]*) of at most 18 digits, not followed by a fraction, an
  // exponent or another digit. nlohmann: number_integer when negative ("-0"
  // included), number_unsigned otherwise.
  bool Integer(Json* out) {
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    const char* digits = p_;
    uint64_t value = 0;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
        if (p_ - digits == 18) return false;
        value = value * 10 + static_cast<uint64_t>(*p_ - '0');
        ++p_;
      }
    }
    if (p_ != end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E')) {
      return false;
    }
    if (negative) {
      *out = -static_cast<Json::number_integer_t>(value);
    } else {
      *out = static_cast<Json::number_unsigned_t>(value);
    }
    return true;
  }

  const char* p_;
  const char* const end_;
  Scratch& scratch_;
};

}  // namespace

size_t Utf8SequenceLength(const char* p, const char* end) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(p[i]); };
  const auto in = [&](size_t i, unsigned lo, unsigned hi) {
    return p + i < end && byte(i) >= lo && byte(i) <= hi;
  };
  const unsigned lead = byte(0);
  if (lead >= 0xc2 && lead <= 0xdf) return in(1, 0x80, 0xbf) ? 2 : 0;
  if (lead == 0xe0) return in(1, 0xa0, 0xbf) && in(2, 0x80, 0xbf) ? 3 : 0;
  if ((lead >= 0xe1 && lead <= 0xec) || lead == 0xee || lead == 0xef) {
    return in(1, 0x80, 0xbf) && in(2, 0x80, 0xbf) ? 3 : 0;
  }
  if (lead == 0xed) return in(1, 0x80, 0x9f) && in(2, 0x80, 0xbf) ? 3 : 0;
  if (lead == 0xf0) return in(1, 0x90, 0xbf) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3) {
    return in(1, 0x80, 0xbf) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
  }
  if (lead == 0xf4) return in(1, 0x80, 0x8f) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
  return 0;
}

bool ParseObject(std::string_view text, nlohmann::ordered_json* out) {
  thread_local Scratch scratch;
  scratch.Reset();  // after a declined parse (or bad_alloc) it holds leftovers
  const bool accepted = Reader(text, &scratch).Document(out);
  scratch.Reset();
  return accepted;
}

}  // namespace lqsd::json_fast
