// SQS's rules for a queue's Policy document: the quotas on its size and
// content, and the statements AddPermission adds and RemovePermission removes
// (docs/sqs-reference.md §3.7 quotas, §4.6 documents, §6.9 AddPermission).

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/api/config_text.h"
#include "lib/api/queue_config.h"

#include "lqs/attributes.h"
#include "lqs/limits.h"

namespace lqs::api {
namespace {

// SQS's policy quotas (docs/sqs-reference.md §3.7).
constexpr size_t kMaxActionsPerStatement = 7;
constexpr size_t kMaxPolicyStatements = 20;
constexpr size_t kMaxPolicyBytes = 8192;
constexpr size_t kMaxPolicyPrincipals = 50;
constexpr size_t kMaxPolicyConditions = 10;

constexpr std::string_view kPolicyVersion = "2008-10-17";
constexpr std::string_view kPolicyIdSuffix = "/SQSDefaultPolicy";

// Who may be granted an action: any account, or (the developer guide's
// "Limitations of Amazon SQS custom policies") only the queue's owner, so
// that AddPermission, which grants to other accounts, refuses it.
enum Grant { kGrantable, kOwnerOnly };

struct SqsAction {
  std::string_view name;
  Grant grant;
};

// Every action of the SQS API (docs/sqs-reference.md §2.1).
constexpr SqsAction kSqsActions[] = {
    {"CreateQueue", kOwnerOnly},
    {"DeleteQueue", kOwnerOnly},
    {"GetQueueUrl", kGrantable},
    {"ListQueues", kOwnerOnly},
    {"GetQueueAttributes", kGrantable},
    {"SetQueueAttributes", kOwnerOnly},
    {"PurgeQueue", kGrantable},
    {"SendMessage", kGrantable},
    {"SendMessageBatch", kGrantable},
    {"ReceiveMessage", kGrantable},
    {"DeleteMessage", kGrantable},
    {"DeleteMessageBatch", kGrantable},
    {"ChangeMessageVisibility", kGrantable},
    {"ChangeMessageVisibilityBatch", kGrantable},
    {"TagQueue", kOwnerOnly},
    {"UntagQueue", kOwnerOnly},
    {"ListQueueTags", kOwnerOnly},
    {"AddPermission", kOwnerOnly},
    {"RemovePermission", kOwnerOnly},
    {"ListDeadLetterSourceQueues", kGrantable},
    {"StartMessageMoveTask", kOwnerOnly},
    {"CancelMessageMoveTask", kOwnerOnly},
    {"ListMessageMoveTasks", kOwnerOnly},
};

bool IsValidLabel(std::string_view label) {
  return IsPlainName(label, limits::kMaxPermissionLabelLength);
}

// The row of `action`, or nullptr for a name that is no SQS action.
const SqsAction* FindSqsAction(std::string_view action) {
  for (const SqsAction& known : kSqsActions) {
    if (action == known.name) return &known;
  }
  return nullptr;
}

// A plain string for one value, an array for several, as SQS renders a
// Principal or Action.
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

// An array counts its entries; anything else (a string, "*") is one.
size_t EntryCount(const Json& value) { return value.is_array() ? value.size() : 1; }

// The sum of `count` over the members `key` and `not_key` of a statement
// that it has.
template <typename Count>
size_t CountKeyAndNot(const Json& statement, const char* key, const char* not_key, Count count) {
  size_t total = 0;
  for (const char* k : {key, not_key}) {
    const auto it = statement.find(k);
    if (it != statement.end()) total += count(*it);
  }
  return total;
}

// Entries of a statement's Action (or NotAction).
size_t ActionCount(const Json& statement) {
  return CountKeyAndNot(statement, "Action", "NotAction", EntryCount);
}

// Entries of a statement's Principal (or NotPrincipal): an object counts the
// entries of each of its members.
size_t PrincipalCount(const Json& statement) {
  return CountKeyAndNot(statement, "Principal", "NotPrincipal", [](const Json& principal) {
    if (!principal.is_object()) return EntryCount(principal);
    size_t count = 0;
    for (const auto& [kind, who] : principal.items()) count += EntryCount(who);
    return count;
  });
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
  return Status(
      ErrorCode::kOverLimit,
      Concat({std::to_string(found), " ", what,
              " were found in the submitted policy, max allowed is ", std::to_string(max)}));
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
                      Concat({"Can only include alphanumeric characters, hyphens, or underscores. "
                              "1 to ",
                              std::to_string(limits::kMaxPermissionLabelLength), " in length."}));
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
    if (action == "*") continue;
    const SqsAction* known = FindSqsAction(action);
    if (known == nullptr) {
      return InvalidParameterValue(action, "ActionName", "Must be an SQS action name or *.");
    }
    if (known->grant == kOwnerOnly) {
      return InvalidParameterValue("SQS:" + action, "ActionName",
                                   "Only the queue owner is allowed to invoke this action.");
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckPolicyLimits(const AttributeMap& attributes) {
  const auto it = attributes.find(std::string(attr::kPolicy));
  if (it == attributes.end() || it->second.empty()) return Status::OK();
  if (Status s = CheckPolicySize(it->second.size()); !s.ok()) return s;
  const std::optional<Json> policy = ParseObject(it->second);
  if (!policy.has_value()) return Status::OK();  // Apply's error
  return CheckPolicyContent(*policy);
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
    std::optional<Json> current = ParseObject(current_policy);
    if (!current.has_value()) {
      return Status(ErrorCode::kInternal, "The queue's Policy is not a JSON object.");
    }
    policy = std::move(*current);
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
  std::optional<Json> parsed = ParseObject(current_policy);
  if (!parsed.has_value()) return not_found;
  Json& policy = *parsed;
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

}  // namespace lqs::api
