// SQS's queue-attribute rules: parsing, applying and rendering the settable
// attributes, queue names, dead-letter policies and tags (docs/sqs-reference.md:
// §4 queue attributes, §2.3 names, §4.5 CreateQueue, §8.1 and §8.3 redrive, §3.6 tags).
// The Policy document rules are in queue_policy.cc.

#include "lib/api/queue_config.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/api/config_text.h"

#include "lqs/attributes.h"
#include "lqs/limits.h"

namespace lqs::api {
namespace {

constexpr std::string_view kFifoSuffix = limits::kFifoQueueNameSuffix;

using limits::kMaxMaxReceiveCount;
using limits::kMaxQueueNameLength;
using limits::kMaxRedriveSourceQueueArns;
using limits::kMaxTagKeyLength;
using limits::kMaxTags;
using limits::kMaxTagValueLength;
using limits::kMinMaxReceiveCount;

// The members of SQS's QueueAttributeName enum that only GetQueueAttributes
// may name.
constexpr std::string_view kReadOnlyAttributes[] = {
    attr::kAll,
    attr::kApproximateNumberOfMessages,
    attr::kApproximateNumberOfMessagesNotVisible,
    attr::kApproximateNumberOfMessagesDelayed,
    attr::kCreatedTimestamp,
    attr::kLastModifiedTimestamp,
    attr::kQueueArn,
};

constexpr std::string_view kSettableAttributes[] = {
    attr::kDelaySeconds,
    attr::kMaximumMessageSize,
    attr::kMessageRetentionPeriod,
    attr::kReceiveMessageWaitTimeSeconds,
    attr::kVisibilityTimeout,
    attr::kPolicy,
    attr::kRedrivePolicy,
    attr::kRedriveAllowPolicy,
    attr::kKmsMasterKeyId,
    attr::kKmsDataKeyReusePeriodSeconds,
    attr::kSqsManagedSseEnabled,
    attr::kFifoQueue,
    attr::kContentBasedDeduplication,
    attr::kDeduplicationScope,
    attr::kFifoThroughputLimit,
};

// ---- Small helpers ------------------------------------------------------------

Status UnknownAttribute(std::string_view name) {
  return Status(ErrorCode::kInvalidAttributeName, Concat({"Unknown Attribute ", name, "."}));
}

// "Invalid value for the parameter <Name>." (SQS's text).
Status InvalidAttributeValue(std::string_view name) {
  return Status(ErrorCode::kInvalidAttributeValue,
                Concat({"Invalid value for the parameter ", name, "."}));
}

Status InvalidAttributeValue(std::string_view name, std::string_view reason) {
  return Status(ErrorCode::kInvalidAttributeValue,
                Concat({"Invalid value for the parameter ", name, ". Reason: ", reason}));
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool IsValidFifoQueueName(std::string_view name) {
  return EndsWith(name, kFifoSuffix) &&
         IsPlainName(name.substr(0, name.size() - kFifoSuffix.size()),
                     kMaxQueueNameLength - kFifoSuffix.size());
}

// arn:aws:sqs:<region>:<12-digit account>:<queue name>
bool IsSqsQueueArn(std::string_view arn) {
  constexpr std::string_view kPrefix = "arn:aws:sqs:";
  if (arn.substr(0, kPrefix.size()) != kPrefix) return false;
  std::string_view rest = arn.substr(kPrefix.size());
  const size_t region_end = rest.find(':');
  if (region_end == std::string_view::npos || region_end == 0) return false;
  for (char c : rest.substr(0, region_end)) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  rest = rest.substr(region_end + 1);
  const size_t account_end = rest.find(':');
  if (account_end != 12 || !IsDigits(rest.substr(0, account_end))) return false;
  const std::string_view name = rest.substr(account_end + 1);
  return IsPlainName(name, kMaxQueueNameLength) || IsValidFifoQueueName(name);
}

std::optional<bool> ParseBool(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (lower == "true") return true;
  if (lower == "false") return false;
  return std::nullopt;
}

// A plain decimal integer ("-5", "30"); nullopt for "", "abc", "1.5", " 1",
// "+1" and values beyond int.
std::optional<int> ParseInt(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

const char* BoolText(bool value) { return value ? "true" : "false"; }

// ---- Attribute parsers ------------------------------------------------------------

struct IntRange {
  std::string_view name;
  int low;
  int high;
};

constexpr IntRange kIntRanges[] = {
    {attr::kDelaySeconds, 0, limits::kMaxDelaySeconds},
    {attr::kMaximumMessageSize, limits::kMinMaximumMessageSize, limits::kMaxMessageSize},
    {attr::kMessageRetentionPeriod, limits::kMinRetentionSeconds, limits::kMaxRetentionSeconds},
    {attr::kReceiveMessageWaitTimeSeconds, 0, limits::kMaxWaitTimeSeconds},
    {attr::kVisibilityTimeout, 0, limits::kMaxVisibilityTimeoutSeconds},
    {attr::kKmsDataKeyReusePeriodSeconds, limits::kMinKmsDataKeyReusePeriodSeconds,
     limits::kMaxKmsDataKeyReusePeriodSeconds},
};

// The int field of `config` that the integer attribute `name` sets, if any
// (KmsDataKeyReusePeriodSeconds is optional and handled apart).
template <typename Config>  // QueueConfig or const QueueConfig
auto IntField(std::string_view name, Config* config) -> decltype(&config->delay_seconds) {
  if (name == attr::kDelaySeconds) return &config->delay_seconds;
  if (name == attr::kMaximumMessageSize) return &config->maximum_message_size;
  if (name == attr::kMessageRetentionPeriod) return &config->message_retention_period;
  if (name == attr::kReceiveMessageWaitTimeSeconds) {
    return &config->receive_message_wait_time_seconds;
  }
  if (name == attr::kVisibilityTimeout) return &config->visibility_timeout;
  return nullptr;
}

StatusOr<int> ParseIntAttribute(const IntRange& range, std::string_view value) {
  const std::optional<int> parsed = ParseInt(value);
  if (!parsed.has_value() || *parsed < range.low || *parsed > range.high) {
    return InvalidAttributeValue(range.name);
  }
  return *parsed;
}

StatusOr<bool> ParseBoolAttribute(std::string_view name, std::string_view value) {
  const std::optional<bool> parsed = ParseBool(value);
  if (!parsed.has_value()) return InvalidAttributeValue(name);
  return *parsed;
}

StatusOr<RedrivePolicy> ParseRedrivePolicy(const std::string& text) {
  const auto invalid = InvalidParameterValueOf(text, attr::kRedrivePolicy);
  const std::optional<Json> json = ParseObject(text);
  if (!json.has_value()) return invalid("Redrive policy is not a valid JSON map.");
  const auto arn = json->find("deadLetterTargetArn");
  if (arn == json->end()) {
    return invalid("Redrive policy does not contain mandatory attribute: deadLetterTargetArn.");
  }
  const auto count = json->find("maxReceiveCount");
  if (count == json->end()) {
    return invalid("Redrive policy does not contain mandatory attribute: maxReceiveCount.");
  }
  if (!arn->is_string() || !IsSqsQueueArn(arn->get_ref<const std::string&>())) {
    return invalid("Invalid value for deadLetterTargetArn.");
  }
  std::optional<int> max_receive_count;
  std::string count_text;
  if (count->is_string()) {
    count_text = count->get_ref<const std::string&>();
    if (IsDigits(count_text)) max_receive_count = ParseInt(count_text);
  } else {
    count_text = Dump(*count);
    if (count->is_number_integer()) max_receive_count = ParseInt(count_text);
  }
  if (!max_receive_count.has_value() || *max_receive_count < kMinMaxReceiveCount ||
      *max_receive_count > kMaxMaxReceiveCount) {
    return invalid(Concat({"Invalid value for maxReceiveCount: ", count_text,
                           ", valid values are from ", std::to_string(kMinMaxReceiveCount), " to ",
                           std::to_string(kMaxMaxReceiveCount), " both inclusive."}));
  }
  return RedrivePolicy{arn->get<std::string>(), *max_receive_count};
}

StatusOr<RedriveAllowPolicy> ParseRedriveAllowPolicy(const std::string& text) {
  const auto invalid = InvalidParameterValueOf(text, attr::kRedriveAllowPolicy);
  const std::optional<Json> json = ParseObject(text);
  if (!json.has_value()) return invalid("The redrive allow policy must be a JSON object.");
  const auto permission = json->find("redrivePermission");
  if (permission == json->end() || !permission->is_string()) {
    return invalid("The redrive allow policy must contain redrivePermission.");
  }
  RedriveAllowPolicy policy;
  policy.redrive_permission = permission->get<std::string>();
  if (policy.redrive_permission != "allowAll" && policy.redrive_permission != "denyAll" &&
      policy.redrive_permission != "byQueue") {
    return invalid("redrivePermission must be allowAll, denyAll or byQueue.");
  }
  const auto arns = json->find("sourceQueueArns");
  const bool has_arns = arns != json->end() && !(arns->is_array() && arns->empty());
  if (policy.redrive_permission != "byQueue") {
    if (has_arns) {
      return invalid("sourceQueueArns can be specified only when redrivePermission is byQueue.");
    }
    return policy;
  }
  if (!has_arns || !arns->is_array() || arns->size() > kMaxRedriveSourceQueueArns) {
    return invalid("With redrivePermission byQueue, sourceQueueArns must list 1 to 10 queue ARNs.");
  }
  for (const Json& arn : *arns) {
    if (!arn.is_string() || !IsSqsQueueArn(arn.get_ref<const std::string&>())) {
      return invalid("Every element of sourceQueueArns must be an SQS queue ARN.");
    }
    policy.source_queue_arns.push_back(arn.get<std::string>());
  }
  return policy;
}

Status ValidatePolicyDocument(const std::string& text) {
  if (!ParseObject(text).has_value()) return InvalidAttributeValue(attr::kPolicy);
  return Status::OK();
}

// ---- Applying one attribute -----------------------------------------------------------

bool IsSettable(std::string_view name) {
  for (std::string_view settable : kSettableAttributes) {
    if (name == settable) return true;
  }
  return false;
}

// The error for a FIFO-only attribute named on a standard queue.
Status FifoOnlyOnStandard(std::string_view name) {
  if (name == attr::kDeduplicationScope || name == attr::kFifoThroughputLimit) {
    return Status(ErrorCode::kInvalidAttributeName,
                  Concat({"You can specify the ", name, " only when FifoQueue is set to true."}));
  }
  return UnknownAttribute(name);
}

bool IsFifoOnly(std::string_view name) {
  return name == attr::kFifoQueue || name == attr::kContentBasedDeduplication ||
         name == attr::kDeduplicationScope || name == attr::kFifoThroughputLimit;
}

Status ApplyFifoQueue(const std::string& value, bool creating, const QueueConfig& config) {
  const std::optional<bool> fifo = ParseBool(value);
  if (!fifo.has_value()) return InvalidAttributeValue(attr::kFifoQueue);
  if (*fifo == config.fifo) return Status::OK();
  if (creating) return InvalidAttributeValue(attr::kFifoQueue);
  return InvalidAttributeValue(attr::kFifoQueue, "Modifying queue type is not supported.");
}

Status ApplyEnum(std::string_view name, const std::string& value,
                 std::initializer_list<std::string_view> allowed, std::string* field) {
  for (std::string_view option : allowed) {
    if (value == option) {
      *field = value;
      return Status::OK();
    }
  }
  return InvalidAttributeValue(name);
}

// An attribute held as an optional parsed value: "" clears it, anything else
// must parse.
template <typename T>
Status ApplyOptional(const std::string& value, StatusOr<T> (*parse)(const std::string&),
                     std::optional<T>* field) {
  if (value.empty()) {
    field->reset();
    return Status::OK();
  }
  StatusOr<T> parsed = parse(value);
  if (!parsed.ok()) return parsed.status();
  *field = std::move(*parsed);
  return Status::OK();
}

void RemoveKms(QueueConfig* config) {
  config->kms_master_key_id.clear();
  config->kms_data_key_reuse_period_seconds.reset();
}

// Validates one attribute and applies it to *config. Checks that involve
// several attributes are left to ApplyQueueAttributes.
Status ApplyOne(const std::string& name, const std::string& value, bool creating,
                QueueConfig* config) {
  if (!IsSettable(name)) return UnknownAttribute(name);
  if (IsFifoOnly(name) && !config->fifo) return FifoOnlyOnStandard(name);

  for (const IntRange& range : kIntRanges) {
    if (name != range.name) continue;
    StatusOr<int> parsed = ParseIntAttribute(range, value);
    if (!parsed.ok()) return parsed.status();
    if (int* field = IntField(name, config)) {
      *field = *parsed;
    } else {
      config->kms_data_key_reuse_period_seconds = *parsed;
    }
    return Status::OK();
  }
  if (name == attr::kFifoQueue) return ApplyFifoQueue(value, creating, *config);
  if (name == attr::kContentBasedDeduplication || name == attr::kSqsManagedSseEnabled) {
    StatusOr<bool> parsed = ParseBoolAttribute(name, value);
    if (!parsed.ok()) return parsed.status();
    if (name == attr::kContentBasedDeduplication) {
      config->content_based_deduplication = *parsed;
    } else {
      config->sqs_managed_sse_enabled = *parsed;
      // SSE-SQS and SSE-KMS are exclusive: turning SSE-SQS on drops the key.
      if (*parsed) RemoveKms(config);
    }
    return Status::OK();
  }
  if (name == attr::kDeduplicationScope) {
    return ApplyEnum(name, value, {"queue", "messageGroup"}, &config->deduplication_scope);
  }
  if (name == attr::kFifoThroughputLimit) {
    return ApplyEnum(name, value, {"perQueue", "perMessageGroupId"},
                     &config->fifo_throughput_limit);
  }
  if (name == attr::kKmsMasterKeyId) {
    if (value.empty()) {
      RemoveKms(config);
    } else {
      config->kms_master_key_id = value;
      config->sqs_managed_sse_enabled = false;
    }
    return Status::OK();
  }
  if (name == attr::kPolicy) {
    if (!value.empty()) {
      if (Status s = ValidatePolicyDocument(value); !s.ok()) return s;
    }
    config->policy = value;
    return Status::OK();
  }
  if (name == attr::kRedrivePolicy) {
    return ApplyOptional(value, ParseRedrivePolicy, &config->redrive_policy);
  }
  if (name == attr::kRedriveAllowPolicy) {
    return ApplyOptional(value, ParseRedriveAllowPolicy, &config->redrive_allow_policy);
  }
  return UnknownAttribute(name);  // not reached: every settable name is handled
}

// Checks between attributes of one request, on the already validated map.
Status CheckSseConflict(const AttributeMap& attributes) {
  const auto key = attributes.find(std::string(attr::kKmsMasterKeyId));
  const auto sse = attributes.find(std::string(attr::kSqsManagedSseEnabled));
  if (key == attributes.end() || key->second.empty() || sse == attributes.end() ||
      ParseBool(sse->second) != std::optional<bool>(true)) {
    return Status::OK();
  }
  return Status(ErrorCode::kInvalidAttributeName,
                "You can use one type of server-side encryption (SSE) at one time. You "
                "can either enable KMS SSE or SQS SSE.");
}

Status CheckThroughputScope(const QueueConfig& config) {
  if (!config.fifo || config.fifo_throughput_limit != "perMessageGroupId" ||
      config.deduplication_scope == "messageGroup") {
    return Status::OK();
  }
  return InvalidAttributeValue(attr::kFifoThroughputLimit,
                               "perMessageGroupId is allowed only when DeduplicationScope "
                               "is messageGroup.");
}

// The value of attribute `name` in `config`, normalised for comparison.
std::string NormalisedValue(std::string_view name, const QueueConfig& config) {
  if (const int* field = IntField(name, &config)) {
    return std::to_string(*field);
  }
  if (name == attr::kKmsDataKeyReusePeriodSeconds) {
    // Without a key the period is not an attribute of the queue: SQS does
    // not show it then, nor does RenderQueueConfig.
    if (config.kms_master_key_id.empty()) return std::string();
    return std::to_string(config.kms_data_key_reuse_period_seconds.value_or(
        limits::kDefaultKmsDataKeyReusePeriodSeconds));
  }
  if (name == attr::kFifoQueue) return BoolText(config.fifo);
  if (name == attr::kContentBasedDeduplication) {
    return BoolText(config.content_based_deduplication);
  }
  if (name == attr::kSqsManagedSseEnabled) return BoolText(config.sqs_managed_sse_enabled);
  if (name == attr::kDeduplicationScope) return config.deduplication_scope;
  if (name == attr::kFifoThroughputLimit) return config.fifo_throughput_limit;
  if (name == attr::kKmsMasterKeyId) return config.kms_master_key_id;
  if (name == attr::kPolicy) {
    if (config.policy.empty()) return std::string();
    const nlohmann::json json = nlohmann::json::parse(config.policy, nullptr, false);
    return json.is_discarded() ? config.policy : Dump(json);
  }
  if (name == attr::kRedrivePolicy) {
    return config.redrive_policy ? RedrivePolicyJson(*config.redrive_policy) : "";
  }
  if (name == attr::kRedriveAllowPolicy) {
    return config.redrive_allow_policy ? RedriveAllowPolicyJson(*config.redrive_allow_policy) : "";
  }
  return std::string();
}

// Code points in a UTF-8 string (continuation bytes are not counted).
size_t CodePointCount(std::string_view text) {
  size_t count = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++count;
  }
  return count;
}

}  // namespace

Status ValidateQueueName(std::string_view name, bool fifo) {
  if (fifo) {
    if (IsValidFifoQueueName(name)) return Status::OK();
    return Status(ErrorCode::kInvalidParameterValue,
                  Concat({"The name of a FIFO queue can only include alphanumeric characters, "
                          "hyphens, or underscores, must end with .fifo suffix and be 1 to ",
                          std::to_string(kMaxQueueNameLength), " in length"}));
  }
  if (IsPlainName(name, kMaxQueueNameLength)) return Status::OK();
  return Status(ErrorCode::kInvalidParameterValue,
                Concat({"Can only include alphanumeric characters, hyphens, or underscores. 1 to ",
                        std::to_string(kMaxQueueNameLength), " in length"}));
}

bool RequestsFifo(const AttributeMap& attributes) {
  const auto it = attributes.find(std::string(attr::kFifoQueue));
  return it != attributes.end() && ParseBool(it->second) == std::optional<bool>(true);
}

Status ApplyQueueAttributes(const AttributeMap& attributes, bool creating, QueueConfig* config) {
  QueueConfig next = *config;
  for (const auto& [name, value] : attributes) {
    if (Status s = ApplyOne(name, value, creating, &next); !s.ok()) return s;
  }
  if (Status s = CheckSseConflict(attributes); !s.ok()) return s;
  if (Status s = CheckThroughputScope(next); !s.ok()) return s;
  *config = std::move(next);
  return Status::OK();
}

AttributeMap RenderQueueConfig(const QueueConfig& config) {
  AttributeMap out;
  const auto set = [&out](std::string_view name, std::string value) {
    out.emplace(std::string(name), std::move(value));
  };
  set(attr::kDelaySeconds, std::to_string(config.delay_seconds));
  set(attr::kMaximumMessageSize, std::to_string(config.maximum_message_size));
  set(attr::kMessageRetentionPeriod, std::to_string(config.message_retention_period));
  set(attr::kReceiveMessageWaitTimeSeconds,
      std::to_string(config.receive_message_wait_time_seconds));
  set(attr::kVisibilityTimeout, std::to_string(config.visibility_timeout));
  set(attr::kSqsManagedSseEnabled, BoolText(config.sqs_managed_sse_enabled));
  if (!config.policy.empty()) set(attr::kPolicy, config.policy);
  if (config.redrive_policy) {
    set(attr::kRedrivePolicy, RedrivePolicyJson(*config.redrive_policy));
  }
  if (config.redrive_allow_policy) {
    set(attr::kRedriveAllowPolicy, RedriveAllowPolicyJson(*config.redrive_allow_policy));
  }
  if (!config.kms_master_key_id.empty()) {
    set(attr::kKmsMasterKeyId, config.kms_master_key_id);
    set(attr::kKmsDataKeyReusePeriodSeconds,
        std::to_string(config.kms_data_key_reuse_period_seconds.value_or(
            limits::kDefaultKmsDataKeyReusePeriodSeconds)));
  }
  if (config.fifo) {
    set(attr::kFifoQueue, "true");
    set(attr::kContentBasedDeduplication, BoolText(config.content_based_deduplication));
    set(attr::kDeduplicationScope, config.deduplication_scope);
    set(attr::kFifoThroughputLimit, config.fifo_throughput_limit);
  }
  return out;
}

std::string_view DeduplicationKeyScope(const QueueConfig& config, int64_t now_ms) {
  if (!config.deduplication_scope_before.empty() &&
      now_ms < config.deduplication_scope_changed_ms + kDeduplicationScopeChangeDelayMs) {
    return config.deduplication_scope_before;
  }
  return config.deduplication_scope;
}

void NoteDeduplicationScopeChange(const QueueConfig& current, int64_t now_ms, QueueConfig* next) {
  if (next->deduplication_scope == current.deduplication_scope) return;
  next->deduplication_scope_before = std::string(DeduplicationKeyScope(current, now_ms));
  next->deduplication_scope_changed_ms = now_ms;
}

std::optional<std::string> FirstDifferingAttribute(const AttributeMap& requested,
                                                   const QueueConfig& current) {
  for (const auto& [name, value] : requested) {
    QueueConfig candidate = current;
    if (!ApplyOne(name, value, /*creating=*/true, &candidate).ok() ||
        NormalisedValue(name, candidate) != NormalisedValue(name, current)) {
      return name;
    }
  }
  return std::nullopt;
}

Status ValidateAttributeNames(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    bool known = IsSettable(name);
    for (std::string_view read_only : kReadOnlyAttributes) known = known || name == read_only;
    if (!known) return UnknownAttribute(name);
  }
  return Status::OK();
}

std::string RedrivePolicyJson(const RedrivePolicy& policy) {
  Json json = Json::object();
  json["deadLetterTargetArn"] = policy.dead_letter_target_arn;
  json["maxReceiveCount"] = policy.max_receive_count;
  return Dump(json);
}

std::string RedriveAllowPolicyJson(const RedriveAllowPolicy& policy) {
  Json json = Json::object();
  json["redrivePermission"] = policy.redrive_permission;
  if (policy.redrive_permission == "byQueue") {
    Json arns = Json::array();
    for (const std::string& arn : policy.source_queue_arns) arns.push_back(arn);
    json["sourceQueueArns"] = std::move(arns);
  }
  return Dump(json);
}

Status ValidateTags(const TagMap& existing, const TagMap& added, const std::string& queue_name) {
  if (added.empty()) {
    return Status(ErrorCode::kMissingParameter, "The request must contain the parameter Tags.");
  }
  for (const auto& [key, value] : added) {
    const size_t key_length = CodePointCount(key);
    if (key_length < 1 || key_length > kMaxTagKeyLength) {
      return InvalidParameterValue(key, "TagKey",
                                   Concat({"Tag keys must be between 1 and ",
                                           std::to_string(kMaxTagKeyLength), " characters long."}));
    }
    if (CodePointCount(value) > kMaxTagValueLength) {
      return InvalidParameterValue(
          value, "TagValue",
          Concat({"Tag values must be at most ", std::to_string(kMaxTagValueLength),
                  " characters long."}));
    }
  }
  size_t total = existing.size();
  for (const auto& entry : added) {
    if (existing.find(entry.first) == existing.end()) ++total;
  }
  if (total > kMaxTags) {
    return Status(ErrorCode::kInvalidParameterValue,
                  Concat({"Too many tags added for queue ", queue_name, "."}));
  }
  return Status::OK();
}

}  // namespace lqs::api
