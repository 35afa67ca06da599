// lib/api/queue_config.h — a queue's settable attributes, typed, and the SQS
// rules that govern them (CreateQueue / SetQueueAttributes / GetQueueAttributes).
//
// These functions know nothing of storage or of other queues: checks that
// need another queue (the dead-letter queue exists, has the same type and
// allows this source) are made by the engine after ApplyQueueAttributes.
//
// Thread safety: pure functions over values.

#ifndef LQS_LIB_API_QUEUE_CONFIG_H_
#define LQS_LIB_API_QUEUE_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lqs/limits.h"
#include "lqs/status.h"
#include "lqs/types.h"

namespace lqs::api {

struct RedrivePolicy {
  std::string dead_letter_target_arn;
  int max_receive_count = 0;  // limits::kMinMaxReceiveCount..kMaxMaxReceiveCount
};

struct RedriveAllowPolicy {
  std::string redrive_permission;              // allowAll | denyAll | byQueue
  std::vector<std::string> source_queue_arns;  // only with byQueue, <= kMaxRedriveSourceQueueArns
};

inline bool operator==(const RedrivePolicy& a, const RedrivePolicy& b) {
  return a.dead_letter_target_arn == b.dead_letter_target_arn &&
         a.max_receive_count == b.max_receive_count;
}
inline bool operator==(const RedriveAllowPolicy& a, const RedriveAllowPolicy& b) {
  return a.redrive_permission == b.redrive_permission && a.source_queue_arns == b.source_queue_arns;
}

// Defaults are SQS's defaults for a new queue.
struct QueueConfig {
  bool fifo = false;
  // Ranges and defaults: lqs/limits.h.
  int delay_seconds = 0;
  int maximum_message_size = limits::kDefaultMaximumMessageSize;
  int message_retention_period = limits::kDefaultRetentionSeconds;
  int receive_message_wait_time_seconds = 0;
  int visibility_timeout = limits::kDefaultVisibilityTimeoutSeconds;
  std::string policy;  // empty: absent
  std::optional<RedrivePolicy> redrive_policy;
  std::optional<RedriveAllowPolicy> redrive_allow_policy;
  std::string kms_master_key_id;                         // empty: absent
  std::optional<int> kms_data_key_reuse_period_seconds;  // absent: the default
  bool sqs_managed_sse_enabled = true;
  // FIFO only.
  bool content_based_deduplication = false;
  std::string deduplication_scope = "queue";       // queue | messageGroup
  std::string fifo_throughput_limit = "perQueue";  // perQueue | perMessageGroupId
  // A change of deduplication_scope by SetQueueAttributes reaches the
  // deduplication of sends kDeduplicationScopeChangeDelayMs after it was
  // made, as AWS behaves (docs/sqs_compat.md, "FIFO DeduplicationScope
  // changed after creation"); until then ids are matched with
  // deduplication_scope_before, the scope in effect when the change was
  // made. "" and 0: no change pending. Not attributes: the engine keeps them
  // in the queue's stored record.
  std::string deduplication_scope_before;  // "" | queue | messageGroup
  int64_t deduplication_scope_changed_ms = 0;

  friend bool operator==(const QueueConfig&, const QueueConfig&) = default;
};

// Checks a queue name: [A-Za-z0-9_-]{1,80}; FIFO names are
// [A-Za-z0-9_-]{1,75}.fifo. `fifo` is whether FifoQueue=true was requested.
// Errors: InvalidParameterValue with SQS's wording; a ".fifo" name without
// FifoQueue=true and FifoQueue=true without ".fifo" are both errors.
Status ValidateQueueName(std::string_view name, bool fifo);

// Whether `attributes` asks for a FIFO queue (FifoQueue == "true", any case).
bool RequestsFifo(const AttributeMap& attributes);

// How long a change of DeduplicationScope takes to reach deduplication:
// SQS's bound for an attribute change to propagate (60 s).
inline constexpr int64_t kDeduplicationScopeChangeDelayMs = 60 * 1000;

// The scope ("queue" or "messageGroup") that deduplication ids of sends at
// now_ms are matched with.
std::string_view DeduplicationKeyScope(const QueueConfig& config, int64_t now_ms);

// For a SetQueueAttributes made at now_ms that turned `current` into *next:
// when it changed the DeduplicationScope, records the scope in effect until
// then (deduplication_scope_before) and the time; otherwise carries over
// the pending change of `current`.
void NoteDeduplicationScopeChange(const QueueConfig& current, int64_t now_ms, QueueConfig* next);

// Validates every entry of `attributes` and, only if all are valid, applies
// them to *config. `creating`: CreateQueue (true) or SetQueueAttributes.
// `config->fifo` must already say the queue's type.
// Errors, with SQS's texts (docs/sqs-reference.md §4.4):
//   InvalidAttributeName: unknown or read-only name; FIFO-only name on a
//     standard queue; KmsMasterKeyId together with SqsManagedSseEnabled=true.
//   InvalidAttributeValue: numbers out of range or not numbers ("Invalid
//     value for the parameter <Name>."); FifoQueue=false on a FIFO queue
//     (SetQueueAttributes); DeduplicationScope / FifoThroughputLimit values;
//     a Policy that is not a JSON object.
//   InvalidParameterValue: malformed RedrivePolicy (not JSON, missing keys,
//     maxReceiveCount not 1..1000, deadLetterTargetArn not an SQS ARN);
//     malformed RedriveAllowPolicy.
// Setting Policy, RedrivePolicy, RedriveAllowPolicy or KmsMasterKeyId to ""
// removes it.
Status ApplyQueueAttributes(const AttributeMap& attributes, bool creating, QueueConfig* config);

// SQS's quotas on a requested Policy (docs/sqs-reference.md §3.7;
// queue_policy.cc), each an OverLimit:
// more than 8,192 bytes, more than 20 statements ("21 statements were found
// in the submitted policy, max allowed is 20", AWS's text), more than 7
// actions in one statement (AWS's text), more than 50 principals or more
// than 10 conditions in all (texts of the same form; docs/sqs_compat.md).
// A principal is each entry of a Principal or NotPrincipal ("*" is one); a
// condition is each key under each operator of a Condition. AddPermission
// checks the policy it would store the same way. CreateQueue and
// SetQueueAttributes check them besides ApplyQueueAttributes, which also
// re-applies the stored attributes when a database opens: a queue whose
// Policy an older lqs accepted over these limits still opens. OK when there
// is no Policy, or when it is within 8,192 bytes but not JSON (that error is
// ApplyQueueAttributes's).
Status CheckPolicyLimits(const AttributeMap& attributes);

// The settable attributes as GetQueueAttributes renders them: every
// attribute with a value (optional ones only while set; FIFO-only ones only
// on FIFO queues), e.g. {"DelaySeconds": "0", "VisibilityTimeout": "30",
// "RedrivePolicy": "{\"deadLetterTargetArn\":\"...\",\"maxReceiveCount\":5}"}.
AttributeMap RenderQueueConfig(const QueueConfig& config);

// CreateQueue on an existing name: the first attribute (in name order) in
// `requested` whose value differs from `current`, comparing normalised values
// ("True" equals "true"; RedrivePolicy compared as parsed JSON). nullopt when
// all are equal. Assumes `requested` passed ApplyQueueAttributes.
std::optional<std::string> FirstDifferingAttribute(const AttributeMap& requested,
                                                   const QueueConfig& current);

// Validates the names for GetQueueAttributes: each must be "All" or a member
// of SQS's QueueAttributeName enum. Errors: InvalidAttributeName
// "Unknown Attribute <Name>.".
Status ValidateAttributeNames(const std::vector<std::string>& names);

// Serialises a RedrivePolicy as AWS echoes it:
// {"deadLetterTargetArn":"arn:...","maxReceiveCount":5}
std::string RedrivePolicyJson(const RedrivePolicy& policy);
std::string RedriveAllowPolicyJson(const RedriveAllowPolicy& policy);

// AddPermission: returns the new Policy document with a statement for
// `label` (its Sid). `actions` are SQS action names without the
// "SQS:" prefix, or "*"; the batch actions are accepted by name.
// Errors: InvalidParameterValue (label already used, bad label, empty lists,
// an unknown action: "Value <a> for parameter ActionName is invalid. Reason:
// Must be an SQS action name or *.", an action only the queue owner may use
// (one to which cross-account permissions don't apply: AddPermission,
// CancelMessageMoveTask, CreateQueue, DeleteQueue, ListMessageMoveTasks,
// ListQueues, ListQueueTags, RemovePermission, SetQueueAttributes,
// StartMessageMoveTask, TagQueue, UntagQueue): "Value SQS:<a> for parameter
// ActionName is invalid. Reason: Only the queue owner is allowed to invoke
// this action."; the first offending action in request order is named),
// OverLimit (> 7 actions, or a resulting policy over CheckPolicyLimits's
// quotas).
StatusOr<std::string> PolicyAddPermission(const std::string& current_policy,
                                          const std::string& queue_arn,
                                          const std::string& account_id_for_arns,
                                          const std::string& label,
                                          const std::vector<std::string>& account_ids,
                                          const std::vector<std::string>& actions);

// RemovePermission: the Policy without the statement `label` ("" when it was
// the last). Errors: InvalidParameterValue "... Reason: can't find label.".
StatusOr<std::string> PolicyRemovePermission(const std::string& current_policy,
                                             const std::string& label);

// Tag rules: keys 1..128 chars, values 0..256 chars; at most 50 tags after
// the change. Errors: InvalidParameterValue, MissingParameter (no tags).
Status ValidateTags(const TagMap& existing, const TagMap& added, const std::string& queue_name);

}  // namespace lqs::api

#endif  // LQS_LIB_API_QUEUE_CONFIG_H_
