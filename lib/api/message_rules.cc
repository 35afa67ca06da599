// SQS's rules for message parameters, digests and batches (docs/sqs-reference.md:
// §6.3 SendMessage, §6.5 ReceiveMessage, §3.3 and §5.2 attributes, §3.2 batches, §5.5 MD5).

#include "lib/api/message_rules.h"

#include <array>
#include <clocale>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cwctype>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <locale.h>
#include <wctype.h>

#include "lqs/limits.h"

namespace lqs::api {
namespace {

using limits::kMaxAttributeDataTypeLength;
using limits::kMaxAttributeNameLength;
using limits::kMaxBatchEntryIdLength;
using limits::kMaxDelaySeconds;
using limits::kMaxGroupOrDedupIdLength;
using limits::kMaxMessageAttributes;
using limits::kMaxReceiveMessages;
using limits::kMaxVisibilityTimeoutSeconds;
using limits::kMaxWaitTimeSeconds;

// Number attribute limits (docs/sqs-reference.md §3.3).
constexpr int kMaxNumberSignificantDigits = 38;
constexpr int kMinNumberExponent = -128;
constexpr int kMaxNumberExponent = 126;

constexpr std::string_view kInvalidCharactersText =
    "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | "
    "#x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF";

Status InvalidParameter(std::string message) {
  return Status(ErrorCode::kInvalidParameterValue, std::move(message));
}

// "Value <v> for parameter <name> is invalid. Reason: <reason>"
Status InvalidValue(std::string_view value, std::string_view name, std::string_view reason) {
  std::string message = "Value ";
  message.append(value);
  message.append(" for parameter ");
  message.append(name);
  message.append(" is invalid. Reason: ");
  message.append(reason);
  return InvalidParameter(std::move(message));
}

void AppendLengthPrefixed(std::string_view bytes, std::string* out) {
  const auto length = static_cast<uint32_t>(bytes.size());
  out->push_back(static_cast<char>((length >> 24) & 0xff));
  out->push_back(static_cast<char>((length >> 16) & 0xff));
  out->push_back(static_cast<char>((length >> 8) & 0xff));
  out->push_back(static_cast<char>(length & 0xff));
  out->append(bytes);
}

// Decodes the code point starting at text[*pos] and advances *pos. nullopt
// on malformed UTF-8 (truncated, bad continuation, overlong, surrogate,
// beyond U+10FFFF).
std::optional<uint32_t> DecodeUtf8(std::string_view text, size_t* pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(*pos);
  if (lead < 0x80) {
    ++*pos;
    return lead;
  }
  size_t length = 0;
  uint32_t code_point = 0;
  uint32_t min_value = 0;
  if ((lead & 0xe0) == 0xc0) {
    length = 2;
    code_point = lead & 0x1f;
    min_value = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
    code_point = lead & 0x0f;
    min_value = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
    code_point = lead & 0x07;
    min_value = 0x10000;
  } else {
    return std::nullopt;
  }
  if (text.size() - *pos < length) return std::nullopt;
  for (size_t i = 1; i < length; ++i) {
    const unsigned char continuation = byte(*pos + i);
    if ((continuation & 0xc0) != 0x80) return std::nullopt;
    code_point = (code_point << 6) | (continuation & 0x3f);
  }
  if (code_point < min_value || code_point > 0x10ffff) return std::nullopt;
  if (code_point >= 0xd800 && code_point <= 0xdfff) return std::nullopt;
  *pos += length;
  return code_point;
}

// XML 1.0 Char production.
bool IsXmlChar(uint32_t c) {
  return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
         (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

bool IsAsciiAlnum(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char a = text[i];
    char b = prefix[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

// Whether `value` is a number SQS accepts: [+-]digits[.digits][(e|E)[+-]digits]
// with at least one digit in the mantissa, at most 38 significant digits and
// a magnitude between 10^-128 and 10^126.
bool IsValidNumberValue(std::string_view value) {
  size_t i = 0;
  if (i < value.size() && (value[i] == '+' || value[i] == '-')) ++i;
  std::string digits;  // mantissa digits without the decimal point
  int point_position = -1;
  for (; i < value.size(); ++i) {
    if (IsAsciiDigit(value[i])) {
      digits.push_back(value[i]);
    } else if (value[i] == '.' && point_position < 0) {
      point_position = static_cast<int>(digits.size());
    } else {
      break;
    }
  }
  if (digits.empty()) return false;
  if (point_position < 0) point_position = static_cast<int>(digits.size());
  int64_t exponent = 0;
  if (i < value.size() && (value[i] == 'e' || value[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < value.size() && (value[i] == '+' || value[i] == '-')) {
      negative = value[i] == '-';
      ++i;
    }
    if (i == value.size()) return false;
    for (; i < value.size() && IsAsciiDigit(value[i]); ++i) {
      exponent = exponent * 10 + (value[i] - '0');
      if (exponent > 100000) return false;
    }
    if (negative) exponent = -exponent;
  }
  if (i != value.size()) return false;

  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return true;  // zero
  const size_t last = digits.find_last_not_of('0');
  if (static_cast<int>(last - first + 1) > kMaxNumberSignificantDigits) return false;
  // The value is d.ddd x 10^magnitude with d the first significant digit.
  const int64_t magnitude =
      static_cast<int64_t>(point_position) - static_cast<int64_t>(first) - 1 + exponent;
  return magnitude >= kMinNumberExponent && magnitude <= kMaxNumberExponent;
}

// A letter or digit of any script, by the Unicode tables of the C library's
// UTF-8 locale (C.UTF-8 ships with glibc). Without that locale, the letters
// of Latin-1 and Latin Extended-A/B stand in for them.
bool IsUnicodeAlnum(uint32_t code_point) {
  static const locale_t utf8 = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (l == static_cast<locale_t>(nullptr)) {
      l = newlocale(LC_CTYPE_MASK, "C.utf8", static_cast<locale_t>(nullptr));
    }
    return l;
  }();
  if (utf8 != static_cast<locale_t>(nullptr)) {
    return iswalnum_l(static_cast<wint_t>(code_point), utf8) != 0;
  }
  if (code_point == 0xaa || code_point == 0xb5 || code_point == 0xba) return true;
  return (code_point >= 0xc0 && code_point <= 0x24f && code_point != 0xd7 && code_point != 0xf7);
}

// Letters and digits of any script (AWS accepts "attr.1øßä" and refuses
// "§"), hyphens, underscores and periods.
bool IsValidAttributeNameCharacter(uint32_t code_point) {
  if (code_point < 0x80) {
    const char c = static_cast<char>(code_point);
    return IsAsciiAlnum(c) || c == '_' || c == '-' || c == '.';
  }
  return IsUnicodeAlnum(code_point);
}

std::string UserAttributeText(std::string_view name, std::string_view rest) {
  std::string message = "Message (user) attribute '";
  message.append(name);
  message.append("' ");
  message.append(rest);
  return message;
}

Status ValidateAttributeName(std::string_view name) {
  constexpr std::string_view kParameter = "MessageAttributeName";
  size_t characters = 0;
  for (size_t pos = 0; pos < name.size(); ++characters) {
    const std::optional<uint32_t> code_point = DecodeUtf8(name, &pos);
    if (!code_point || !IsValidAttributeNameCharacter(*code_point)) {
      return InvalidValue(name, kParameter,
                          "Message attribute names can only include alphanumeric "
                          "characters, hyphens, underscores and periods.");
    }
  }
  if (characters == 0 || characters > kMaxAttributeNameLength) {
    return InvalidValue(name, kParameter,
                        "Message attribute names must be 1 to " +
                            std::to_string(kMaxAttributeNameLength) + " characters long.");
  }
  if (StartsWithIgnoringCase(name, "AWS.") || StartsWithIgnoringCase(name, "Amazon.")) {
    return InvalidValue(name, kParameter,
                        "Message attribute names must not start with the reserved "
                        "prefixes AWS. or Amazon. (in any casing).");
  }
  if (name.front() == '.' || name.back() == '.' || name.find("..") != std::string_view::npos) {
    return InvalidValue(name, kParameter,
                        "Message attribute names must not start or end with a period "
                        "and must not contain two successive periods.");
  }
  return Status::OK();
}

// String, Number or Binary, optionally followed by "." and a custom label.
bool IsValidDataType(std::string_view data_type) {
  for (std::string_view base : {"String", "Number", "Binary"}) {
    if (data_type == base) return true;
    if (data_type.size() > base.size() + 1 && data_type.substr(0, base.size()) == base &&
        data_type[base.size()] == '.') {
      return true;
    }
  }
  return false;
}

Status ValidateDataType(std::string_view name, std::string_view data_type) {
  if (data_type.empty()) {
    std::string message = "The message attribute '";
    message.append(name);
    message.append("' must contain non-empty message attribute type.");
    return InvalidParameter(std::move(message));
  }
  if (data_type.size() > kMaxAttributeDataTypeLength) {
    return InvalidValue(data_type, "DataType",
                        "Message attribute data types must be at most " +
                            std::to_string(kMaxAttributeDataTypeLength) + " characters long.");
  }
  if (!IsValidDataType(data_type)) {
    std::string message = "The type of message (user) attribute '";
    message.append(name);
    message.append(
        "' is invalid. You must use only the following supported type prefixes: "
        "Binary, Number, String.");
    return InvalidParameter(std::move(message));
  }
  return Status::OK();
}

Status ValidateUserAttribute(const std::string& name, const MessageAttributeValue& value) {
  if (Status s = ValidateAttributeName(name); !s.ok()) return s;
  if (Status s = ValidateDataType(name, value.data_type); !s.ok()) return s;
  if (value.IsBinary()) {
    if (value.binary_value.empty()) {
      return InvalidParameter(
          UserAttributeText(name, "must contain a non-empty value of type 'Binary'."));
    }
    if (!value.string_value.empty()) {
      return InvalidParameter(
          UserAttributeText(name, "has a Binary data type and must not carry a StringValue."));
    }
    return Status::OK();
  }
  if (value.string_value.empty()) {
    return InvalidParameter(
        UserAttributeText(name, "must contain a non-empty value of type 'String'."));
  }
  if (!value.binary_value.empty()) {
    return InvalidParameter(UserAttributeText(
        name, "has a String or Number data type and must not carry a BinaryValue."));
  }
  if (!IsValidMessageText(value.string_value)) {
    std::string reason = "contains invalid characters. ";
    reason.append(kInvalidCharactersText);
    return InvalidParameter(UserAttributeText(name, reason));
  }
  if (value.data_type.rfind("Number", 0) == 0 && !IsValidNumberValue(value.string_value)) {
    std::string message = "Can't cast the value of message (user) attribute '";
    message.append(name);
    message.append("' to a number.");
    return InvalidParameter(std::move(message));
  }
  return Status::OK();
}

Status ValidateUserAttributes(const MessageAttributeMap& attributes) {
  if (attributes.size() > static_cast<size_t>(kMaxMessageAttributes)) {
    return InvalidParameter("Number of message attributes [" + std::to_string(attributes.size()) +
                            "] exceeds the allowed maximum [" +
                            std::to_string(kMaxMessageAttributes) + "].");
  }
  for (const auto& [name, value] : attributes) {
    if (Status s = ValidateUserAttribute(name, value); !s.ok()) return s;
  }
  return Status::OK();
}

Status ValidateSystemAttributes(const MessageAttributeMap& attributes) {
  constexpr std::string_view kTraceHeader = "AWSTraceHeader";
  for (const auto& [name, value] : attributes) {
    if (name != kTraceHeader) {
      return InvalidValue(name, "MessageSystemAttributes",
                          "The only supported message system attribute is "
                          "AWSTraceHeader.");
    }
    if (value.data_type != "String") {
      return InvalidValue(value.data_type, "MessageSystemAttributes.AWSTraceHeader.DataType",
                          "The data type of AWSTraceHeader must be String.");
    }
    if (value.string_value.empty()) {
      return InvalidParameter(
          "Message (system) attribute 'AWSTraceHeader' must contain a non-empty value "
          "of type 'String'.");
    }
    if (!IsValidMessageText(value.string_value)) {
      std::string message =
          "Message (system) attribute 'AWSTraceHeader' contains invalid characters. ";
      message.append(kInvalidCharactersText);
      return InvalidParameter(std::move(message));
    }
  }
  return Status::OK();
}

Status ValidateIdSyntax(std::string_view id, std::string_view parameter) {
  if (IsValidGroupOrDedupId(id)) return Status::OK();
  std::string reason(parameter);
  reason.append(" can only include alphanumeric and punctuation characters. 1 to ");
  reason.append(std::to_string(kMaxGroupOrDedupIdLength));
  reason.append(" in length.");
  return InvalidValue(id, parameter, reason);
}

Status ValidateDelay(const SendMessageRequest& request, const QueueConfig& queue) {
  if (!request.delay_seconds.has_value()) return Status::OK();
  const int delay = *request.delay_seconds;
  if (delay < 0 || delay > kMaxDelaySeconds) {
    return InvalidValue(
        std::to_string(delay), "DelaySeconds",
        "DelaySeconds must be >= 0 and <= " + std::to_string(kMaxDelaySeconds) + ".");
  }
  if (queue.fifo && delay != 0) {
    return InvalidValue(std::to_string(delay), "DelaySeconds",
                        "The request include parameter that is not valid for this "
                        "queue type.");
  }
  return Status::OK();
}

std::string RangeReason(int64_t low, int64_t high) {
  return "Must be >= " + std::to_string(low) + " and <= " + std::to_string(high) + ", if provided.";
}

}  // namespace

Status ValidateMessageAttribute(const std::string& name, const MessageAttributeValue& value) {
  return ValidateUserAttribute(name, value);
}

std::string Md5OfMessageAttributes(const MessageAttributeMap& attributes) {
  if (attributes.empty()) return std::string();
  std::string stream;
  for (const auto& [name, value] : attributes) {  // std::map: name order
    AppendLengthPrefixed(name, &stream);
    AppendLengthPrefixed(value.data_type, &stream);
    if (value.IsBinary()) {
      stream.push_back(static_cast<char>(2));
      AppendLengthPrefixed(value.binary_value, &stream);
    } else {
      stream.push_back(static_cast<char>(1));
      AppendLengthPrefixed(value.string_value, &stream);
    }
  }
  return Md5Hex(stream);
}

int64_t MessageSize(const SendMessageRequest& request) {
  auto size = static_cast<int64_t>(request.body.size());
  for (const auto& [name, value] : request.message_attributes) {
    size += static_cast<int64_t>(name.size() + value.data_type.size());
    size += static_cast<int64_t>(value.IsBinary() ? value.binary_value.size()
                                                  : value.string_value.size());
  }
  return size;
}

namespace {

// True when all eight bytes of `word` are 0x20-0x7F: no byte has its top bit
// set, and none is below 0x20 (subtracting 0x20 from each byte borrows, and
// sets the top bit, exactly at the lowest byte that is below it).
bool AllPrintableAscii(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  return ((word | (word - kOnes * 0x20)) & kHighBits) == 0;
}

}  // namespace

bool IsValidMessageText(std::string_view text) {
  size_t pos = 0;
  // Printable ASCII eight bytes at a time; anything else (tabs, line breaks,
  // multi-byte characters) is checked byte by byte below.
  while (text.size() - pos >= 8) {
    uint64_t word = 0;
    std::memcpy(&word, text.data() + pos, sizeof(word));
    if (!AllPrintableAscii(word)) break;
    pos += 8;
  }
  while (pos < text.size()) {
    // ASCII, the usual case, byte by byte: #x9, #xA, #xD and #x20-#x7F.
    const auto b = static_cast<unsigned char>(text[pos]);
    if ((b >= 0x20 && b < 0x80) || b == 0x9 || b == 0xA || b == 0xD) {
      ++pos;
      continue;
    }
    const std::optional<uint32_t> code_point = DecodeUtf8(text, &pos);
    if (!code_point.has_value() || !IsXmlChar(*code_point)) return false;
  }
  return true;
}

Status ValidateFifoPresence(const SendMessageRequest& request, const QueueConfig& queue,
                            bool in_batch) {
  if (!queue.fifo) return Status::OK();
  if (!request.message_group_id.has_value()) {
    constexpr std::string_view kText = "The request must contain the parameter MessageGroupId.";
    return Status(in_batch ? ErrorCode::kInvalidParameterValue : ErrorCode::kMissingParameter,
                  std::string(kText));
  }
  if (!request.message_deduplication_id.has_value() && !queue.content_based_deduplication) {
    return InvalidParameter(
        "The queue should either have ContentBasedDeduplication enabled or "
        "MessageDeduplicationId provided explicitly");
  }
  return Status::OK();
}

Status ValidateBatchSize(int64_t total_bytes) {
  if (total_bytes <= limits::kMaxBatchBytes) return Status::OK();
  return Status(ErrorCode::kBatchRequestTooLong,
                "Batch requests cannot be longer than " + std::to_string(limits::kMaxBatchBytes) +
                    " bytes. You have sent " + std::to_string(total_bytes) + " bytes.");
}

Status ValidateSendMessage(const SendMessageRequest& request, const QueueConfig& queue,
                           bool in_batch) {
  if (Status s = ValidateFifoPresence(request, queue, in_batch); !s.ok()) return s;
  if (request.message_group_id.has_value()) {
    if (Status s = ValidateIdSyntax(*request.message_group_id, "MessageGroupId"); !s.ok()) {
      return s;
    }
  }
  if (request.message_deduplication_id.has_value()) {
    const std::string& dedup_id = *request.message_deduplication_id;
    if (Status s = ValidateIdSyntax(dedup_id, "MessageDeduplicationId"); !s.ok()) return s;
    if (!queue.fifo) {
      return InvalidValue(dedup_id, "MessageDeduplicationId",
                          "The request includes a parameter that is not valid for this "
                          "queue type.");
    }
  }
  if (request.body.empty()) {
    return Status(ErrorCode::kMissingParameter,
                  "The request must contain the parameter MessageBody.");
  }
  if (!IsValidMessageText(request.body)) {
    return Status(ErrorCode::kInvalidMessageContents, std::string(kInvalidCharactersText));
  }
  if (Status s = ValidateDelay(request, queue); !s.ok()) return s;
  if (Status s = ValidateUserAttributes(request.message_attributes); !s.ok()) return s;
  if (Status s = ValidateSystemAttributes(request.message_system_attributes); !s.ok()) {
    return s;
  }
  if (MessageSize(request) > queue.maximum_message_size) {
    std::string message = in_batch ? "One or more parameters cannot be validated. "
                                   : "One or more parameters are invalid. ";
    message.append("Reason: Message must be shorter than ");
    message.append(std::to_string(queue.maximum_message_size));
    message.append(" bytes.");
    return InvalidParameter(std::move(message));
  }
  return Status::OK();
}

bool IsValidBatchEntryId(std::string_view id) {
  if (id.empty() || id.size() > kMaxBatchEntryIdLength) return false;
  for (char c : id) {
    if (!IsAsciiAlnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

Status ValidateBatchIds(const std::vector<std::string>& ids, std::string_view entry_name) {
  if (ids.empty()) {
    std::string message = "There should be at least one ";
    message.append(entry_name);
    message.append(" in the request.");
    return Status(ErrorCode::kEmptyBatchRequest, std::move(message));
  }
  if (ids.size() > static_cast<size_t>(limits::kMaxBatchEntries)) {
    return Status(ErrorCode::kTooManyEntriesInBatchRequest,
                  "Maximum number of entries per request are " +
                      std::to_string(limits::kMaxBatchEntries) + ". You have sent " +
                      std::to_string(ids.size()) + ".");
  }
  for (const std::string& id : ids) {
    if (!IsValidBatchEntryId(id)) {
      return Status(ErrorCode::kInvalidBatchEntryId,
                    "A batch entry id can only contain alphanumeric characters, "
                    "hyphens and underscores. It can be at most " +
                        std::to_string(kMaxBatchEntryIdLength) + " letters long.");
    }
  }
  std::set<std::string_view> seen;
  for (const std::string& id : ids) {
    if (!seen.insert(id).second) {
      return Status(ErrorCode::kBatchEntryIdsNotDistinct, "Id " + id + " repeated.");
    }
  }
  return Status::OK();
}

Status ValidateReceiveMessage(const ReceiveMessageRequest& request) {
  if (request.max_number_of_messages < 1 || request.max_number_of_messages > kMaxReceiveMessages) {
    return InvalidValue(
        std::to_string(request.max_number_of_messages), "MaxNumberOfMessages",
        "Must be between 1 and " + std::to_string(kMaxReceiveMessages) + ", if provided.");
  }
  if (request.visibility_timeout.has_value() &&
      (*request.visibility_timeout < 0 ||
       *request.visibility_timeout > kMaxVisibilityTimeoutSeconds)) {
    return InvalidValue(std::to_string(*request.visibility_timeout), "VisibilityTimeout",
                        RangeReason(0, kMaxVisibilityTimeoutSeconds));
  }
  if (request.wait_time_seconds.has_value() &&
      (*request.wait_time_seconds < 0 || *request.wait_time_seconds > kMaxWaitTimeSeconds)) {
    return InvalidValue(std::to_string(*request.wait_time_seconds), "WaitTimeSeconds",
                        RangeReason(0, kMaxWaitTimeSeconds));
  }
  if (request.receive_request_attempt_id.has_value()) {
    return ValidateIdSyntax(*request.receive_request_attempt_id, "ReceiveRequestAttemptId");
  }
  return Status::OK();
}

Status ValidateVisibilityTimeout(int64_t seconds) {
  if (seconds >= 0 && seconds <= kMaxVisibilityTimeoutSeconds) return Status::OK();
  return InvalidValue(std::to_string(seconds), "VisibilityTimeout",
                      "VisibilityTimeout must be >= 0 and <= " +
                          std::to_string(kMaxVisibilityTimeoutSeconds) + ".");
}

bool MessageAttributeSelected(std::string_view name, const std::vector<std::string>& filters) {
  for (const std::string& filter : filters) {
    if (filter == "All" || filter == ".*" || filter == "*") return true;
    if (filter == name) return true;
    const std::string_view view(filter);
    if (view.size() > 2 && view.substr(view.size() - 2) == ".*") {
      const std::string_view prefix = view.substr(0, view.size() - 2);
      if (name.substr(0, prefix.size()) == prefix) return true;
    }
  }
  return false;
}

bool SystemAttributeSelected(std::string_view name, const std::vector<std::string>& filters) {
  for (const std::string& filter : filters) {
    if (filter == "All" || filter == name) return true;
  }
  return false;
}

bool IsValidGroupOrDedupId(std::string_view id) {
  if (id.empty() || id.size() > kMaxGroupOrDedupIdLength) return false;
  for (char c : id) {
    // Alphanumerics and ASCII punctuation: every printable ASCII but space.
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace lqs::api
