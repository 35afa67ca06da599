// lqs/types.h — the values that flow through the queue API.
//
// The shapes follow the SQS API (2012-11-05) so that front ends (the HTTP
// server, the C API, the Python client) translate field by field. Names of
// fields are the SQS parameter names in snake_case.
//
// All types are plain values: copyable, movable, no hidden sharing.

#ifndef LQS_TYPES_H_
#define LQS_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lqs {

// Queue attributes travel as SQS does: attribute name -> decimal/JSON/bool
// string ("VisibilityTimeout" -> "30"). Names are in lqs/attributes.h.
using AttributeMap = std::map<std::string, std::string>;
using TagMap = std::map<std::string, std::string>;

// One user message attribute (SQS MessageAttributeValue).
// `data_type` is "String", "Number" or "Binary", optionally followed by
// ".label" ("Number.int"). String and Number types carry `string_value`;
// Binary types carry `binary_value` (raw bytes, not base64).
struct MessageAttributeValue {
  std::string data_type;
  std::string string_value;
  std::string binary_value;

  bool IsBinary() const { return data_type.rfind("Binary", 0) == 0; }
  friend bool operator==(const MessageAttributeValue& a, const MessageAttributeValue& b) {
    return a.data_type == b.data_type && a.string_value == b.string_value &&
           a.binary_value == b.binary_value;
  }
};
// Sorted by name, as SQS hashes them.
using MessageAttributeMap = std::map<std::string, MessageAttributeValue>;

// ---- Sending ------------------------------------------------------------------

struct SendMessageRequest {
  // Required, 1 byte or more of XML-legal Unicode text (UTF-8).
  std::string body;
  // 0..900; absent means the queue's DelaySeconds. FIFO queues accept only 0.
  std::optional<int> delay_seconds;
  MessageAttributeMap message_attributes;  // at most 10
  // Only "AWSTraceHeader" (type String) is accepted.
  MessageAttributeMap message_system_attributes;
  // FIFO: required. Standard queues: optional (fair queues).
  std::optional<std::string> message_group_id;
  // FIFO only.
  std::optional<std::string> message_deduplication_id;
};

struct SendMessageResult {
  std::string message_id;
  std::string md5_of_message_body;
  std::optional<std::string> md5_of_message_attributes;         // iff attrs
  std::optional<std::string> md5_of_message_system_attributes;  // iff sys attrs
  std::optional<std::string> sequence_number;                   // FIFO only
};

struct SendMessageBatchEntry {
  std::string id;  // [A-Za-z0-9_-]{1,80}, distinct within the batch
  SendMessageRequest request;
};

// A failed batch entry (SQS BatchResultErrorEntry).
struct BatchResultError {
  std::string id;
  bool sender_fault = true;
  std::string code;  // query-protocol code, e.g. "InvalidParameterValue"
  std::string message;
};

struct SendMessageBatchResultEntry {
  std::string id;
  SendMessageResult result;
};

struct SendMessageBatchResult {
  std::vector<SendMessageBatchResultEntry> successful;
  std::vector<BatchResultError> failed;
};

// ---- Receiving ----------------------------------------------------------------

struct ReceiveMessageRequest {
  int max_number_of_messages = 1;         // 1..10
  std::optional<int> visibility_timeout;  // 0..43200; default: the queue's
  std::optional<int> wait_time_seconds;   // 0..20; default: the queue's
  // System attributes to return: "All" or names such as "SentTimestamp",
  // "ApproximateReceiveCount". (SQS's MessageSystemAttributeNames and the
  // deprecated AttributeNames, merged.) Unknown names are ignored.
  std::vector<std::string> message_system_attribute_names;
  // User attributes to return: "All", ".*", exact names, or "prefix.*".
  std::vector<std::string> message_attribute_names;
  // FIFO only: retry token (see SQS ReceiveRequestAttemptId).
  std::optional<std::string> receive_request_attempt_id;
};

struct ReceivedMessage {
  std::string message_id;
  std::string receipt_handle;
  std::string body;
  std::string md5_of_body;
  // Requested system attributes, e.g. {"SentTimestamp": "1767225600000"}.
  std::map<std::string, std::string> attributes;
  // Requested user attributes, and the MD5 of exactly that subset
  // (absent when the subset is empty).
  MessageAttributeMap message_attributes;
  std::optional<std::string> md5_of_message_attributes;
};

struct ReceiveMessageResult {
  std::vector<ReceivedMessage> messages;
};

// ---- Deleting and changing visibility ---------------------------------------

struct DeleteMessageBatchEntry {
  std::string id;
  std::string receipt_handle;
};

struct ChangeMessageVisibilityBatchEntry {
  std::string id;
  std::string receipt_handle;
  // Absent: the lease is left as it is.
  std::optional<int> visibility_timeout;
};

// Successful ids and failed entries of a delete or change-visibility batch.
struct BatchResult {
  std::vector<std::string> successful;
  std::vector<BatchResultError> failed;
};

// ---- Operations: stats and scans ------------------------------------------------

// A queue's counters. Gauges are exact at the moment of the call; totals
// count since the queue was created (purges count messages removed).
struct QueueStats {
  int64_t visible = 0;    // ApproximateNumberOfMessages
  int64_t in_flight = 0;  // ApproximateNumberOfMessagesNotVisible
  int64_t delayed = 0;    // ApproximateNumberOfMessagesDelayed
  // Seconds since the oldest message still in the queue was sent
  // (ApproximateAgeOfOldestMessage); 0 when the queue is empty.
  int64_t oldest_message_age_seconds = 0;
  int64_t sent_total = 0;
  int64_t received_total = 0;
  int64_t deleted_total = 0;
  int64_t moved_to_dlq_total = 0;
  int64_t expired_total = 0;
  int64_t purged_total = 0;
  int64_t redriven_total = 0;  // moved out by message move tasks
};

// A message as stored, for looking without leasing (peek) and export.
struct StoredMessage {
  std::string message_id;
  std::string body;
  MessageAttributeMap message_attributes;
  // System attributes: SentTimestamp, ApproximateReceiveCount (receives so
  // far), MessageGroupId, MessageDeduplicationId, SequenceNumber,
  // AWSTraceHeader, DeadLetterQueueSourceArn — those that apply.
  std::map<std::string, std::string> attributes;
  // "visible", "in_flight" or "delayed".
  std::string state;
  int64_t visible_at_ms = 0;  // when it becomes (or became) receivable
};

// ---- Listing ------------------------------------------------------------------

struct ListQueuesRequest {
  std::string queue_name_prefix;
  std::optional<int> max_results;  // 1..1000
  std::string next_token;
};

struct ListQueuesResult {
  std::vector<std::string> queue_names;  // name order
  std::string next_token;                // empty on the last page
};

// ---- Message move tasks (DLQ redrive) ---------------------------------------

struct StartMessageMoveTaskRequest {
  std::string source_arn;
  std::optional<std::string> destination_arn;
  std::optional<int> max_number_of_messages_per_second;  // 1..500
};

struct MessageMoveTask {
  std::string task_handle;  // set only while RUNNING
  std::string status;       // RUNNING COMPLETED CANCELLING CANCELLED FAILED
  std::string source_arn;
  std::optional<std::string> destination_arn;
  std::optional<int> max_number_of_messages_per_second;
  int64_t approximate_number_of_messages_moved = 0;
  int64_t approximate_number_of_messages_to_move = 0;
  std::optional<std::string> failure_reason;
  int64_t started_timestamp = 0;  // epoch milliseconds
};

}  // namespace lqs

#endif  // LQS_TYPES_H_
