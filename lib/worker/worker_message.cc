#include "lib/worker/worker_message.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace lqs::worker {

namespace {

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string KeyFor(std::string key) {
  if (key.size() <= kMaxIdempotencyKey) return key;
  char hash[24];
  std::snprintf(hash, sizeof hash, "#%016llx", static_cast<unsigned long long>(Fnv1a64(key)));
  key.resize(kMaxIdempotencyKey - 17);
  return key + hash;
}

// Decodes one UTF-8 character at s[i]; returns its length (0: invalid).
size_t DecodeUtf8(const std::string& s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t len;
  uint32_t v;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2, v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, v = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

bool XmlChar(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

bool StartsWithNoCase(const std::string& s, const std::string& prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

WorkerMessage ToWorkerMessage(const std::string& queue_name, const ReceivedMessage& r,
                              const std::string& idempotency_attribute) {
  WorkerMessage m;
  m.queue_name = queue_name;
  m.message_id = r.message_id;
  m.receipt_handle = r.receipt_handle;
  m.body = r.body;
  m.attributes = r.attributes;
  m.message_attributes = r.message_attributes;
  if (auto it = r.attributes.find("ApproximateReceiveCount"); it != r.attributes.end()) {
    try {
      m.receive_count = std::stoi(it->second);
    } catch (...) {
      m.receive_count = 1;
    }
  }
  if (auto it = r.attributes.find("MessageGroupId"); it != r.attributes.end()) {
    m.message_group_id = it->second;
  }
  std::string key;
  if (auto it = r.message_attributes.find(idempotency_attribute);
      it != r.message_attributes.end()) {
    key = it->second.IsBinary() ? it->second.binary_value : it->second.string_value;
  }
  if (key.empty()) {
    if (auto it = r.attributes.find("MessageDeduplicationId"); it != r.attributes.end()) {
      key = it->second;
    }
  }
  if (key.empty()) key = r.message_id;
  m.idempotency_key = KeyFor(std::move(key));
  return m;
}

std::string AttributeText(const std::string& text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    size_t len = DecodeUtf8(text, i, &cp);
    std::string_view piece;
    if (len == 0 || !XmlChar(cp)) {
      piece = "?";
      len = len == 0 ? 1 : len;
    } else {
      piece = std::string_view(text).substr(i, len);
    }
    if (out.size() + piece.size() > max_bytes) break;
    out.append(piece);
    i += len;
  }
  if (out.empty()) out = "(no error text)";
  return out;
}

std::string CheckAttributeName(const std::string& name) {
  if (name.empty() || name.size() > limits::kMaxAttributeNameLength) {
    return "must be 1 to " + std::to_string(limits::kMaxAttributeNameLength) + " characters long";
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return "may contain only letters, digits, '_', '-' and '.'";
    }
  }
  if (name.front() == '.' || name.back() == '.' || name.find("..") != std::string::npos) {
    return "may not start or end with '.' or contain '..'";
  }
  if (StartsWithNoCase(name, "aws.") || StartsWithNoCase(name, "amazon.")) {
    return "may not start with 'AWS.' or 'Amazon.'";
  }
  return "";
}

}  // namespace lqs::worker
