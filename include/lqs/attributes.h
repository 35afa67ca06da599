// lqs/attributes.h — the names of SQS queue attributes and message system
// attributes, as constants, so that typos fail to compile.

#ifndef LQS_ATTRIBUTES_H_
#define LQS_ATTRIBUTES_H_

#include <string_view>

namespace lqs::attr {

// Settable queue attributes (CreateQueue, SetQueueAttributes).
inline constexpr std::string_view kDelaySeconds = "DelaySeconds";
inline constexpr std::string_view kMaximumMessageSize = "MaximumMessageSize";
inline constexpr std::string_view kMessageRetentionPeriod = "MessageRetentionPeriod";
inline constexpr std::string_view kReceiveMessageWaitTimeSeconds = "ReceiveMessageWaitTimeSeconds";
inline constexpr std::string_view kVisibilityTimeout = "VisibilityTimeout";
inline constexpr std::string_view kPolicy = "Policy";
inline constexpr std::string_view kRedrivePolicy = "RedrivePolicy";
inline constexpr std::string_view kRedriveAllowPolicy = "RedriveAllowPolicy";
inline constexpr std::string_view kKmsMasterKeyId = "KmsMasterKeyId";
inline constexpr std::string_view kKmsDataKeyReusePeriodSeconds = "KmsDataKeyReusePeriodSeconds";
inline constexpr std::string_view kSqsManagedSseEnabled = "SqsManagedSseEnabled";
inline constexpr std::string_view kFifoQueue = "FifoQueue";
inline constexpr std::string_view kContentBasedDeduplication = "ContentBasedDeduplication";
inline constexpr std::string_view kDeduplicationScope = "DeduplicationScope";
inline constexpr std::string_view kFifoThroughputLimit = "FifoThroughputLimit";

// Read-only queue attributes (GetQueueAttributes).
inline constexpr std::string_view kAll = "All";
inline constexpr std::string_view kApproximateNumberOfMessages = "ApproximateNumberOfMessages";
inline constexpr std::string_view kApproximateNumberOfMessagesNotVisible =
    "ApproximateNumberOfMessagesNotVisible";
inline constexpr std::string_view kApproximateNumberOfMessagesDelayed =
    "ApproximateNumberOfMessagesDelayed";
inline constexpr std::string_view kCreatedTimestamp = "CreatedTimestamp";
inline constexpr std::string_view kLastModifiedTimestamp = "LastModifiedTimestamp";
inline constexpr std::string_view kQueueArn = "QueueArn";

// Message system attributes (ReceiveMessage).
inline constexpr std::string_view kSenderId = "SenderId";
inline constexpr std::string_view kSentTimestamp = "SentTimestamp";
inline constexpr std::string_view kApproximateReceiveCount = "ApproximateReceiveCount";
inline constexpr std::string_view kApproximateFirstReceiveTimestamp =
    "ApproximateFirstReceiveTimestamp";
inline constexpr std::string_view kSequenceNumber = "SequenceNumber";
inline constexpr std::string_view kMessageDeduplicationId = "MessageDeduplicationId";
inline constexpr std::string_view kMessageGroupId = "MessageGroupId";
inline constexpr std::string_view kAWSTraceHeader = "AWSTraceHeader";
inline constexpr std::string_view kDeadLetterQueueSourceArn = "DeadLetterQueueSourceArn";

}  // namespace lqs::attr

#endif  // LQS_ATTRIBUTES_H_
