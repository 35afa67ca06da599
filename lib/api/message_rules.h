// lib/api/message_rules.h — SQS's rules for message parameters, digests and
// batches: validation with SQS's error codes and texts, message size
// accounting, MD5 digests, and the receive-side attribute filters.
//
// Thread safety: pure functions over values.

#ifndef LQS_LIB_API_MESSAGE_RULES_H_
#define LQS_LIB_API_MESSAGE_RULES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/api/md5.h"  // Md5Hex, Sha256Hex
#include "lib/api/queue_config.h"

#include "lqs/limits.h"
#include "lqs/status.h"
#include "lqs/types.h"

namespace lqs::api {

// MD5OfMessageAttributes as SQS computes it (docs/sqs-reference.md §5.5): attributes in
// name order; for each, u32-BE length-prefixed name and data type, then a
// transport byte (1 for String/Number, 2 for Binary) and the length-prefixed
// value. Empty map: "" (callers omit the field).
std::string Md5OfMessageAttributes(const MessageAttributeMap& attributes);

// size = utf8 bytes of body + sum over attributes of name + data type + value.
int64_t MessageSize(const SendMessageRequest& request);

// True when every code point of the UTF-8 `text` is in XML 1.0's Char
// production (#x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF) and the
// UTF-8 is well formed.
bool IsValidMessageText(std::string_view text);

// Validates one SendMessage request against the queue, in SQS's order
// (docs/sqs-reference.md §6.3): group id presence (FIFO), dedup id presence (FIFO
// without ContentBasedDeduplication), group id and dedup id syntax, dedup id
// on a standard queue, body presence, body characters, DelaySeconds range
// and FIFO per-message delay, message attributes (count <= 10, names,
// reserved prefixes, data types, non-empty values, characters), system
// attributes (only AWSTraceHeader of type String), size <= the queue's
// MaximumMessageSize.
// `in_batch`: the request is a SendMessageBatch entry — a missing FIFO group
// id is then InvalidParameterValue (not MissingParameter) and the size error
// says "cannot be validated" as SQS does.
Status ValidateSendMessage(const SendMessageRequest& request, const QueueConfig& queue,
                           bool in_batch);

// The FIFO presence rule (no-op on a standard queue): MessageGroupId is
// required (MissingParameter, or InvalidParameterValue when `in_batch`), and
// so is MessageDeduplicationId unless the queue has ContentBasedDeduplication
// (InvalidParameterValue). ValidateSendMessage applies it first; a FIFO
// SendMessageBatch applies it to every entry before any other check, since
// there a failing entry fails the whole batch.
Status ValidateFifoPresence(const SendMessageRequest& request, const QueueConfig& queue,
                            bool in_batch);

// The sum of a SendMessageBatch's message sizes (MessageSize) is at most
// limits::kMaxBatchBytes; otherwise BatchRequestTooLong with SQS's text.
Status ValidateBatchSize(int64_t total_bytes);

// One user message attribute, by the rules ValidateSendMessage applies to
// each (name syntax and reserved prefixes, data type, non-empty value of the
// right kind, characters, Number syntax); no count limit.
Status ValidateMessageAttribute(const std::string& name, const MessageAttributeValue& value);

// [A-Za-z0-9_-]{1,80}
bool IsValidBatchEntryId(std::string_view id);

// Whole-request checks of a batch, in SQS's order: EmptyBatchRequest,
// TooManyEntriesInBatchRequest, InvalidBatchEntryId, BatchEntryIdsNotDistinct.
// `entry_name` names the entry type in the empty-batch message
// ("SendMessageBatchRequestEntry").
Status ValidateBatchIds(const std::vector<std::string>& ids, std::string_view entry_name);

// ReceiveMessage parameter ranges (MaxNumberOfMessages 1..kMaxReceiveMessages,
// VisibilityTimeout 0..kMaxVisibilityTimeoutSeconds, WaitTimeSeconds
// 0..kMaxWaitTimeSeconds, ReceiveRequestAttemptId syntax), with SQS's texts.
Status ValidateReceiveMessage(const ReceiveMessageRequest& request);

// VisibilityTimeout 0..limits::kMaxVisibilityTimeoutSeconds for
// ChangeMessageVisibility.
Status ValidateVisibilityTimeout(int64_t seconds);

// Whether a user attribute called `name` is selected by the receive filter
// `filters` (MessageAttributeNames): "All", ".*" and "*" select all;
// "prefix.*" selects names starting with prefix; other entries are exact.
bool MessageAttributeSelected(std::string_view name, const std::vector<std::string>& filters);

// Whether the system attribute `name` is selected by `filters`
// (MessageSystemAttributeNames + AttributeNames): "All" selects all.
bool SystemAttributeSelected(std::string_view name, const std::vector<std::string>& filters);

// MessageGroupId / MessageDeduplicationId / ReceiveRequestAttemptId syntax:
// 1..128 characters, alphanumerics and ASCII punctuation.
bool IsValidGroupOrDedupId(std::string_view id);

}  // namespace lqs::api

#endif  // LQS_LIB_API_MESSAGE_RULES_H_
