#include "server/plain_send_batch.h"

#include <utility>

#include "server/json_fast.h"

namespace lqsd::plain_send_batch {
namespace {

// A cursor over the body; every Read* returns false to decline.
class Reader {
 public:
  explicit Reader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  void SkipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool AtEnd() const { return p_ == end_; }

  // `c` after optional whitespace.
  bool Expect(char c) {
    SkipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  // Whether `c` follows (after optional whitespace); consumes it if so.
  bool Take(char c) {
    SkipSpace();
    if (p_ != end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  // A string of printable ASCII without escapes, as a view into the text.
  bool PlainString(std::string_view* out) {
    if (!Expect('"')) return false;
    const char* start = p_;
    p_ += json_fast::PlainAsciiLength(p_, end_);
    if (p_ == end_ || *p_ != '"') return false;  // an escape, a control or non-ASCII byte
    *out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  // A non-negative integer of 1 to 9 digits without a leading zero.
  bool SmallInt(int* out) {
    SkipSpace();
    const char* start = p_;
    int value = 0;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
      if (p_ - start < 9) value = value * 10 + (*p_ - '0');  // no overflow past 9 digits
      ++p_;
    }
    const size_t digits = static_cast<size_t>(p_ - start);
    if (digits == 0 || digits > 9 || (digits > 1 && *start == '0')) return false;
    // A fraction or an exponent would make it another number.
    if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    *out = value;
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

// Reads `{ "Key": value, ... }`, calling member(key) for each member with
// the reader positioned at its value; member returns false to decline.
// Declines a repeated key (up to 8 distinct keys are tracked, more than
// either object here may have).
template <typename Member>
bool ReadObject(Reader& r, Member&& member) {
  if (!r.Expect('{')) return false;
  if (r.Take('}')) return true;
  std::string_view seen[8];
  size_t count = 0;
  do {
    std::string_view key;
    if (!r.PlainString(&key) || !r.Expect(':')) return false;
    for (size_t i = 0; i < count; ++i) {
      if (seen[i] == key) return false;
    }
    if (count == 8) return false;
    seen[count++] = key;
    if (!member(key)) return false;
  } while (r.Take(','));
  return r.Expect('}');
}

bool ReadEntry(Reader& r, lqs::SendMessageBatchEntry* entry) {
  return ReadObject(r, [&](std::string_view key) {
    std::string_view text;
    if (key == "DelaySeconds") {
      int delay = 0;
      if (!r.SmallInt(&delay)) return false;
      entry->request.delay_seconds = delay;
      return true;
    }
    if (!r.PlainString(&text)) return false;
    if (key == "Id") {
      entry->id.assign(text);
    } else if (key == "MessageBody") {
      entry->request.body.assign(text);
    } else if (key == "MessageGroupId") {
      entry->request.message_group_id.emplace(text);
    } else if (key == "MessageDeduplicationId") {
      entry->request.message_deduplication_id.emplace(text);
    } else {
      return false;
    }
    return true;
  });
}

}  // namespace

std::optional<Decoded> Decode(std::string_view body) {
  Reader r(body);
  Decoded out;
  const bool ok = ReadObject(r, [&](std::string_view key) {
    if (key == "QueueUrl") {
      std::string_view url;
      if (!r.PlainString(&url)) return false;
      out.queue_url.emplace(url);
      return true;
    }
    if (key != "Entries" || !r.Expect('[')) return false;
    if (r.Take(']')) return true;
    out.entries.reserve(kMaxEntries);
    do {
      if (out.entries.size() == kMaxEntries) return false;
      if (!ReadEntry(r, &out.entries.emplace_back())) return false;
    } while (r.Take(','));
    return r.Expect(']');
  });
  if (!ok) return std::nullopt;
  r.SkipSpace();
  if (!r.AtEnd()) return std::nullopt;
  return out;
}

}  // namespace lqsd::plain_send_batch
