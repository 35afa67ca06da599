// wire/sqs_codec.cc — see sqs_codec.h.

#include "wire/sqs_codec.h"

#include <cstdint>
#include <string>

namespace lqs::wire::codec {
namespace {

using lqs::ErrorCode;
using lqs::Status;

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

std::optional<std::string> OptStr(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// The array member `key` of `j`; an empty array when there is none.
const Json& ArrayMember(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

int64_t Int(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number()) return it->get<int64_t>();
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

void EncodeSendFields(const lqs::SendMessageRequest& r, Json& out) {
  out["MessageBody"] = r.body;
  if (r.delay_seconds) out["DelaySeconds"] = *r.delay_seconds;
  if (!r.message_attributes.empty()) {
    out["MessageAttributes"] = MessageAttributesJson(r.message_attributes);
  }
  if (!r.message_system_attributes.empty()) {
    out["MessageSystemAttributes"] = MessageAttributesJson(r.message_system_attributes);
  }
  if (r.message_group_id) out["MessageGroupId"] = *r.message_group_id;
  if (r.message_deduplication_id) out["MessageDeduplicationId"] = *r.message_deduplication_id;
}

lqs::BatchResultError DecodeFailed(const Json& e) {
  lqs::BatchResultError f;
  f.id = Str(e, "Id");
  auto it = e.find("SenderFault");
  f.sender_fault = it == e.end() || !it->is_boolean() || it->get<bool>();
  f.code = Str(e, "Code");
  f.message = Str(e, "Message");
  return f;
}

std::vector<lqs::BatchResultError> DecodeFailedList(const Json& j) {
  std::vector<lqs::BatchResultError> out;
  for (const auto& e : ArrayMember(j, "Failed")) out.push_back(DecodeFailed(e));
  return out;
}

constexpr ErrorCode kAllCodes[] = {ErrorCode::kInvalidParameterValue,
                                   ErrorCode::kMissingParameter,
                                   ErrorCode::kInvalidAttributeName,
                                   ErrorCode::kInvalidAttributeValue,
                                   ErrorCode::kQueueDoesNotExist,
                                   ErrorCode::kQueueNameExists,
                                   ErrorCode::kQueueDeletedRecently,
                                   ErrorCode::kPurgeQueueInProgress,
                                   ErrorCode::kReceiptHandleIsInvalid,
                                   ErrorCode::kInvalidMessageContents,
                                   ErrorCode::kEmptyBatchRequest,
                                   ErrorCode::kTooManyEntriesInBatchRequest,
                                   ErrorCode::kBatchEntryIdsNotDistinct,
                                   ErrorCode::kInvalidBatchEntryId,
                                   ErrorCode::kBatchRequestTooLong,
                                   ErrorCode::kOverLimit,
                                   ErrorCode::kResourceNotFound,
                                   ErrorCode::kUnsupportedOperation,
                                   ErrorCode::kMessageNotInflight,
                                   ErrorCode::kIOError,
                                   ErrorCode::kCorruption,
                                   ErrorCode::kDatabaseLocked,
                                   ErrorCode::kClosed,
                                   ErrorCode::kInternal,
                                   ErrorCode::kOverStorageBudget};

}  // namespace

lqs::StatusOr<lqs::MessageAttributeMap> DecodeMessageAttributes(const Json& json) {
  lqs::MessageAttributeMap out;
  if (json.is_null()) return out;
  if (!json.is_object()) {
    return Status(ErrorCode::kInvalidParameterValue, "MessageAttributes must be a JSON object");
  }
  for (const auto& [name, v] : json.items()) {
    if (!v.is_object() || !v.contains("DataType") || !v["DataType"].is_string()) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "message attribute " + name + " needs a string DataType");
    }
    lqs::MessageAttributeValue value;
    value.data_type = v["DataType"].get<std::string>();
    if (value.IsBinary()) {
      auto b = OptStr(v, "BinaryValue");
      auto bytes = b ? Base64Decode(*b) : std::nullopt;
      if (!bytes) {
        return Status(ErrorCode::kInvalidParameterValue,
                      "message attribute " + name + " needs a base64 BinaryValue");
      }
      value.binary_value = std::move(*bytes);
    } else {
      auto s = OptStr(v, "StringValue");
      if (!s) {
        return Status(ErrorCode::kInvalidParameterValue,
                      "message attribute " + name + " needs a string StringValue");
      }
      value.string_value = std::move(*s);
    }
    out[name] = std::move(value);
  }
  return out;
}

Json EncodeCreateQueue(const std::string& name, const lqs::AttributeMap& attributes,
                       const lqs::TagMap& tags) {
  Json out = Json::object();
  out["QueueName"] = name;
  if (!attributes.empty()) out["Attributes"] = StringMap(attributes);
  if (!tags.empty()) out["tags"] = StringMap(tags);  // lower-case in the model
  return out;
}

Json EncodeListQueues(const lqs::ListQueuesRequest& r) {
  Json out = Json::object();
  if (!r.queue_name_prefix.empty()) out["QueueNamePrefix"] = r.queue_name_prefix;
  if (r.max_results) out["MaxResults"] = *r.max_results;
  if (!r.next_token.empty()) out["NextToken"] = r.next_token;
  return out;
}

Json EncodeSendMessage(const std::string& queue_url, const lqs::SendMessageRequest& request) {
  Json out = Json::object();
  out["QueueUrl"] = queue_url;
  EncodeSendFields(request, out);
  return out;
}

namespace {

// A batch request: {"QueueUrl": queue_url, "Entries": [entry(e) for each e]}.
template <typename Entry, typename EncodeEntry>
Json EncodeBatch(const std::string& queue_url, const std::vector<Entry>& entries,
                 const EncodeEntry& entry) {
  Json out = Json::object();
  out["QueueUrl"] = queue_url;
  Json list = Json::array();
  for (const auto& e : entries) list.push_back(entry(e));
  out["Entries"] = std::move(list);
  return out;
}

}  // namespace

Json EncodeSendMessageBatch(const std::string& queue_url,
                            const std::vector<lqs::SendMessageBatchEntry>& entries) {
  return EncodeBatch(queue_url, entries, [](const lqs::SendMessageBatchEntry& e) {
    Json j = Json::object();
    j["Id"] = e.id;
    EncodeSendFields(e.request, j);
    return j;
  });
}

Json EncodeReceiveMessage(const std::string& queue_url, const lqs::ReceiveMessageRequest& r) {
  Json out = Json::object();
  out["QueueUrl"] = queue_url;
  if (!r.message_system_attribute_names.empty()) {
    out["MessageSystemAttributeNames"] = r.message_system_attribute_names;
  }
  if (!r.message_attribute_names.empty()) out["MessageAttributeNames"] = r.message_attribute_names;
  out["MaxNumberOfMessages"] = r.max_number_of_messages;
  if (r.wait_time_seconds) out["WaitTimeSeconds"] = *r.wait_time_seconds;
  if (r.visibility_timeout) out["VisibilityTimeout"] = *r.visibility_timeout;
  if (r.receive_request_attempt_id) out["ReceiveRequestAttemptId"] = *r.receive_request_attempt_id;
  return out;
}

Json EncodeDeleteMessageBatch(const std::string& queue_url,
                              const std::vector<lqs::DeleteMessageBatchEntry>& entries) {
  return EncodeBatch(queue_url, entries, [](const lqs::DeleteMessageBatchEntry& e) {
    return Json{{"Id", e.id}, {"ReceiptHandle", e.receipt_handle}};
  });
}

Json EncodeStartMessageMoveTask(const lqs::StartMessageMoveTaskRequest& r) {
  Json out = Json::object();
  out["SourceArn"] = r.source_arn;
  if (r.destination_arn) out["DestinationArn"] = *r.destination_arn;
  if (r.max_number_of_messages_per_second) {
    out["MaxNumberOfMessagesPerSecond"] = *r.max_number_of_messages_per_second;
  }
  return out;
}

std::string QueueNameFromUrl(const std::string& url) {
  std::string u = url;
  while (!u.empty() && u.back() == '/') u.pop_back();
  const size_t slash = u.rfind('/');
  return slash == std::string::npos ? u : u.substr(slash + 1);
}

Json StringMap(const std::map<std::string, std::string>& m) {
  Json out = Json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

std::map<std::string, std::string> DecodeStringMap(const Json& j, const char* key) {
  std::map<std::string, std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  return out;
}

lqs::ListQueuesResult DecodeListQueues(const Json& json, const char* member) {
  lqs::ListQueuesResult out;
  for (const auto& u : ArrayMember(json, member)) {
    if (u.is_string()) out.queue_names.push_back(QueueNameFromUrl(u.get<std::string>()));
  }
  out.next_token = Str(json, "NextToken");
  return out;
}

lqs::SendMessageResult DecodeSendMessageResult(const Json& j) {
  lqs::SendMessageResult r;
  r.message_id = Str(j, "MessageId");
  r.md5_of_message_body = Str(j, "MD5OfMessageBody");
  r.md5_of_message_attributes = OptStr(j, "MD5OfMessageAttributes");
  r.md5_of_message_system_attributes = OptStr(j, "MD5OfMessageSystemAttributes");
  r.sequence_number = OptStr(j, "SequenceNumber");
  return r;
}

lqs::SendMessageBatchResult DecodeSendMessageBatch(const Json& json) {
  lqs::SendMessageBatchResult out;
  for (const auto& e : ArrayMember(json, "Successful")) {
    out.successful.push_back({Str(e, "Id"), DecodeSendMessageResult(e)});
  }
  out.failed = DecodeFailedList(json);
  return out;
}

lqs::StatusOr<lqs::ReceiveMessageResult> DecodeReceiveMessage(const Json& json) {
  lqs::ReceiveMessageResult out;
  for (const auto& m : ArrayMember(json, "Messages")) {
    lqs::ReceivedMessage r;
    r.message_id = Str(m, "MessageId");
    r.receipt_handle = Str(m, "ReceiptHandle");
    r.body = Str(m, "Body");
    r.md5_of_body = Str(m, "MD5OfBody");
    r.attributes = DecodeStringMap(m, "Attributes");
    if (m.contains("MessageAttributes")) {
      auto attrs = DecodeMessageAttributes(m["MessageAttributes"]);
      if (!attrs.ok()) return attrs.status();
      r.message_attributes = std::move(*attrs);
    }
    r.md5_of_message_attributes = OptStr(m, "MD5OfMessageAttributes");
    out.messages.push_back(std::move(r));
  }
  return out;
}

lqs::BatchResult DecodeBatchResult(const Json& json) {
  lqs::BatchResult out;
  for (const auto& e : ArrayMember(json, "Successful")) out.successful.push_back(Str(e, "Id"));
  out.failed = DecodeFailedList(json);
  return out;
}

std::vector<lqs::MessageMoveTask> DecodeListMessageMoveTasks(const Json& json) {
  std::vector<lqs::MessageMoveTask> out;
  for (const auto& e : ArrayMember(json, "Results")) {
    lqs::MessageMoveTask t;
    t.task_handle = Str(e, "TaskHandle");
    t.status = Str(e, "Status");
    t.source_arn = Str(e, "SourceArn");
    t.destination_arn = OptStr(e, "DestinationArn");
    if (e.contains("MaxNumberOfMessagesPerSecond")) {
      t.max_number_of_messages_per_second =
          static_cast<int>(Int(e, "MaxNumberOfMessagesPerSecond"));
    }
    t.approximate_number_of_messages_moved = Int(e, "ApproximateNumberOfMessagesMoved");
    t.approximate_number_of_messages_to_move = Int(e, "ApproximateNumberOfMessagesToMove");
    t.failure_reason = OptStr(e, "FailureReason");
    t.started_timestamp = Int(e, "StartedTimestamp");
    out.push_back(std::move(t));
  }
  return out;
}

std::optional<ErrorCode> ErrorCodeFromName(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (ErrorCode c : kAllCodes) {
    if (lqs::ErrorCodeName(c) == name) return c;
  }
  for (ErrorCode c : kAllCodes) {
    const lqs::ErrorInfo& info = lqs::ErrorInfoFor(c);
    if (info.shape == name || info.query_code == name) return c;
  }
  // Unprefixed spellings of the AWS.SimpleQueueService.* codes.
  constexpr std::string_view kPrefix = "AWS.SimpleQueueService.";
  for (ErrorCode c : kAllCodes) {
    std::string_view q = lqs::ErrorInfoFor(c).query_code;
    if (q.substr(0, kPrefix.size()) == kPrefix && q.substr(kPrefix.size()) == name) return c;
  }
  if (name == "NonExistentQueue") return ErrorCode::kQueueDoesNotExist;
  return std::nullopt;
}

ErrorParts DecodeErrorParts(int http_status, const std::string& query_error_header,
                            const std::string& body) {
  ErrorParts out;
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    out.type = Str(j, "__type");
    out.message = Str(j, "message");
    if (out.message.empty()) out.message = Str(j, "Message");
  } else {
    out.message = body.substr(0, 200);
  }
  std::string& type = out.type;
  if (const size_t hash = type.find('#'); hash != std::string::npos) type = type.substr(hash + 1);
  if (const size_t colon = type.find(':'); colon != std::string::npos) type.resize(colon);
  out.query_code = query_error_header;
  if (const size_t semi = out.query_code.find(';'); semi != std::string::npos) {
    out.query_code.resize(semi);
  }
  out.code = !out.query_code.empty() ? out.query_code : out.type;
  if (out.code.empty()) out.code = "HTTP " + std::to_string(http_status);
  return out;
}

lqs::Status DecodeError(int http_status, const std::string& query_error_header,
                        const std::string& body, ErrorCode unknown_refusal) {
  const ErrorParts e = DecodeErrorParts(http_status, query_error_header, body);
  std::optional<ErrorCode> code = ErrorCodeFromName(e.query_code);
  if (!code) code = ErrorCodeFromName(e.type);
  if (code) return Status(*code, e.message);
  const bool refused = http_status >= 400 && http_status < 500 && e.code.rfind("HTTP ", 0) != 0;
  return Status(refused              ? unknown_refusal
                : http_status >= 500 ? ErrorCode::kIOError
                                     : ErrorCode::kInternal,
                e.code + (e.message.empty() ? "" : ": " + e.message));
}

}  // namespace lqs::wire::codec
