// SQS's queue-attribute rules (sqs-api.md §2, §3, §5.1, §5.5, §5.6, §5.15,
// §5.18, §5.19, §7.1, §7.3, §8.14, §9.3).

#include "lib/api/queue_config.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "lqs/attributes.h"

namespace lqs::api {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kMaxQueueNameLength = 80;
constexpr std::string_view kFifoSuffix = ".fifo";
constexpr int kMinMaxReceiveCount = 1;
constexpr int kMaxMaxReceiveCount = 1000;
constexpr size_t kMaxSourceQueueArns = 10;
constexpr int kDefaultKmsDataKeyReusePeriod = 300;
constexpr size_t kMaxLabelLength = 80;
// SQS's policy quotas (sqs-api.md §13: "Amazon SQS policy quotas").
constexpr size_t kMaxActionsPerStatement = 7;
constexpr size_t kMaxPolicyStatements = 20;
constexpr size_t kMaxPolicyBytes = 8192;
constexpr size_t kMaxPolicyPrincipals = 50;
constexpr size_t kMaxPolicyConditions = 10;
constexpr size_t kMaxTagKeyLength = 128;
constexpr size_t kMaxTagValueLength = 256;
constexpr size_t kMaxTags = 50;

constexpr std::string_view kPolicyVersion = "2008-10-17";
constexpr std::string_view kPolicyIdSuffix = "/SQSDefaultPolicy";

// Every action of the SQS API (sqs-api.md §1.1); AddPermission grants them.
constexpr std::string_view kSqsActions[] = {
    "CreateQueue",
    "DeleteQueue",
    "GetQueueUrl",
    "ListQueues",
    "GetQueueAttributes",
    "SetQueueAttributes",
    "PurgeQueue",
    "SendMessage",
    "SendMessageBatch",
    "ReceiveMessage",
    "DeleteMessage",
    "DeleteMessageBatch",
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch",
    "TagQueue",
    "UntagQueue",
    "ListQueueTags",
    "AddPermission",
    "RemovePermission",
    "ListDeadLetterSourceQueues",
    "StartMessageMoveTask",
    "CancelMessageMoveTask",
    "ListMessageMoveTasks",
};

// The actions to which cross-account permissions don't apply (the developer
// guide's "Limitations of Amazon SQS custom policies"): AddPermission, which
// grants to other accounts, refuses them.
constexpr std::string_view kOwnerOnlyActions[] = {
    "AddPermission",
    "CancelMessageMoveTask",
    "CreateQueue",
    "DeleteQueue",
    "ListMessageMoveTasks",
    "ListQueues",
    "ListQueueTags",
    "RemovePermission",
    "SetQueueAttributes",
    "StartMessageMoveTask",
    "TagQueue",
    "UntagQueue",
};

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

std::string Concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view part : parts) out.append(part);
  return out;
}

Status UnknownAttribute(std::string_view name) {
  return Status(ErrorCode::kInvalidAttributeName, Concat({"Unknown Attribute ", name, "."}));
}

// "Invalid value for the parameter <Name>." (sqs-api.md §3.5).
Status InvalidAttributeValue(std::string_view name) {
  return Status(ErrorCode::kInvalidAttributeValue,
                Concat({"Invalid value for the parameter ", name, "."}));
}

Status InvalidAttributeValue(std::string_view name, std::string_view reason) {
  return Status(ErrorCode::kInvalidAttributeValue,
                Concat({"Invalid value for the parameter ", name, ". Reason: ", reason}));
}

// "Value <v> for parameter <Name> is invalid. Reason: <reason>"
Status InvalidParameterValue(std::string_view value, std::string_view name,
                             std::string_view reason) {
  return Status(ErrorCode::kInvalidParameterValue, Concat({"Value ", value, " for parameter ", name,
                                                           " is invalid. Reason: ", reason}));
}

bool IsQueueNameCharacter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool IsPlainName(std::string_view name, size_t max_length) {
  if (name.empty() || name.size() > max_length) return false;
  for (char c : name) {
    if (!IsQueueNameCharacter(c)) return false;
  }
  return true;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool IsValidFifoQueueName(std::string_view name) {
  return EndsWith(name, kFifoSuffix) &&
         IsPlainName(name.substr(0, name.size() - kFifoSuffix.size()),
                     kMaxQueueNameLength - kFifoSuffix.size());
}

bool IsDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
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

// Compact JSON that never throws (invalid UTF-8 is replaced).
template <typename J>
std::string Dump(const J& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// ---- Attribute parsers ------------------------------------------------------------

struct IntRange {
  std::string_view name;
  int low;
  int high;
};

constexpr IntRange kIntRanges[] = {
    {attr::kDelaySeconds, 0, 900},
    {attr::kMaximumMessageSize, 1024, 1048576},
    {attr::kMessageRetentionPeriod, 60, 1209600},
    {attr::kReceiveMessageWaitTimeSeconds, 0, 20},
    {attr::kVisibilityTimeout, 0, 43200},
    {attr::kKmsDataKeyReusePeriodSeconds, 60, 86400},
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
  const auto invalid = [&text](std::string_view reason) {
    return InvalidParameterValue(text, attr::kRedrivePolicy, reason);
  };
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return invalid("Redrive policy is not a valid JSON map.");
  }
  const auto arn = json.find("deadLetterTargetArn");
  if (arn == json.end()) {
    return invalid("Redrive policy does not contain mandatory attribute: deadLetterTargetArn.");
  }
  const auto count = json.find("maxReceiveCount");
  if (count == json.end()) {
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
                           ", valid values are from 1 to 1000 both inclusive."}));
  }
  return RedrivePolicy{arn->get<std::string>(), *max_receive_count};
}

StatusOr<RedriveAllowPolicy> ParseRedriveAllowPolicy(const std::string& text) {
  const auto invalid = [&text](std::string_view reason) {
    return InvalidParameterValue(text, attr::kRedriveAllowPolicy, reason);
  };
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return invalid("The redrive allow policy must be a JSON object.");
  }
  const auto permission = json.find("redrivePermission");
  if (permission == json.end() || !permission->is_string()) {
    return invalid("The redrive allow policy must contain redrivePermission.");
  }
  RedriveAllowPolicy policy;
  policy.redrive_permission = permission->get<std::string>();
  if (policy.redrive_permission != "allowAll" && policy.redrive_permission != "denyAll" &&
      policy.redrive_permission != "byQueue") {
    return invalid("redrivePermission must be allowAll, denyAll or byQueue.");
  }
  const auto arns = json.find("sourceQueueArns");
  const bool has_arns = arns != json.end() && !(arns->is_array() && arns->empty());
  if (policy.redrive_permission != "byQueue") {
    if (has_arns) {
      return invalid("sourceQueueArns can be specified only when redrivePermission is byQueue.");
    }
    return policy;
  }
  if (!has_arns || !arns->is_array() || arns->size() > kMaxSourceQueueArns) {
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
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return InvalidAttributeValue(attr::kPolicy);
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
    if (value.empty()) {
      config->redrive_policy.reset();
      return Status::OK();
    }
    StatusOr<RedrivePolicy> parsed = ParseRedrivePolicy(value);
    if (!parsed.ok()) return parsed.status();
    config->redrive_policy = std::move(*parsed);
    return Status::OK();
  }
  if (name == attr::kRedriveAllowPolicy) {
    if (value.empty()) {
      config->redrive_allow_policy.reset();
      return Status::OK();
    }
    StatusOr<RedriveAllowPolicy> parsed = ParseRedriveAllowPolicy(value);
    if (!parsed.ok()) return parsed.status();
    config->redrive_allow_policy = std::move(*parsed);
    return Status::OK();
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
    return std::to_string(
        config.kms_data_key_reuse_period_seconds.value_or(kDefaultKmsDataKeyReusePeriod));
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

// ---- Policy documents ---------------------------------------------------------------

bool IsValidLabel(std::string_view label) { return IsPlainName(label, kMaxLabelLength); }

bool IsSqsAction(std::string_view action) {
  if (action == "*") return true;
  for (std::string_view known : kSqsActions) {
    if (action == known) return true;
  }
  return false;
}

bool IsOwnerOnlyAction(std::string_view action) {
  for (std::string_view owner_only : kOwnerOnlyActions) {
    if (action == owner_only) return true;
  }
  return false;
}

// A plain string for one value, an array for several (sqs-api.md §3.6).
Json StringOrArray(const std::vector<std::string>& values) {
  if (values.size() == 1) return Json(values.front());
  Json array = Json::array();
  for (const std::string& value : values) array.push_back(value);
  return array;
}

std::vector<std::string> Distinct(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& value : values) {
    if (seen.insert(value).second) out.push_back(value);
  }
  return out;
}

bool StatementHasSid(const Json& statement, std::string_view label) {
  if (!statement.is_object()) return false;
  const auto sid = statement.find("Sid");
  return sid != statement.end() && sid->is_string() && sid->get_ref<const std::string&>() == label;
}

// The Statement member of `policy` as an array (a single statement object
// becomes a one-element array; absent becomes empty).
Json StatementsOf(const Json& policy) {
  const auto statements = policy.find("Statement");
  if (statements == policy.end() || statements->is_null()) return Json::array();
  if (statements->is_array()) return *statements;
  Json array = Json::array();
  array.push_back(*statements);
  return array;
}

// Entries of a statement's Action (or NotAction): a string is one.
size_t ActionCount(const Json& statement) {
  size_t count = 0;
  for (const char* key : {"Action", "NotAction"}) {
    const auto it = statement.find(key);
    if (it == statement.end()) continue;
    count += it->is_array() ? it->size() : 1;
  }
  return count;
}

// Entries of a statement's Principal (or NotPrincipal): "*" or a string is
// one, an object counts the entries of each of its members.
size_t PrincipalCount(const Json& statement) {
  size_t count = 0;
  for (const char* key : {"Principal", "NotPrincipal"}) {
    const auto it = statement.find(key);
    if (it == statement.end()) continue;
    if (!it->is_object()) {
      count += it->is_array() ? it->size() : 1;
      continue;
    }
    for (const auto& [kind, who] : it->items()) count += who.is_array() ? who.size() : 1;
  }
  return count;
}

// Conditions of a statement: each key under each operator of its Condition.
size_t ConditionCount(const Json& statement) {
  const auto it = statement.find("Condition");
  if (it == statement.end() || !it->is_object()) return 0;
  size_t count = 0;
  for (const auto& [op, keys] : it->items()) count += keys.is_object() ? keys.size() : 1;
  return count;
}

Status OverLimit(size_t found, std::string_view what, size_t max) {
  return Status(ErrorCode::kOverLimit,
                Concat({std::to_string(found), " ", what,
                        " were found in the submitted policy, max allowed is ",
                        std::to_string(max)}));
}

Status CheckPolicySize(size_t bytes) {
  if (bytes <= kMaxPolicyBytes) return Status::OK();
  return Status(ErrorCode::kOverLimit,
                Concat({"The submitted policy is ", std::to_string(bytes),
                        " bytes long, max allowed is ", std::to_string(kMaxPolicyBytes)}));
}

// The quotas on the content of a policy document (its size: CheckPolicySize).
Status CheckPolicyContent(const Json& policy) {
  const Json statements = StatementsOf(policy);
  if (statements.size() > kMaxPolicyStatements) {
    return OverLimit(statements.size(), "statements", kMaxPolicyStatements);
  }
  size_t principals = 0, conditions = 0;
  for (const Json& statement : statements) {
    if (!statement.is_object()) continue;
    const size_t actions = ActionCount(statement);
    if (actions > kMaxActionsPerStatement) {
      return Status(ErrorCode::kOverLimit,
                    Concat({std::to_string(actions),
                            " actions were found in a statement from the submitted policy, max "
                            "allowed is 7"}));
    }
    principals += PrincipalCount(statement);
    conditions += ConditionCount(statement);
  }
  if (principals > kMaxPolicyPrincipals) {
    return OverLimit(principals, "principals", kMaxPolicyPrincipals);
  }
  if (conditions > kMaxPolicyConditions) {
    return OverLimit(conditions, "conditions", kMaxPolicyConditions);
  }
  return Status::OK();
}

Status LabelError(std::string_view label, std::string_view reason) {
  return InvalidParameterValue(label, "Label", reason);
}

Status ValidatePermissionRequest(const std::string& label,
                                 const std::vector<std::string>& account_ids,
                                 const std::vector<std::string>& actions) {
  if (!IsValidLabel(label)) {
    return LabelError(label,
                      "Can only include alphanumeric characters, hyphens, or underscores. "
                      "1 to 80 in length.");
  }
  if (account_ids.empty()) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value [] for parameter AWSAccountIds is invalid. Reason: At least one "
                  "AWS account id is required.");
  }
  for (const std::string& account : account_ids) {
    if (account.size() != 12 || !IsDigits(account)) {
      return InvalidParameterValue(account, "AWSAccountIds",
                                   "An AWS account id must be 12 digits.");
    }
  }
  if (actions.empty()) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value [] for parameter Actions is invalid. Reason: At least one action "
                  "is required.");
  }
  const size_t action_count = Distinct(actions).size();
  if (action_count > kMaxActionsPerStatement) {
    return Status(ErrorCode::kOverLimit,
                  Concat({"Value ", std::to_string(action_count),
                          " for parameter Actions is invalid. Reason: A permission can "
                          "grant at most 7 actions."}));
  }
  for (const std::string& action : actions) {
    if (!IsSqsAction(action)) {
      return InvalidParameterValue(action, "ActionName", "Must be an SQS action name or *.");
    }
    if (IsOwnerOnlyAction(action)) {
      return InvalidParameterValue("SQS:" + action, "ActionName",
                                   "Only the queue owner is allowed to invoke this action.");
    }
  }
  return Status::OK();
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
                  "The name of a FIFO queue can only include alphanumeric characters, "
                  "hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in "
                  "length");
  }
  if (IsPlainName(name, kMaxQueueNameLength)) return Status::OK();
  return Status(ErrorCode::kInvalidParameterValue,
                "Can only include alphanumeric characters, hyphens, or underscores. 1 to "
                "80 in length");
}

bool RequestsFifo(const AttributeMap& attributes) {
  const auto it = attributes.find(std::string(attr::kFifoQueue));
  return it != attributes.end() && ParseBool(it->second) == std::optional<bool>(true);
}

Status CheckPolicyLimits(const AttributeMap& attributes) {
  const auto it = attributes.find(std::string(attr::kPolicy));
  if (it == attributes.end() || it->second.empty()) return Status::OK();
  if (Status s = CheckPolicySize(it->second.size()); !s.ok()) return s;
  const Json policy = Json::parse(it->second, nullptr, false);
  if (policy.is_discarded() || !policy.is_object()) return Status::OK();  // Apply's error
  return CheckPolicyContent(policy);
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
        std::to_string(
            config.kms_data_key_reuse_period_seconds.value_or(kDefaultKmsDataKeyReusePeriod)));
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

// `account_id_for_arns` is not needed: the principals name the granted
// accounts and `queue_arn` already names the owner.
StatusOr<std::string> PolicyAddPermission(const std::string& current_policy,
                                          const std::string& queue_arn,
                                          const std::string& /*account_id_for_arns*/,
                                          const std::string& label,
                                          const std::vector<std::string>& account_ids,
                                          const std::vector<std::string>& actions) {
  if (Status s = ValidatePermissionRequest(label, account_ids, actions); !s.ok()) return s;

  Json policy = Json::object();
  if (!current_policy.empty()) {
    policy = Json::parse(current_policy, nullptr, false);
    if (policy.is_discarded() || !policy.is_object()) {
      return Status(ErrorCode::kInternal, "The queue's Policy is not a JSON object.");
    }
  } else {
    policy["Version"] = std::string(kPolicyVersion);
    policy["Id"] = queue_arn + std::string(kPolicyIdSuffix);
  }
  Json statements = StatementsOf(policy);
  for (const Json& statement : statements) {
    if (StatementHasSid(statement, label)) return LabelError(label, "Already exists.");
  }

  std::vector<std::string> principals;
  for (const std::string& account : Distinct(account_ids)) {
    principals.push_back("arn:aws:iam::" + account + ":root");
  }
  std::vector<std::string> prefixed_actions;
  for (const std::string& action : Distinct(actions)) {
    prefixed_actions.push_back("SQS:" + action);
  }
  Json statement = Json::object();
  statement["Sid"] = label;
  statement["Effect"] = "Allow";
  statement["Principal"] = Json::object({{"AWS", StringOrArray(principals)}});
  statement["Action"] = StringOrArray(prefixed_actions);
  statement["Resource"] = queue_arn;
  statements.push_back(std::move(statement));
  policy["Statement"] = std::move(statements);
  if (Status s = CheckPolicyContent(policy); !s.ok()) return s;
  std::string text = Dump(policy);
  if (Status s = CheckPolicySize(text.size()); !s.ok()) return s;
  return text;
}

StatusOr<std::string> PolicyRemovePermission(const std::string& current_policy,
                                             const std::string& label) {
  const Status not_found = LabelError(label, "can't find label.");
  if (current_policy.empty()) return not_found;
  Json policy = Json::parse(current_policy, nullptr, false);
  if (policy.is_discarded() || !policy.is_object()) return not_found;
  const Json statements = StatementsOf(policy);
  Json kept = Json::array();
  bool found = false;
  for (const Json& statement : statements) {
    if (StatementHasSid(statement, label)) {
      found = true;
    } else {
      kept.push_back(statement);
    }
  }
  if (!found) return not_found;
  if (kept.empty()) return std::string();
  policy["Statement"] = std::move(kept);
  return Dump(policy);
}

Status ValidateTags(const TagMap& existing, const TagMap& added, const std::string& queue_name) {
  if (added.empty()) {
    return Status(ErrorCode::kMissingParameter, "The request must contain the parameter Tags.");
  }
  for (const auto& [key, value] : added) {
    const size_t key_length = CodePointCount(key);
    if (key_length < 1 || key_length > kMaxTagKeyLength) {
      return InvalidParameterValue(key, "TagKey",
                                   "Tag keys must be between 1 and 128 characters long.");
    }
    if (CodePointCount(value) > kMaxTagValueLength) {
      return InvalidParameterValue(value, "TagValue",
                                   "Tag values must be at most 256 characters long.");
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
