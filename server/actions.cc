// One handler per SQS action (see actions.h).

#include "server/actions.h"

#include <climits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "server/text_util.h"

#include "lqs/queue.h"

namespace lqsd {
namespace {

// Thrown inside handlers and caught in Actions::Run; never escapes this file.
struct ActionError {
  SqsError error;
};

[[noreturn]] void Fail(SqsError error) { throw ActionError{std::move(error)}; }

void Check(const lqs::Status& status) {
  if (!status.ok()) Fail(ErrorFromStatus(status));
}

template <typename T>
T Take(lqs::StatusOr<T> result) {
  if (!result.ok()) Fail(ErrorFromStatus(result.status()));
  return std::move(result).value();
}

// ---- Reading input members ---------------------------------------------------------

const Json* Member(const Json& params, const char* name) {
  if (!params.is_object()) return nullptr;
  const auto it = params.find(name);
  if (it == params.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void WrongType(const char* name, const char* expected) {
  Fail(SerializationError(std::string("Expected ") + expected + " for member " + name + "."));
}

std::optional<std::string> OptString(const Json& params, const char* name) {
  const Json* m = Member(params, name);
  if (m == nullptr) return std::nullopt;
  if (!m->is_string()) WrongType(name, "a string");
  return m->get<std::string>();
}

std::string ReqString(const Json& params, const char* name) {
  std::optional<std::string> value = OptString(params, name);
  if (!value.has_value()) Fail(MissingParameter(name));
  return std::move(*value);
}

// Integers: JSON numbers (JSON protocol) or decimal strings (the query
// protocol's decoder leaves a string when it is not a decimal integer).
std::optional<int> OptInt(const Json& params, const char* name) {
  const Json* m = Member(params, name);
  if (m == nullptr) return std::nullopt;
  std::string text;
  if (m->is_number_integer()) {
    if (m->is_number_unsigned()) {
      const auto v = m->get<unsigned long long>();
      if (v <= static_cast<unsigned long long>(INT_MAX)) return static_cast<int>(v);
      text = std::to_string(v);
    } else {
      const auto v = m->get<long long>();
      if (v >= INT_MIN && v <= INT_MAX) return static_cast<int>(v);
      text = std::to_string(v);
    }
  } else if (m->is_string()) {
    text = m->get<std::string>();
    if (const auto v = ParseInt64(text); v.has_value() && *v >= INT_MIN && *v <= INT_MAX) {
      return static_cast<int>(*v);
    }
  } else if (m->is_number_float()) {
    text = m->dump();
  } else {
    WrongType(name, "an integer");
  }
  Fail(InvalidParameterValue("Value " + SanitizeUtf8(text) + " for parameter " + name +
                             " is invalid. Reason: Must be an integer in the allowed range."));
}

std::vector<std::string> StringList(const Json& params, const char* name) {
  std::vector<std::string> out;
  const Json* m = Member(params, name);
  if (m == nullptr) return out;
  if (!m->is_array()) WrongType(name, "a list of strings");
  for (const Json& item : *m) {
    if (!item.is_string()) WrongType(name, "a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> StringMap(const Json& params, const char* name) {
  std::map<std::string, std::string> out;
  const Json* m = Member(params, name);
  if (m == nullptr) return out;
  if (!m->is_object()) WrongType(name, "a map of strings");
  for (const auto& [key, value] : m->items()) {
    if (!value.is_string()) WrongType(name, "a map of strings");
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

lqs::MessageAttributeMap AttributeValues(const Json& params, const char* name) {
  lqs::MessageAttributeMap out;
  const Json* m = Member(params, name);
  if (m == nullptr) return out;
  if (!m->is_object()) WrongType(name, "a map of MessageAttributeValue");
  for (const auto& [key, value] : m->items()) {
    if (!value.is_object()) WrongType(name, "a map of MessageAttributeValue");
    lqs::MessageAttributeValue v;
    v.data_type = OptString(value, "DataType").value_or("");
    v.string_value = OptString(value, "StringValue").value_or("");
    if (std::optional<std::string> b64 = OptString(value, "BinaryValue")) {
      std::optional<std::string> bytes = Base64Decode(*b64);
      if (!bytes.has_value()) {
        Fail(InvalidParameterValue("The BinaryValue of message attribute '" + SanitizeUtf8(key) +
                                   "' is not valid base64."));
      }
      v.binary_value = std::move(*bytes);
    }
    // StringListValues / BinaryListValues: "not implemented, reserved" in SQS.
    out.emplace(key, std::move(v));
  }
  return out;
}

std::vector<Json> Entries(const Json& params) {
  std::vector<Json> out;
  const Json* m = Member(params, "Entries");
  if (m == nullptr) return out;
  if (!m->is_array()) WrongType("Entries", "a list");
  for (const Json& item : *m) {
    if (!item.is_object()) WrongType("Entries", "a list of structures");
    out.push_back(item);
  }
  return out;
}

// ---- Writing output members ----------------------------------------------------------

Json AttributeValueJson(const lqs::MessageAttributeValue& v) {
  Json out = Json::object();
  if (v.IsBinary()) {
    out["BinaryValue"] = Base64Encode(v.binary_value);
  } else {
    out["StringValue"] = v.string_value;
  }
  out["DataType"] = v.data_type;
  return out;
}

void AddSendResult(Json& out, const lqs::SendMessageResult& r) {
  out["MessageId"] = r.message_id;
  out["MD5OfMessageBody"] = r.md5_of_message_body;
  if (r.md5_of_message_attributes) out["MD5OfMessageAttributes"] = *r.md5_of_message_attributes;
  if (r.md5_of_message_system_attributes) {
    out["MD5OfMessageSystemAttributes"] = *r.md5_of_message_system_attributes;
  }
  if (r.sequence_number) out["SequenceNumber"] = *r.sequence_number;
}

Json FailedEntries(const std::vector<lqs::BatchResultError>& failed) {
  Json out = Json::array();
  for (const auto& f : failed) {
    Json e = Json::object();
    e["Id"] = f.id;
    e["SenderFault"] = f.sender_fault;
    e["Code"] = f.code;
    e["Message"] = f.message;
    out.push_back(std::move(e));
  }
  return out;
}

Json BatchResultJson(const lqs::BatchResult& r) {
  Json out = Json::object();
  Json ok = Json::array();
  for (const auto& id : r.successful) ok.push_back(Json{{"Id", id}});
  out["Successful"] = std::move(ok);
  out["Failed"] = FailedEntries(r.failed);
  return out;
}

lqs::SendMessageRequest SendRequestFrom(const Json& p) {
  lqs::SendMessageRequest req;
  req.body = OptString(p, "MessageBody").value_or("");
  req.delay_seconds = OptInt(p, "DelaySeconds");
  req.message_attributes = AttributeValues(p, "MessageAttributes");
  req.message_system_attributes = AttributeValues(p, "MessageSystemAttributes");
  req.message_group_id = OptString(p, "MessageGroupId");
  req.message_deduplication_id = OptString(p, "MessageDeduplicationId");
  return req;
}

Json ReceiveOutput(const lqs::ReceiveMessageResult& result) {
  Json out = Json::object();
  if (result.messages.empty()) return out;  // "Messages" absent when none (§5.10)
  Json messages = Json::array();
  for (const auto& m : result.messages) {
    Json j = Json::object();
    j["MessageId"] = m.message_id;
    j["ReceiptHandle"] = m.receipt_handle;
    j["MD5OfBody"] = m.md5_of_body;
    j["Body"] = m.body;
    if (!m.attributes.empty()) {
      Json attrs = Json::object();
      for (const auto& [k, v] : m.attributes) attrs[k] = v;
      j["Attributes"] = std::move(attrs);
    }
    if (m.md5_of_message_attributes) j["MD5OfMessageAttributes"] = *m.md5_of_message_attributes;
    if (!m.message_attributes.empty()) {
      Json attrs = Json::object();
      for (const auto& [k, v] : m.message_attributes) attrs[k] = AttributeValueJson(v);
      j["MessageAttributes"] = std::move(attrs);
    }
    messages.push_back(std::move(j));
  }
  out["Messages"] = std::move(messages);
  return out;
}

}  // namespace

// ---- The action table --------------------------------------------------------------

struct Actions::Entry {
  std::string_view name;
  bool targets_queue;
  bool has_output;
  Handler handler;  // nullptr: special-cased (ReceiveMessage)
};

namespace {
using A = Actions;
}  // namespace

const Actions::Entry* Actions::Find(std::string_view action) {
  static const Entry kEntries[] = {
      {"CreateQueue", false, true, &A::CreateQueue},
      {"DeleteQueue", true, false, &A::DeleteQueue},
      {"GetQueueUrl", false, true, &A::GetQueueUrl},
      {"ListQueues", false, true, &A::ListQueues},
      {"GetQueueAttributes", true, true, &A::GetQueueAttributes},
      {"SetQueueAttributes", true, false, &A::SetQueueAttributes},
      {"PurgeQueue", true, false, &A::PurgeQueue},
      {"SendMessage", true, true, &A::SendMessage},
      {"SendMessageBatch", true, true, &A::SendMessageBatch},
      {"ReceiveMessage", true, true, nullptr},
      {"DeleteMessage", true, false, &A::DeleteMessage},
      {"DeleteMessageBatch", true, true, &A::DeleteMessageBatch},
      {"ChangeMessageVisibility", true, false, &A::ChangeMessageVisibility},
      {"ChangeMessageVisibilityBatch", true, true, &A::ChangeMessageVisibilityBatch},
      {"TagQueue", true, false, &A::TagQueue},
      {"UntagQueue", true, false, &A::UntagQueue},
      {"ListQueueTags", true, true, &A::ListQueueTags},
      {"AddPermission", true, false, &A::AddPermission},
      {"RemovePermission", true, false, &A::RemovePermission},
      {"ListDeadLetterSourceQueues", true, true, &A::ListDeadLetterSourceQueues},
      {"StartMessageMoveTask", false, true, &A::StartMessageMoveTask},
      {"CancelMessageMoveTask", false, true, &A::CancelMessageMoveTask},
      {"ListMessageMoveTasks", false, true, &A::ListMessageMoveTasks},
  };
  for (const Entry& e : kEntries) {
    if (e.name == action) return &e;
  }
  return nullptr;
}

bool Actions::IsKnown(std::string_view action) { return Find(action) != nullptr; }

bool Actions::TargetsQueue(std::string_view action) {
  const Entry* e = Find(action);
  return e != nullptr && e->targets_queue;
}

bool Actions::HasOutput(std::string_view action) {
  const Entry* e = Find(action);
  return e != nullptr && e->has_output;
}

Actions::Actions(lqs::Broker* broker, std::string account_id, std::function<void()> after_park)
    : broker_(broker), account_id_(std::move(account_id)), after_park_(std::move(after_park)) {}

std::string Actions::QueueUrl(const std::string& base_url, const std::string& name) const {
  return base_url + "/" + account_id_ + "/" + name;
}

void Actions::Run(ActionRequest request, ActionDone done) {
  std::optional<ActionResult> result;
  try {
    const Entry* entry = Find(request.action);
    if (entry == nullptr) {
      Fail(request.protocol == Protocol::kJson ? UnknownOperation(400)
                                               : InvalidAction(request.action));
    }
    if (entry->handler == nullptr) {
      ReceiveMessage(std::move(request), done);  // calls `done` itself (now or later)
      return;
    }
    Json output = (this->*(entry->handler))(request);
    result.emplace();
    result->output = std::move(output);
  } catch (const ActionError& e) {
    result.emplace();
    result->error = e.error;
  } catch (const std::exception& e) {
    result.emplace();
    result->error = InternalFailure(std::string("Internal error: ") + e.what());
  }
  if (result.has_value()) done(std::move(*result));
}

std::shared_ptr<lqs::Queue> Actions::ResolveQueue(const ActionRequest& r) {
  if (!r.queue_name.has_value()) Fail(MissingParameter("QueueUrl"));
  if (r.queue_name->empty()) Fail(NonExistentQueue());
  return Take(broker_->GetQueue(*r.queue_name));
}

// ---- Queues -------------------------------------------------------------------------

Json Actions::CreateQueue(const ActionRequest& r) {
  const std::string name = ReqString(r.params, "QueueName");
  const lqs::AttributeMap attributes = StringMap(r.params, "Attributes");
  // The JSON member is lower-case "tags" (sqs-api.md §5.1); accept "Tags" too.
  lqs::TagMap tags = StringMap(r.params, "tags");
  if (tags.empty()) tags = StringMap(r.params, "Tags");
  auto queue = Take(broker_->CreateQueue(name, attributes, tags));
  return Json{{"QueueUrl", QueueUrl(r.base_url, queue->name())}};
}

Json Actions::DeleteQueue(const ActionRequest& r) {
  if (!r.queue_name.has_value()) Fail(MissingParameter("QueueUrl"));
  if (r.queue_name->empty()) Fail(NonExistentQueue());
  Check(broker_->DeleteQueue(*r.queue_name));
  return Json::object();
}

Json Actions::GetQueueUrl(const ActionRequest& r) {
  const std::string name = ReqString(r.params, "QueueName");
  if (std::optional<std::string> owner = OptString(r.params, "QueueOwnerAWSAccountId")) {
    if (*owner != account_id_) Fail(NonExistentQueue());
  }
  auto queue = Take(broker_->GetQueue(name));
  return Json{{"QueueUrl", QueueUrl(r.base_url, queue->name())}};
}

Json Actions::ListQueues(const ActionRequest& r) {
  lqs::ListQueuesRequest req;
  req.queue_name_prefix = OptString(r.params, "QueueNamePrefix").value_or("");
  req.max_results = OptInt(r.params, "MaxResults");
  req.next_token = OptString(r.params, "NextToken").value_or("");
  const lqs::ListQueuesResult result = Take(broker_->ListQueues(req));
  Json out = Json::object();
  if (!result.queue_names.empty()) {
    Json urls = Json::array();
    for (const auto& name : result.queue_names) urls.push_back(QueueUrl(r.base_url, name));
    out["QueueUrls"] = std::move(urls);
  }
  if (!result.next_token.empty()) out["NextToken"] = result.next_token;
  return out;
}

Json Actions::GetQueueAttributes(const ActionRequest& r) {
  const std::vector<std::string> names = StringList(r.params, "AttributeNames");
  auto queue = ResolveQueue(r);
  const lqs::AttributeMap attributes = Take(queue->GetAttributes(names));
  Json out = Json::object();
  if (!attributes.empty()) {
    Json attrs = Json::object();
    for (const auto& [k, v] : attributes) attrs[k] = v;
    out["Attributes"] = std::move(attrs);
  }
  return out;
}

Json Actions::SetQueueAttributes(const ActionRequest& r) {
  if (Member(r.params, "Attributes") == nullptr) Fail(MissingParameter("Attributes"));
  const lqs::AttributeMap attributes = StringMap(r.params, "Attributes");
  auto queue = ResolveQueue(r);
  Check(queue->SetAttributes(attributes));
  return Json::object();
}

Json Actions::PurgeQueue(const ActionRequest& r) {
  auto queue = ResolveQueue(r);
  Check(queue->PurgeQueue());
  return Json::object();
}

// ---- Messages -----------------------------------------------------------------------

Json Actions::SendMessage(const ActionRequest& r) {
  if (Member(r.params, "MessageBody") == nullptr) Fail(MissingParameter("MessageBody"));
  lqs::SendMessageRequest req = SendRequestFrom(r.params);
  // An X-Amzn-Trace-Id header populates AWSTraceHeader (sqs-api.md §4.4).
  if (!r.trace_header.empty() && req.message_system_attributes.count("AWSTraceHeader") == 0) {
    lqs::MessageAttributeValue v;
    v.data_type = "String";
    v.string_value = r.trace_header;
    req.message_system_attributes.emplace("AWSTraceHeader", std::move(v));
  }
  auto queue = ResolveQueue(r);
  const lqs::SendMessageResult result = Take(queue->SendMessage(req));
  Json out = Json::object();
  out["MD5OfMessageBody"] = result.md5_of_message_body;
  if (result.md5_of_message_attributes) {
    out["MD5OfMessageAttributes"] = *result.md5_of_message_attributes;
  }
  if (result.md5_of_message_system_attributes) {
    out["MD5OfMessageSystemAttributes"] = *result.md5_of_message_system_attributes;
  }
  out["MessageId"] = result.message_id;
  if (result.sequence_number) out["SequenceNumber"] = *result.sequence_number;
  return out;
}

Json Actions::SendMessageBatch(const ActionRequest& r) {
  std::vector<lqs::SendMessageBatchEntry> entries;
  for (const Json& e : Entries(r.params)) {
    lqs::SendMessageBatchEntry entry;
    entry.id = OptString(e, "Id").value_or("");
    entry.request = SendRequestFrom(e);
    entries.push_back(std::move(entry));
  }
  auto queue = ResolveQueue(r);
  const lqs::SendMessageBatchResult result = Take(queue->SendMessageBatch(entries));
  Json out = Json::object();
  Json ok = Json::array();
  for (const auto& s : result.successful) {
    Json e = Json::object();
    e["Id"] = s.id;
    AddSendResult(e, s.result);
    ok.push_back(std::move(e));
  }
  out["Successful"] = std::move(ok);
  out["Failed"] = FailedEntries(result.failed);
  return out;
}

void Actions::ReceiveMessage(ActionRequest r, ActionDone done) {
  lqs::ReceiveMessageRequest req;
  req.max_number_of_messages = OptInt(r.params, "MaxNumberOfMessages").value_or(1);
  req.visibility_timeout = OptInt(r.params, "VisibilityTimeout");
  req.wait_time_seconds = OptInt(r.params, "WaitTimeSeconds");
  // The deprecated AttributeNames and MessageSystemAttributeNames: a union.
  req.message_system_attribute_names = StringList(r.params, "AttributeNames");
  for (auto& n : StringList(r.params, "MessageSystemAttributeNames")) {
    req.message_system_attribute_names.push_back(std::move(n));
  }
  req.message_attribute_names = StringList(r.params, "MessageAttributeNames");
  req.receive_request_attempt_id = OptString(r.params, "ReceiveRequestAttemptId");
  auto queue = ResolveQueue(r);

  // The callback runs on the caller's thread (answer known at once) or on the
  // Broker's receiver thread; either way it only hands the result over.
  Poster post = r.post;
  auto finish = [this, done](const lqs::StatusOr<lqs::ReceiveMessageResult>& result) {
    ActionResult out;
    if (result.ok()) {
      out.output = ReceiveOutput(*result);
    } else if (result.status().code() == lqs::ErrorCode::kClosed && stopping_.load()) {
      out.output = Json::object();  // shutting down: the wait ends with no messages
    } else {
      out.error = ErrorFromStatus(result.status());
    }
    done(std::move(out));
  };
  auto answered = std::make_shared<std::atomic<bool>>(false);
  queue->ReceiveMessageAsync(
      req, [post, finish, answered](lqs::StatusOr<lqs::ReceiveMessageResult> result) {
        answered->store(true);
        if (post) {
          post([finish, result = std::move(result)]() { finish(result); });
        } else {
          finish(result);
        }
      });
  if (!answered->load() && after_park_) after_park_();  // it parked
}

Json Actions::DeleteMessage(const ActionRequest& r) {
  const std::string handle = ReqString(r.params, "ReceiptHandle");
  auto queue = ResolveQueue(r);
  Check(queue->DeleteMessage(handle));
  return Json::object();
}

Json Actions::DeleteMessageBatch(const ActionRequest& r) {
  std::vector<lqs::DeleteMessageBatchEntry> entries;
  for (const Json& e : Entries(r.params)) {
    lqs::DeleteMessageBatchEntry entry;
    entry.id = OptString(e, "Id").value_or("");
    entry.receipt_handle = OptString(e, "ReceiptHandle").value_or("");
    entries.push_back(std::move(entry));
  }
  auto queue = ResolveQueue(r);
  return BatchResultJson(Take(queue->DeleteMessageBatch(entries)));
}

Json Actions::ChangeMessageVisibility(const ActionRequest& r) {
  const std::string handle = ReqString(r.params, "ReceiptHandle");
  const std::optional<int> timeout = OptInt(r.params, "VisibilityTimeout");
  if (!timeout.has_value()) Fail(MissingParameter("VisibilityTimeout"));
  auto queue = ResolveQueue(r);
  Check(queue->ChangeMessageVisibility(handle, *timeout));
  return Json::object();
}

Json Actions::ChangeMessageVisibilityBatch(const ActionRequest& r) {
  std::vector<lqs::ChangeMessageVisibilityBatchEntry> entries;
  for (const Json& e : Entries(r.params)) {
    lqs::ChangeMessageVisibilityBatchEntry entry;
    entry.id = OptString(e, "Id").value_or("");
    entry.receipt_handle = OptString(e, "ReceiptHandle").value_or("");
    entry.visibility_timeout = OptInt(e, "VisibilityTimeout");
    entries.push_back(std::move(entry));
  }
  auto queue = ResolveQueue(r);
  return BatchResultJson(Take(queue->ChangeMessageVisibilityBatch(entries)));
}

// ---- Tags and permissions -------------------------------------------------------------

Json Actions::TagQueue(const ActionRequest& r) {
  const lqs::TagMap tags = StringMap(r.params, "Tags");
  if (tags.empty()) Fail(MissingParameter("Tags"));
  auto queue = ResolveQueue(r);
  Check(queue->TagQueue(tags));
  return Json::object();
}

Json Actions::UntagQueue(const ActionRequest& r) {
  const std::vector<std::string> keys = StringList(r.params, "TagKeys");
  if (keys.empty()) Fail(MissingParameter("TagKeys"));
  auto queue = ResolveQueue(r);
  Check(queue->UntagQueue(keys));
  return Json::object();
}

Json Actions::ListQueueTags(const ActionRequest& r) {
  auto queue = ResolveQueue(r);
  const lqs::TagMap tags = Take(queue->ListQueueTags());
  Json out = Json::object();
  if (!tags.empty()) {  // "Tags" absent when the queue has none (§5.17)
    Json t = Json::object();
    for (const auto& [k, v] : tags) t[k] = v;
    out["Tags"] = std::move(t);
  }
  return out;
}

Json Actions::AddPermission(const ActionRequest& r) {
  const std::string label = ReqString(r.params, "Label");
  const std::vector<std::string> accounts = StringList(r.params, "AWSAccountIds");
  if (accounts.empty()) Fail(MissingParameter("AWSAccountIds"));
  const std::vector<std::string> actions = StringList(r.params, "Actions");
  if (actions.empty()) Fail(MissingParameter("Actions"));
  auto queue = ResolveQueue(r);
  Check(queue->AddPermission(label, accounts, actions));
  return Json::object();
}

Json Actions::RemovePermission(const ActionRequest& r) {
  const std::string label = ReqString(r.params, "Label");
  auto queue = ResolveQueue(r);
  Check(queue->RemovePermission(label));
  return Json::object();
}

// ---- Dead-letter queues and move tasks -------------------------------------------------

Json Actions::ListDeadLetterSourceQueues(const ActionRequest& r) {
  lqs::ListQueuesRequest req;
  req.max_results = OptInt(r.params, "MaxResults");
  req.next_token = OptString(r.params, "NextToken").value_or("");
  auto queue = ResolveQueue(r);
  const lqs::ListQueuesResult result =
      Take(broker_->ListDeadLetterSourceQueues(queue->name(), req));
  Json out = Json::object();
  Json urls = Json::array();  // a required member: always present, lower-case q (§5.20)
  for (const auto& name : result.queue_names) urls.push_back(QueueUrl(r.base_url, name));
  out["queueUrls"] = std::move(urls);
  if (!result.next_token.empty()) out["NextToken"] = result.next_token;
  return out;
}

Json Actions::StartMessageMoveTask(const ActionRequest& r) {
  lqs::StartMessageMoveTaskRequest req;
  req.source_arn = ReqString(r.params, "SourceArn");
  req.destination_arn = OptString(r.params, "DestinationArn");
  req.max_number_of_messages_per_second = OptInt(r.params, "MaxNumberOfMessagesPerSecond");
  const std::string handle = Take(broker_->StartMessageMoveTask(req));
  return Json{{"TaskHandle", handle}};
}

Json Actions::CancelMessageMoveTask(const ActionRequest& r) {
  const std::string handle = ReqString(r.params, "TaskHandle");
  const int64_t moved = Take(broker_->CancelMessageMoveTask(handle));
  return Json{{"ApproximateNumberOfMessagesMoved", moved}};
}

Json Actions::ListMessageMoveTasks(const ActionRequest& r) {
  const std::string source = ReqString(r.params, "SourceArn");
  const int max_results = OptInt(r.params, "MaxResults").value_or(1);
  const std::vector<lqs::MessageMoveTask> tasks =
      Take(broker_->ListMessageMoveTasks(source, max_results));
  Json results = Json::array();
  for (const auto& t : tasks) {
    Json e = Json::object();
    if (!t.task_handle.empty()) e["TaskHandle"] = t.task_handle;
    e["Status"] = t.status;
    e["SourceArn"] = t.source_arn;
    if (t.destination_arn) e["DestinationArn"] = *t.destination_arn;
    if (t.max_number_of_messages_per_second) {
      e["MaxNumberOfMessagesPerSecond"] = *t.max_number_of_messages_per_second;
    }
    e["ApproximateNumberOfMessagesMoved"] = t.approximate_number_of_messages_moved;
    e["ApproximateNumberOfMessagesToMove"] = t.approximate_number_of_messages_to_move;
    if (t.failure_reason) e["FailureReason"] = *t.failure_reason;
    e["StartedTimestamp"] = t.started_timestamp;
    results.push_back(std::move(e));
  }
  return Json{{"Results", std::move(results)}};
}

}  // namespace lqsd
