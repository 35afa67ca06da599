// One handler per SQS action (see actions.h).

#include "server/actions.h"

#include <climits>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "server/sqs_json.h"
#include "server/text_util.h"
#include "wire/message_json.h"
#include "wire/move_task_json.h"

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

Json* MutableMember(Json& params, const char* name) {
  return const_cast<Json*>(Member(params, name));
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

// OptString and ReqString for handlers that own their request: the text is
// moved out of `params` (same checks, same errors).
std::optional<std::string> TakeString(Json& params, const char* name) {
  Json* m = MutableMember(params, name);
  if (m == nullptr) return std::nullopt;
  if (!m->is_string()) WrongType(name, "a string");
  return std::move(m->get_ref<std::string&>());
}

std::string TakeReqString(Json& params, const char* name) {
  std::optional<std::string> value = TakeString(params, name);
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

// (Moves the texts out of `params`.)
lqs::MessageAttributeMap TakeAttributeValues(Json& params, const char* name) {
  lqs::MessageAttributeMap out;
  Json* m = MutableMember(params, name);
  if (m == nullptr) return out;
  if (!m->is_object()) WrongType(name, "a map of MessageAttributeValue");
  for (auto& [key, value] : m->get_ref<Json::object_t&>()) {
    if (!value.is_object()) WrongType(name, "a map of MessageAttributeValue");
    lqs::MessageAttributeValue v;
    v.data_type = TakeString(value, "DataType").value_or("");
    v.string_value = TakeString(value, "StringValue").value_or("");
    if (std::optional<std::string> b64 = TakeString(value, "BinaryValue")) {
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

// The batch actions' "Entries": absent -> none; each entry (a structure) is
// read by `parse` (which may move texts out of it), which returns the Entry.
template <typename Entry, typename Parse>
std::vector<Entry> Entries(Json& params, Parse&& parse) {
  std::vector<Entry> out;
  Json* list = MutableMember(params, "Entries");
  if (list == nullptr) return out;
  if (!list->is_array()) WrongType("Entries", "a list");
  out.reserve(list->size());
  for (Json& item : *list) {
    if (!item.is_object()) WrongType("Entries", "a list of structures");
    out.push_back(parse(item));
  }
  return out;
}

// ---- Writing output members ----------------------------------------------------------

// The optional digests of a send, in the order both send actions give them.
void AddSendDigests(Json& out, const lqs::SendMessageResult& r) {
  if (r.md5_of_message_attributes) out["MD5OfMessageAttributes"] = *r.md5_of_message_attributes;
  if (r.md5_of_message_system_attributes) {
    out["MD5OfMessageSystemAttributes"] = *r.md5_of_message_system_attributes;
  }
}

void AddSendResult(Json& out, const lqs::SendMessageResult& r) {
  out["MessageId"] = r.message_id;
  out["MD5OfMessageBody"] = r.md5_of_message_body;
  AddSendDigests(out, r);
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

// ---- The same outputs written straight to JSON text (see ActionResult::json_body) ----
// Each writer gives the bytes EncodeResult would give for the Json above.

// `open`, then each of `items` written by `write` with ',' between, then
// `close`: a JSON array ('[', ']') or object ('{', '}').
template <typename Range, typename Write>
void AppendEach(std::string* b, char open, const Range& items, char close, Write&& write) {
  b->push_back(open);
  bool first = true;
  for (const auto& item : items) {
    if (!first) b->push_back(',');
    first = false;
    write(item);
  }
  b->push_back(close);
}

// `,"key":"value"` when `value` is set; nothing otherwise.
void AppendOptMember(std::string* b, std::string_view key,
                     const std::optional<std::string>& value) {
  if (!value) return;
  b->push_back(',');
  sqs_json::AppendMember(b, key, *value);
}

// A map of strings as a JSON object.
void AppendStringMap(std::string* b, const std::map<std::string, std::string>& map) {
  AppendEach(b, '{', map, '}', [b](const auto& kv) {
    sqs_json::AppendString(b, kv.first);
    b->push_back(':');
    sqs_json::AppendString(b, kv.second);
  });
}

// wire::MessageAttributeValueJson as text.
void AppendAttributeValueJson(std::string* b, const lqs::MessageAttributeValue& v) {
  b->push_back('{');
  if (v.IsBinary()) {
    sqs_json::AppendMember(b, "BinaryValue", Base64Encode(v.binary_value));
  } else {
    sqs_json::AppendMember(b, "StringValue", v.string_value);
  }
  b->push_back(',');
  sqs_json::AppendMember(b, "DataType", v.data_type);
  b->push_back('}');
}

// AddSendDigests as text (each member preceded by ',').
void AppendSendDigests(std::string* b, const lqs::SendMessageResult& r) {
  AppendOptMember(b, "MD5OfMessageAttributes", r.md5_of_message_attributes);
  AppendOptMember(b, "MD5OfMessageSystemAttributes", r.md5_of_message_system_attributes);
}

// ',' unless `b` has only just opened its object.
void AppendSeparator(std::string* b) {
  if (b->back() != '{') b->push_back(',');
}

// `"Failed":[...]` (after a separator), nothing when there are none.
void AppendFailedJson(std::string* b, const std::vector<lqs::BatchResultError>& failed) {
  if (failed.empty()) return;
  AppendSeparator(b);
  sqs_json::AppendKey(b, "Failed");
  AppendEach(b, '[', failed, ']', [b](const lqs::BatchResultError& f) {
    b->push_back('{');
    sqs_json::AppendMember(b, "Id", f.id);
    b->push_back(',');
    sqs_json::AppendKey(b, "SenderFault");
    b->append(f.sender_fault ? "true" : "false");
    b->push_back(',');
    sqs_json::AppendMember(b, "Code", f.code);
    b->push_back(',');
    sqs_json::AppendMember(b, "Message", f.message);
    b->push_back('}');
  });
}

// (Moves the texts out of `p`.)
lqs::SendMessageRequest TakeSendRequest(Json& p) {
  lqs::SendMessageRequest req;
  req.body = TakeString(p, "MessageBody").value_or("");
  req.delay_seconds = OptInt(p, "DelaySeconds");
  req.message_attributes = TakeAttributeValues(p, "MessageAttributes");
  req.message_system_attributes = TakeAttributeValues(p, "MessageSystemAttributes");
  req.message_group_id = TakeString(p, "MessageGroupId");
  req.message_deduplication_id = TakeString(p, "MessageDeduplicationId");
  return req;
}

std::vector<lqs::SendMessageBatchEntry> TakeSendBatchEntries(Json& params) {
  return Entries<lqs::SendMessageBatchEntry>(params, [](Json& e) {
    lqs::SendMessageBatchEntry entry;
    entry.id = TakeString(e, "Id").value_or("");
    entry.request = TakeSendRequest(e);
    return entry;
  });
}

}  // namespace

Json ReceiveMessageOutput(const lqs::ReceiveMessageResult& result) {
  Json out = Json::object();
  if (result.messages.empty()) return out;  // "Messages" absent when none (§6.5)
  Json messages = Json::array();
  messages.get_ref<Json::array_t&>().reserve(result.messages.size());
  for (const lqs::ReceivedMessage& m : result.messages) {
    messages.push_back(lqs::wire::ReceivedMessageJson(m));
  }
  out["Messages"] = std::move(messages);
  return out;
}

std::string ReceiveMessageOutputJson(const lqs::ReceiveMessageResult& result) {
  if (result.messages.empty()) return "{}";  // "Messages" absent when none (§6.5)
  // Room for the whole answer when nothing needs escaping: one allocation.
  size_t size = 16;
  for (const lqs::ReceivedMessage& m : result.messages) {
    size +=
        96 + m.message_id.size() + m.receipt_handle.size() + m.md5_of_body.size() + m.body.size();
    for (const auto& [k, v] : m.attributes) size += 6 + k.size() + v.size();
    if (m.md5_of_message_attributes) size += 30 + m.md5_of_message_attributes->size();
    for (const auto& [k, v] : m.message_attributes) {
      size += 48 + k.size() + v.data_type.size() +
              (v.IsBinary() ? (v.binary_value.size() + 2) / 3 * 4 : v.string_value.size());
    }
  }
  std::string b;
  b.reserve(size);
  b.append("{\"Messages\":");
  AppendEach(&b, '[', result.messages, ']', [&b](const lqs::ReceivedMessage& m) {
    b.push_back('{');
    sqs_json::AppendMember(&b, "MessageId", m.message_id);
    b.push_back(',');
    sqs_json::AppendMember(&b, "ReceiptHandle", m.receipt_handle);
    b.push_back(',');
    sqs_json::AppendMember(&b, "MD5OfBody", m.md5_of_body);
    b.push_back(',');
    sqs_json::AppendMember(&b, "Body", m.body);
    if (!m.attributes.empty()) {
      b.push_back(',');
      sqs_json::AppendKey(&b, "Attributes");
      AppendStringMap(&b, m.attributes);
    }
    AppendOptMember(&b, "MD5OfMessageAttributes", m.md5_of_message_attributes);
    if (!m.message_attributes.empty()) {
      b.push_back(',');
      sqs_json::AppendKey(&b, "MessageAttributes");
      AppendEach(&b, '{', m.message_attributes, '}', [&b](const auto& kv) {
        sqs_json::AppendString(&b, kv.first);
        b.push_back(':');
        AppendAttributeValueJson(&b, kv.second);
      });
    }
    b.push_back('}');
  });
  b.push_back('}');
  return b;
}

Json SendMessageBatchOutput(const lqs::SendMessageBatchResult& result) {
  Json ok = Json::array();
  for (const auto& sr : result.successful) {
    Json e = Json::object();
    e["Id"] = sr.id;
    AddSendResult(e, sr.result);
    ok.push_back(std::move(e));
  }
  Json out = Json::object();
  out["Successful"] = std::move(ok);
  out["Failed"] = FailedEntries(result.failed);
  return out;
}

std::string SendMessageBatchOutputJson(const lqs::SendMessageBatchResult& result) {
  std::string b;
  b.reserve(64 + 160 * result.successful.size());
  b.push_back('{');
  if (!result.successful.empty()) {
    sqs_json::AppendKey(&b, "Successful");
    AppendEach(&b, '[', result.successful, ']', [&b](const lqs::SendMessageBatchResultEntry& ok) {
      const lqs::SendMessageResult& sr = ok.result;
      b.push_back('{');
      sqs_json::AppendMember(&b, "Id", ok.id);
      b.push_back(',');
      sqs_json::AppendMember(&b, "MessageId", sr.message_id);
      b.push_back(',');
      sqs_json::AppendMember(&b, "MD5OfMessageBody", sr.md5_of_message_body);
      AppendSendDigests(&b, sr);
      AppendOptMember(&b, "SequenceNumber", sr.sequence_number);
      b.push_back('}');
    });
  }
  AppendFailedJson(&b, result.failed);
  b.push_back('}');
  return b;
}

Json BatchResultOutput(const lqs::BatchResult& result) {
  Json ok = Json::array();
  for (const auto& id : result.successful) ok.push_back(Json{{"Id", id}});
  Json out = Json::object();
  out["Successful"] = std::move(ok);
  out["Failed"] = FailedEntries(result.failed);
  return out;
}

std::string BatchResultOutputJson(const lqs::BatchResult& result) {
  std::string b;
  b.reserve(64 + 24 * result.successful.size());
  b.push_back('{');
  if (!result.successful.empty()) {
    sqs_json::AppendKey(&b, "Successful");
    AppendEach(&b, '[', result.successful, ']', [&b](const std::string& id) {
      b.push_back('{');
      sqs_json::AppendMember(&b, "Id", id);
      b.push_back('}');
    });
  }
  AppendFailedJson(&b, result.failed);
  b.push_back('}');
  return b;
}

std::optional<std::vector<lqs::SendMessageBatchEntry>> SendBatchEntriesFromParams(Json& params) {
  try {
    return TakeSendBatchEntries(params);
  } catch (const ActionError&) {
    return std::nullopt;
  }
}

// ---- The action table --------------------------------------------------------------

struct Actions::Entry {
  std::string_view name;
  bool targets_queue;
  bool has_output;
  Handler handler;  // nullptr: `fast`, or special-cased (ReceiveMessage)
  FastHandler fast = nullptr;
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
      {"SendMessage", true, true, nullptr, &A::SendMessage},
      {"SendMessageBatch", true, true, nullptr, &A::SendMessageBatch},
      {"ReceiveMessage", true, true, nullptr},
      {"DeleteMessage", true, false, nullptr, &A::DeleteMessage},
      {"DeleteMessageBatch", true, true, nullptr, &A::DeleteMessageBatch},
      {"ChangeMessageVisibility", true, false, nullptr, &A::ChangeMessageVisibility},
      {"ChangeMessageVisibilityBatch", true, true, nullptr, &A::ChangeMessageVisibilityBatch},
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

Actions::Actions(std::string account_id, std::function<void()> after_park)
    : account_id_(std::move(account_id)), after_park_(std::move(after_park)) {}

std::string Actions::QueueUrl(const ActionRequest& request, const std::string& name) {
  return request.queue_url_prefix + "/" + name;
}

void Actions::Run(ActionRequest request, ActionDone done) {
  std::optional<ActionResult> result;
  try {
    const Entry* entry = Find(request.action);
    if (entry == nullptr) {
      Fail(request.protocol == Protocol::kJson ? UnknownOperation(400)
                                               : InvalidAction(request.action));
    }
    if (entry->fast != nullptr) {
      result.emplace();
      (this->*(entry->fast))(request, &*result);
    } else if (entry->handler == nullptr) {
      ReceiveMessage(std::move(request), done);  // calls `done` itself (now or later)
      return;
    } else {
      Json output = (this->*(entry->handler))(request);
      result.emplace();
      result->output = std::move(output);
    }
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
  return Take(r.broker->GetQueue(*r.queue_name));
}

// ---- Queues -------------------------------------------------------------------------

Json Actions::CreateQueue(const ActionRequest& r) {
  const std::string name = ReqString(r.params, "QueueName");
  const lqs::AttributeMap attributes = StringMap(r.params, "Attributes");
  // The JSON member is lower-case "tags" (docs/sqs-reference.md §6.1); accept "Tags" too.
  lqs::TagMap tags = StringMap(r.params, "tags");
  if (tags.empty()) tags = StringMap(r.params, "Tags");
  auto queue = Take(r.broker->CreateQueue(name, attributes, tags));
  return Json{{"QueueUrl", QueueUrl(r, queue->name())}};
}

Json Actions::DeleteQueue(const ActionRequest& r) {
  if (!r.queue_name.has_value()) Fail(MissingParameter("QueueUrl"));
  if (r.queue_name->empty()) Fail(NonExistentQueue());
  Check(r.broker->DeleteQueue(*r.queue_name));
  return Json::object();
}

Json Actions::GetQueueUrl(const ActionRequest& r) {
  const std::string name = ReqString(r.params, "QueueName");
  if (std::optional<std::string> owner = OptString(r.params, "QueueOwnerAWSAccountId")) {
    if (*owner != account_id_) Fail(NonExistentQueue());
  }
  auto queue = Take(r.broker->GetQueue(name));
  return Json{{"QueueUrl", QueueUrl(r, queue->name())}};
}

Json Actions::ListQueues(const ActionRequest& r) {
  lqs::ListQueuesRequest req;
  req.queue_name_prefix = OptString(r.params, "QueueNamePrefix").value_or("");
  req.max_results = OptInt(r.params, "MaxResults");
  req.next_token = OptString(r.params, "NextToken").value_or("");
  const lqs::ListQueuesResult result = Take(r.broker->ListQueues(req));
  Json out = Json::object();
  if (!result.queue_names.empty()) {
    Json urls = Json::array();
    for (const auto& name : result.queue_names) urls.push_back(QueueUrl(r, name));
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

void Actions::SendMessage(ActionRequest& r, ActionResult* out) {
  if (Member(r.params, "MessageBody") == nullptr) Fail(MissingParameter("MessageBody"));
  lqs::SendMessageRequest req = TakeSendRequest(r.params);
  // An X-Amzn-Trace-Id header populates AWSTraceHeader (docs/sqs-reference.md §5.3).
  if (!r.trace_header.empty() && req.message_system_attributes.count("AWSTraceHeader") == 0) {
    lqs::MessageAttributeValue v;
    v.data_type = "String";
    v.string_value = r.trace_header;
    req.message_system_attributes.emplace("AWSTraceHeader", std::move(v));
  }
  auto queue = ResolveQueue(r);
  const lqs::SendMessageResult result = Take(queue->SendMessage(req));
  if (r.protocol == Protocol::kJson) {
    std::string& b = out->json_body;
    b.reserve(160);
    b.push_back('{');
    sqs_json::AppendMember(&b, "MD5OfMessageBody", result.md5_of_message_body);
    AppendSendDigests(&b, result);
    b.push_back(',');
    sqs_json::AppendMember(&b, "MessageId", result.message_id);
    AppendOptMember(&b, "SequenceNumber", result.sequence_number);
    b.push_back('}');
    return;
  }
  Json& o = out->output;
  o["MD5OfMessageBody"] = result.md5_of_message_body;
  AddSendDigests(o, result);
  o["MessageId"] = result.message_id;
  if (result.sequence_number) o["SequenceNumber"] = *result.sequence_number;
}

void Actions::SendMessageBatch(ActionRequest& r, ActionResult* out) {
  const auto entries = r.send_batch_entries.has_value() ? std::move(*r.send_batch_entries)
                                                        : TakeSendBatchEntries(r.params);
  auto queue = ResolveQueue(r);
  const lqs::SendMessageBatchResult result = Take(queue->SendMessageBatch(entries));
  if (r.protocol == Protocol::kJson) {
    out->json_body = SendMessageBatchOutputJson(result);
    return;
  }
  out->output = SendMessageBatchOutput(result);
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

  // The callback runs on this thread (answer known at once: the response is
  // built right here) or on the Broker's receiver thread (it only hands the
  // result to the connection's executor).
  Poster post = r.post;
  auto finish = [this, done, json = r.protocol == Protocol::kJson](
                    lqs::StatusOr<lqs::ReceiveMessageResult> result) {
    ActionResult out;
    if (result.ok() && json) {
      out.json_body = ReceiveMessageOutputJson(*result);
    } else if (result.ok()) {
      out.output = ReceiveMessageOutput(*result);
    } else if (result.status().code() == lqs::ErrorCode::kClosed && stopping_.load()) {
      out.output = Json::object();  // shutting down: the wait ends with no messages
    } else {
      out.error = ErrorFromStatus(result.status());
    }
    done(std::move(out));
  };
  struct CallState {
    std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> in_call{true};  // ReceiveMessageAsync has not returned yet
    std::atomic<bool> answered{false};
  };
  auto call = std::make_shared<CallState>();
  const uint64_t receive_id = queue->ReceiveMessageAsync(
      req, [post, finish, call](lqs::StatusOr<lqs::ReceiveMessageResult> result) {
        call->answered.store(true);
        if (!post || (call->in_call.load() && std::this_thread::get_id() == call->caller)) {
          finish(std::move(result));
        } else {
          post([finish, result = std::move(result)]() mutable { finish(std::move(result)); });
        }
      });
  call->in_call.store(false);
  if (receive_id != 0 && !call->answered.load()) {  // it parked
    if (r.on_abandon) {
      // The client went away: withdraw the receive so that it leases nothing
      // (else its messages would stay invisible for the visibility timeout),
      // and end it with no messages.
      r.on_abandon([queue, receive_id, finish] {
        if (queue->CancelReceive(receive_id)) finish(lqs::ReceiveMessageResult{});
      });
    }
    if (after_park_) after_park_();
  }
}

void Actions::DeleteMessage(ActionRequest& r, ActionResult* out) {
  const std::string handle = TakeReqString(r.params, "ReceiptHandle");
  auto queue = ResolveQueue(r);
  Check(queue->DeleteMessage(handle));
  if (r.protocol == Protocol::kJson) out->json_body = "{}";  // EncodeResult's text for {}
}

void Actions::DeleteMessageBatch(ActionRequest& r, ActionResult* out) {
  const auto entries = Entries<lqs::DeleteMessageBatchEntry>(r.params, [](Json& e) {
    lqs::DeleteMessageBatchEntry entry;
    entry.id = TakeString(e, "Id").value_or("");
    entry.receipt_handle = TakeString(e, "ReceiptHandle").value_or("");
    return entry;
  });
  auto queue = ResolveQueue(r);
  const lqs::BatchResult result = Take(queue->DeleteMessageBatch(entries));
  if (r.protocol == Protocol::kJson) {
    out->json_body = BatchResultOutputJson(result);
    return;
  }
  out->output = BatchResultOutput(result);
}

void Actions::ChangeMessageVisibility(ActionRequest& r, ActionResult* out) {
  const std::string handle = TakeReqString(r.params, "ReceiptHandle");
  const std::optional<int> timeout = OptInt(r.params, "VisibilityTimeout");
  if (!timeout.has_value()) Fail(MissingParameter("VisibilityTimeout"));
  auto queue = ResolveQueue(r);
  Check(queue->ChangeMessageVisibility(handle, *timeout));
  if (r.protocol == Protocol::kJson) out->json_body = "{}";  // EncodeResult's text for {}
}

void Actions::ChangeMessageVisibilityBatch(ActionRequest& r, ActionResult* out) {
  const auto entries = Entries<lqs::ChangeMessageVisibilityBatchEntry>(r.params, [](Json& e) {
    lqs::ChangeMessageVisibilityBatchEntry entry;
    entry.id = TakeString(e, "Id").value_or("");
    entry.receipt_handle = TakeString(e, "ReceiptHandle").value_or("");
    entry.visibility_timeout = OptInt(e, "VisibilityTimeout");
    return entry;
  });
  auto queue = ResolveQueue(r);
  const lqs::BatchResult result = Take(queue->ChangeMessageVisibilityBatch(entries));
  if (r.protocol == Protocol::kJson) {
    out->json_body = BatchResultOutputJson(result);
    return;
  }
  out->output = BatchResultOutput(result);
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
  if (!tags.empty()) {  // "Tags" absent when the queue has none (§6.8)
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
      Take(r.broker->ListDeadLetterSourceQueues(queue->name(), req));
  Json out = Json::object();
  // Lower-case q (§6.2). Present when empty here (the legacy JSON rendering
  // of query responses keeps it); the JSON protocol leaves it out then.
  Json urls = Json::array();
  for (const auto& name : result.queue_names) urls.push_back(QueueUrl(r, name));
  out["queueUrls"] = std::move(urls);
  if (!result.next_token.empty()) out["NextToken"] = result.next_token;
  return out;
}

Json Actions::StartMessageMoveTask(const ActionRequest& r) {
  lqs::StartMessageMoveTaskRequest req;
  req.source_arn = ReqString(r.params, "SourceArn");
  req.destination_arn = OptString(r.params, "DestinationArn");
  req.max_number_of_messages_per_second = OptInt(r.params, "MaxNumberOfMessagesPerSecond");
  const std::string handle = Take(r.broker->StartMessageMoveTask(req));
  return Json{{"TaskHandle", handle}};
}

Json Actions::CancelMessageMoveTask(const ActionRequest& r) {
  const std::string handle = ReqString(r.params, "TaskHandle");
  const int64_t moved = Take(r.broker->CancelMessageMoveTask(handle));
  return Json{{"ApproximateNumberOfMessagesMoved", moved}};
}

Json Actions::ListMessageMoveTasks(const ActionRequest& r) {
  const std::string source = ReqString(r.params, "SourceArn");
  const int max_results = OptInt(r.params, "MaxResults").value_or(1);
  const std::vector<lqs::MessageMoveTask> tasks =
      Take(r.broker->ListMessageMoveTasks(source, max_results));
  // Present when empty here; the JSON protocol leaves it out then.
  Json results = Json::array();
  for (const auto& t : tasks) results.push_back(lqs::wire::MoveTaskJson(t));
  return Json{{"Results", std::move(results)}};
}

}  // namespace lqsd
