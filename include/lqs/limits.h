// lqs/limits.h — SQS's numeric limits and defaults, in one place.
//
// Every value is SQS's own (docs/sqs-reference.md, cited by section below, says where each is
// stated); validation in lib/api, the engine, the worker, lqsd, the `lqs`
// tool and the bindings all use these constants instead of repeating the
// numbers. Ranges are inclusive. Constants only: no state, usable from any
// thread.

#ifndef LQS_LIMITS_H_
#define LQS_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lqs::limits {

// ---- Visibility timeout and the lease budget ----------------------------------

// VisibilityTimeout (queue attribute, ReceiveMessage, ChangeMessageVisibility):
// 0..43200 seconds (12 hours), default 30.
// docs/sqs-reference.md §3.4
inline constexpr int kMaxVisibilityTimeoutSeconds = 43200;
inline constexpr int kDefaultVisibilityTimeoutSeconds = 30;

// A message may stay leased at most 12 hours after the receive that leased
// it, however often ChangeMessageVisibility extends the lease.
// docs/sqs-reference.md §7.1
inline constexpr int64_t kMaxLeaseBudgetMs = int64_t{kMaxVisibilityTimeoutSeconds} * 1000;

// ---- Receive ------------------------------------------------------------------

// WaitTimeSeconds and ReceiveMessageWaitTimeSeconds: 0..20 seconds.
// docs/sqs-reference.md §3.4
inline constexpr int kMaxWaitTimeSeconds = 20;

// MaxNumberOfMessages: 1..10, default 1.
// docs/sqs-reference.md §3.4
inline constexpr int kMaxReceiveMessages = 10;

// How long a FIFO ReceiveRequestAttemptId is remembered (5 minutes).
// docs/sqs-reference.md §3.5, §9.4
inline constexpr int64_t kReceiveAttemptWindowMs = 5 * 60 * 1000;

// ---- Delay and retention ------------------------------------------------------

// DelaySeconds (queue attribute and per message): 0..900 seconds (15 minutes).
// docs/sqs-reference.md §3.4
inline constexpr int kMaxDelaySeconds = 900;

// MessageRetentionPeriod: 60..1209600 seconds (1 minute to 14 days), default
// 345600 (4 days).
// docs/sqs-reference.md §3.4
inline constexpr int kMinRetentionSeconds = 60;
inline constexpr int kMaxRetentionSeconds = 1209600;
inline constexpr int kDefaultRetentionSeconds = 345600;

// The in-flight quota: at most 120,000 messages of a queue received and not
// yet deleted (BrokerOptions::max_inflight_per_queue's default).
// docs/sqs-reference.md (Limits: in-flight messages)
inline constexpr int64_t kMaxInflightMessages = 120000;

// ---- Message size and batches -------------------------------------------------

// MaximumMessageSize: 1024..1048576 bytes (1 KiB to 1 MiB), default 1048576.
// docs/sqs-reference.md §3.1, §4.1
inline constexpr int kMinMaximumMessageSize = 1024;
inline constexpr int kMaxMessageSize = 1048576;
inline constexpr int kDefaultMaximumMessageSize = 1048576;

// A batch (SendMessageBatch, DeleteMessageBatch, ChangeMessageVisibilityBatch)
// has 1..10 entries; the sizes of a SendMessageBatch's messages add up to at
// most 1048576 bytes.
// docs/sqs-reference.md §3.2
inline constexpr int kMaxBatchEntries = 10;
inline constexpr int64_t kMaxBatchBytes = 1048576;

// A batch entry Id: [A-Za-z0-9_-]{1,80}.
// docs/sqs-reference.md §3.2
inline constexpr size_t kMaxBatchEntryIdLength = 80;

// ---- Message attributes and ids -----------------------------------------------

// At most 10 message attributes per message; names and data types up to 256
// characters.
// docs/sqs-reference.md §3.3
inline constexpr int kMaxMessageAttributes = 10;
inline constexpr size_t kMaxAttributeNameLength = 256;
inline constexpr size_t kMaxAttributeDataTypeLength = 256;

// MessageGroupId, MessageDeduplicationId, ReceiveRequestAttemptId: 1..128
// characters.
// docs/sqs-reference.md §3.5
inline constexpr size_t kMaxGroupOrDedupIdLength = 128;

// The FIFO deduplication interval (5 minutes).
// docs/sqs-reference.md §3.5, §9.3
inline constexpr int64_t kDeduplicationWindowMs = 5 * 60 * 1000;

// ---- Queues -------------------------------------------------------------------

// Queue names: 1..80 characters (a FIFO name's ".fifo" suffix included).
// docs/sqs-reference.md §2.3
inline constexpr size_t kMaxQueueNameLength = 80;
// A FIFO queue's name, and so its URL's last segment, ends in this.
inline constexpr std::string_view kFifoQueueNameSuffix = ".fifo";

// RedrivePolicy maxReceiveCount: 1..1000.
// docs/sqs-reference.md §8.1
inline constexpr int kMinMaxReceiveCount = 1;
inline constexpr int kMaxMaxReceiveCount = 1000;

// RedriveAllowPolicy byQueue: at most 10 source queue ARNs.
// docs/sqs-reference.md §8.3
inline constexpr size_t kMaxRedriveSourceQueueArns = 10;

// KmsDataKeyReusePeriodSeconds: 60..86400 seconds, default 300.
// docs/sqs-reference.md §3.4, §4.1
inline constexpr int kMinKmsDataKeyReusePeriodSeconds = 60;
inline constexpr int kMaxKmsDataKeyReusePeriodSeconds = 86400;
inline constexpr int kDefaultKmsDataKeyReusePeriodSeconds = 300;

// ListQueues returns at most 1000 names (MaxResults 1..1000).
// docs/sqs-reference.md §6.2
inline constexpr int kMaxListQueuesResults = 1000;

// ListMessageMoveTasks MaxResults: 1..10.
// docs/sqs-reference.md §3.8, §6.11
inline constexpr int kMaxMoveTaskResults = 10;

// AddPermission labels: [A-Za-z0-9_-]{1,80}.
// docs/sqs-reference.md §3.8
inline constexpr size_t kMaxPermissionLabelLength = 80;

// Tags: at most 50 per queue; keys 1..128, values up to 256 characters.
// docs/sqs-reference.md §3.6
inline constexpr size_t kMaxTags = 50;
inline constexpr size_t kMaxTagKeyLength = 128;
inline constexpr size_t kMaxTagValueLength = 256;

// ---- lqs's own: the idempotency inbox ------------------------------------------

// Queue::DeleteMessageAndRecord keys: 1..512 bytes. (Not an SQS limit: the
// inbox is lqs's; docs/worker.md.)
inline constexpr size_t kMaxIdempotencyKeyBytes = 512;

// How long the inbox keeps a key: 1 second up to the longest a message can
// be retained (kMaxRetentionSeconds, 14 days), default 1 day.
inline constexpr int64_t kMaxInboxTtlSeconds = kMaxRetentionSeconds;
inline constexpr int64_t kDefaultInboxTtlSeconds = 86400;

// ---- lqs's own: tables (lqs/transaction.h, docs/transactions.md) ----------------

// A table's name: 1..64 characters of [A-Za-z0-9_.-].
inline constexpr size_t kMaxTableNameLength = 64;
// A table key: 1..1024 bytes, any bytes.
inline constexpr size_t kMaxTableKeyBytes = 1024;
// A table value: 0..256 KiB, any bytes.
inline constexpr size_t kMaxTableValueBytes = 256 * 1024;

}  // namespace lqs::limits

#endif  // LQS_LIMITS_H_
