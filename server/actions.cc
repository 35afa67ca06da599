// One handler per SQS action (see actions.h).

#include "server/actions.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "server/action_model.h"
#include "server/action_outputs.h"
#include "server/text_util.h"
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
//
// Each reader checks the member's JSON type where the handler reads it, in
// the order the handler checks its errors.

namespace dom = simdjson::dom;

// The request's input object.
dom::object In(const ActionRequest& r) { return r.input.root(); }

std::optional<dom::element> Member(dom::object object, const char* name) {
  return RequestInput::Find(object, name);
}

[[noreturn]] void WrongType(const char* name, const char* expected) {
  Fail(SerializationError(std::string("Expected ") + expected + " for member " + name + "."));
}

// A string member, without copying it (valid while the request lives).
std::optional<std::string_view> OptStringView(dom::object object, const char* name) {
  const std::optional<dom::element> m = Member(object, name);
  if (!m.has_value()) return std::nullopt;
  if (!m->is_string()) WrongType(name, "a string");
  return m->get_string().value_unsafe();
}

std::optional<std::string> OptString(dom::object object, const char* name) {
  const std::optional<std::string_view> value = OptStringView(object, name);
  if (!value.has_value()) return std::nullopt;
  return std::string(*value);
}

std::string ReqString(dom::object object, const char* name) {
  std::optional<std::string> value = OptString(object, name);
  if (!value.has_value()) Fail(MissingParameter(name));
  return std::move(*value);
}

// Integers: JSON numbers, or decimal strings (the query protocol's decoder
// leaves a string when it is not a decimal integer).
std::optional<int> OptInt(dom::object object, const char* name) {
  const std::optional<dom::element> m = Member(object, name);
  if (!m.has_value()) return std::nullopt;
  std::string text;
  switch (m->type()) {
    case dom::element_type::UINT64: {
      const uint64_t v = m->get_uint64().value_unsafe();
      if (v <= static_cast<uint64_t>(INT_MAX)) return static_cast<int>(v);
      text = std::to_string(v);
      break;
    }
    case dom::element_type::INT64: {
      const int64_t v = m->get_int64().value_unsafe();
      if (v >= INT_MIN && v <= INT_MAX) return static_cast<int>(v);
      text = std::to_string(v);
      break;
    }
    case dom::element_type::STRING: {
      text = std::string(m->get_string().value_unsafe());
      if (const auto v = ParseInt64(text); v.has_value() && *v >= INT_MIN && *v <= INT_MAX) {
        return static_cast<int>(*v);
      }
      break;
    }
    case dom::element_type::DOUBLE:
      text = Json(m->get_double().value_unsafe()).dump();  // as the JSON writer spells it
      break;
    default:
      WrongType(name, "an integer");
  }
  Fail(InvalidParameterValue("Value " + SanitizeUtf8(text) + " for parameter " + name +
                             " is invalid. Reason: Must be an integer in the allowed range."));
}

// A list member: absent -> empty; not a JSON array -> SerializationError
// naming `expected`; otherwise each item as `read(item)` returns it (read
// checks the item's type).
template <typename Item, typename Read>
std::vector<Item> ListMember(dom::object object, const char* name, const char* expected,
                             Read&& read) {
  std::vector<Item> out;
  const std::optional<dom::element> m = Member(object, name);
  if (!m.has_value()) return out;
  if (!m->is_array()) WrongType(name, expected);
  const dom::array items = m->get_array().value_unsafe();
  out.reserve(items.size());
  for (const dom::element item : items) out.push_back(read(item));
  return out;
}

// A map member: absent -> empty; not a JSON object -> SerializationError
// naming `expected`; otherwise each field's value as `read(key, value)`
// returns it (read checks the value's type). Of repeated keys the last one
// counts (RequestInput::Find).
template <typename Map, typename Read>
Map MapMember(dom::object object, const char* name, const char* expected, Read&& read) {
  Map out;
  const std::optional<dom::element> m = Member(object, name);
  if (!m.has_value()) return out;
  if (!m->is_object()) WrongType(name, expected);
  const dom::object fields = m->get_object().value_unsafe();
  for (const dom::key_value_pair field : fields) {
    out.insert_or_assign(std::string(field.key), read(field.key, field.value));
  }
  return out;
}

std::vector<std::string> StringList(dom::object object, const char* name) {
  constexpr const char* kExpected = "a list of strings";
  return ListMember<std::string>(object, name, kExpected, [&](dom::element item) {
    if (!item.is_string()) WrongType(name, kExpected);
    return std::string(item.get_string().value_unsafe());
  });
}

std::map<std::string, std::string> StringMap(dom::object object, const char* name) {
  constexpr const char* kExpected = "a map of strings";
  return MapMember<std::map<std::string, std::string>>(
      object, name, kExpected, [&](std::string_view, dom::element value) {
        if (!value.is_string()) WrongType(name, kExpected);
        return std::string(value.get_string().value_unsafe());
      });
}

lqs::MessageAttributeMap AttributeValues(dom::object object, const char* name) {
  constexpr const char* kExpected = "a map of MessageAttributeValue";
  return MapMember<lqs::MessageAttributeMap>(
      object, name, kExpected, [&](std::string_view key, dom::element field) {
        if (!field.is_object()) WrongType(name, kExpected);
        const dom::object value = field.get_object().value_unsafe();
        lqs::MessageAttributeValue v;
        v.data_type = OptString(value, "DataType").value_or("");
        v.string_value = OptString(value, "StringValue").value_or("");
        if (std::optional<std::string> b64 = OptString(value, "BinaryValue")) {
          std::optional<std::string> bytes = Base64Decode(*b64);
          if (!bytes.has_value()) {
            Fail(InvalidParameterValue("The BinaryValue of message attribute '" +
                                       SanitizeUtf8(key) + "' is not valid base64."));
          }
          v.binary_value = std::move(*bytes);
        }
        // StringListValues / BinaryListValues: "not implemented, reserved" in SQS.
        return v;
      });
}

// The batch actions' "Entries": absent -> none; each entry (a structure) is
// read by `parse`, which returns the Entry.
template <typename Entry, typename Parse>
std::vector<Entry> Entries(dom::object object, Parse&& parse) {
  return ListMember<Entry>(object, "Entries", "a list", [&](dom::element item) {
    if (!item.is_object()) WrongType("Entries", "a list of structures");
    return parse(item.get_object().value_unsafe());
  });
}

lqs::SendMessageRequest SendRequest(dom::object p) {
  lqs::SendMessageRequest req;
  req.body = OptString(p, "MessageBody").value_or("");
  req.delay_seconds = OptInt(p, "DelaySeconds");
  req.message_attributes = AttributeValues(p, "MessageAttributes");
  req.message_system_attributes = AttributeValues(p, "MessageSystemAttributes");
  req.message_group_id = OptString(p, "MessageGroupId");
  req.message_deduplication_id = OptString(p, "MessageDeduplicationId");
  return req;
}

// The members `action` requires (action_model.h), in the model's order:
// each present one is read as its handler reads it (so a type error is
// reported as the handler would), and the first absent one fails with
// MissingParameter (for a list, an empty one too). Not checked here: the
// queue's URL (the router resolves it; ResolveQueue answers its absence)
// and a batch's Entries and their members (the engine answers
// EmptyBatchRequest and each entry's errors).
void CheckRequired(const action_model::Action& action, dom::object input) {
  for (const action_model::Member& member : action.input) {
    if (!member.required || member.json_name == "QueueUrl") continue;
    const std::string name(member.json_name);
    switch (member.kind) {
      case action_model::Kind::kString:
        if (!OptStringView(input, name.c_str()).has_value()) Fail(MissingParameter(name));
        break;
      case action_model::Kind::kInteger:
        if (!OptInt(input, name.c_str()).has_value()) Fail(MissingParameter(name));
        break;
      case action_model::Kind::kStringList:  // an empty list counts as absent
        if (StringList(input, name.c_str()).empty()) Fail(MissingParameter(name));
        break;
      case action_model::Kind::kStringMap:
        if (!Member(input, name.c_str()).has_value()) Fail(MissingParameter(name));
        StringMap(input, name.c_str());
        break;
      case action_model::Kind::kMessageAttributeMap:
      case action_model::Kind::kEntryList:
        break;
    }
  }
}

std::vector<lqs::SendMessageBatchEntry> SendBatchEntries(dom::object object) {
  return Entries<lqs::SendMessageBatchEntry>(object, [](dom::object e) {
    lqs::SendMessageBatchEntry entry;
    entry.id = OptString(e, "Id").value_or("");
    entry.request = SendRequest(e);
    return entry;
  });
}
}  // namespace

// A listing's MaxResults and NextToken into *req.
void SetPage(dom::object input, lqs::ListQueuesRequest* req) {
  req->max_results = OptInt(input, "MaxResults");
  req->next_token = OptString(input, "NextToken").value_or("");
}

Json QueueUrls(const ActionRequest& r, const std::vector<std::string>& names) {
  Json urls = Json::array();
  for (const auto& name : names) urls.push_back(Actions::QueueUrl(r, name));
  return urls;
}

// ---- The action table --------------------------------------------------------------

// The handlers, one per row of the action model (action_model.h: the wire
// shape, addressing and output of each action live there).
struct Actions::Entry {
  std::string_view name;
  Handler handler;  // nullptr: `fast`, or special-cased (ReceiveMessage)
  FastHandler fast = nullptr;
};

namespace {
using A = Actions;
}  // namespace

const Actions::Entry* Actions::Find(std::string_view action) {
  // The hot actions first: the lookup is a scan, and they are most requests.
  static const Entry kEntries[] = {
      {"SendMessage", nullptr, &A::SendMessage},
      {"SendMessageBatch", nullptr, &A::SendMessageBatch},
      {"ReceiveMessage", nullptr},
      {"DeleteMessage", nullptr, &A::DeleteMessage},
      {"DeleteMessageBatch", nullptr, &A::DeleteMessageBatch},
      {"ChangeMessageVisibility", nullptr, &A::ChangeMessageVisibility},
      {"ChangeMessageVisibilityBatch", nullptr, &A::ChangeMessageVisibilityBatch},
      {"CreateQueue", &A::CreateQueue},
      {"DeleteQueue", &A::DeleteQueue},
      {"GetQueueUrl", &A::GetQueueUrl},
      {"ListQueues", &A::ListQueues},
      {"GetQueueAttributes", &A::GetQueueAttributes},
      {"SetQueueAttributes", &A::SetQueueAttributes},
      {"PurgeQueue", &A::PurgeQueue},
      {"TagQueue", &A::TagQueue},
      {"UntagQueue", &A::UntagQueue},
      {"ListQueueTags", &A::ListQueueTags},
      {"AddPermission", &A::AddPermission},
      {"RemovePermission", &A::RemovePermission},
      {"ListDeadLetterSourceQueues", &A::ListDeadLetterSourceQueues},
      {"StartMessageMoveTask", &A::StartMessageMoveTask},
      {"CancelMessageMoveTask", &A::CancelMessageMoveTask},
      {"ListMessageMoveTasks", &A::ListMessageMoveTasks},
  };
  for (const Entry& e : kEntries) {
    if (e.name == action) return &e;
  }
  return nullptr;
}

bool Actions::IsKnown(std::string_view action) { return action_model::Find(action) != nullptr; }

bool Actions::TargetsQueue(std::string_view action) {
  const action_model::Action* a = action_model::Find(action);
  return a != nullptr && a->targets_queue;
}

bool Actions::HasOutput(std::string_view action) {
  const action_model::Action* a = action_model::Find(action);
  return a != nullptr && a->has_output;
}

Actions::Actions(std::string account_id, std::function<void()> after_park)
    : account_id_(std::move(account_id)), after_park_(std::move(after_park)) {
  // Every modelled action has its handler (a build without one is a bug,
  // caught by any test that starts a server).
  for (const action_model::Action& action : action_model::All()) {
    if (Find(action.name) == nullptr) {
      std::fprintf(stderr, "lqsd: no handler for action %.*s\n",
                   static_cast<int>(action.name.size()), action.name.data());
      std::abort();
    }
  }
}

std::string Actions::QueueUrl(const ActionRequest& request, const std::string& name) {
  return request.queue_url_prefix + "/" + name;
}

void Actions::Run(ActionRequest request, ActionDone done) {
  std::optional<ActionResult> result;
  try {
    const action_model::Action* model = action_model::Find(request.action);
    const Entry* entry = model == nullptr ? nullptr : Find(request.action);
    if (entry == nullptr) {
      Fail(request.protocol == Protocol::kJson ? UnknownOperation(400)
                                               : InvalidAction(request.action));
    }
    CheckRequired(*model, In(request));
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
  const std::string name = ReqString(In(r), "QueueName");
  const lqs::AttributeMap attributes = StringMap(In(r), "Attributes");
  // The JSON member is lower-case "tags" (docs/sqs-reference.md §6.1); accept "Tags" too.
  lqs::TagMap tags = StringMap(In(r), "tags");
  if (tags.empty()) tags = StringMap(In(r), "Tags");
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
  const std::string name = ReqString(In(r), "QueueName");
  if (std::optional<std::string> owner = OptString(In(r), "QueueOwnerAWSAccountId")) {
    if (*owner != account_id_) Fail(NonExistentQueue());
  }
  auto queue = Take(r.broker->GetQueue(name));
  return Json{{"QueueUrl", QueueUrl(r, queue->name())}};
}

Json Actions::ListQueues(const ActionRequest& r) {
  lqs::ListQueuesRequest req;
  req.queue_name_prefix = OptString(In(r), "QueueNamePrefix").value_or("");
  SetPage(In(r), &req);
  const lqs::ListQueuesResult result = Take(r.broker->ListQueues(req));
  Json out = Json::object();
  if (!result.queue_names.empty()) out["QueueUrls"] = QueueUrls(r, result.queue_names);
  if (!result.next_token.empty()) out["NextToken"] = result.next_token;
  return out;
}

Json Actions::GetQueueAttributes(const ActionRequest& r) {
  const std::vector<std::string> names = StringList(In(r), "AttributeNames");
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
  const lqs::AttributeMap attributes = StringMap(In(r), "Attributes");  // required
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

void Actions::SendMessage(const ActionRequest& r, ActionResult* out) {
  lqs::SendMessageRequest req = SendRequest(In(r));  // MessageBody: required
  // An X-Amzn-Trace-Id header populates AWSTraceHeader (docs/sqs-reference.md §5.3).
  if (!r.trace_header.empty() && req.message_system_attributes.count("AWSTraceHeader") == 0) {
    lqs::MessageAttributeValue v;
    v.data_type = "String";
    v.string_value = r.trace_header;
    req.message_system_attributes.emplace("AWSTraceHeader", std::move(v));
  }
  auto queue = ResolveQueue(r);
  const lqs::SendMessageResult result = Take(queue->SendMessage(req));
  SetOutput(r.protocol, result, out);
}

void Actions::SendMessageBatch(const ActionRequest& r, ActionResult* out) {
  const auto entries = SendBatchEntries(In(r));
  auto queue = ResolveQueue(r);
  const lqs::SendMessageBatchResult result = Take(queue->SendMessageBatch(entries));
  SetOutput(r.protocol, result, out);
}

void Actions::ReceiveMessage(ActionRequest r, ActionDone done) {
  lqs::ReceiveMessageRequest req;
  req.max_number_of_messages = OptInt(In(r), "MaxNumberOfMessages").value_or(1);
  req.visibility_timeout = OptInt(In(r), "VisibilityTimeout");
  req.wait_time_seconds = OptInt(In(r), "WaitTimeSeconds");
  // The deprecated AttributeNames and MessageSystemAttributeNames: a union.
  req.message_system_attribute_names = StringList(In(r), "AttributeNames");
  for (auto& n : StringList(In(r), "MessageSystemAttributeNames")) {
    req.message_system_attribute_names.push_back(std::move(n));
  }
  req.message_attribute_names = StringList(In(r), "MessageAttributeNames");
  req.receive_request_attempt_id = OptString(In(r), "ReceiveRequestAttemptId");
  auto queue = ResolveQueue(r);

  // The callback runs on this thread (answer known at once: the response is
  // built right here) or on the Broker's receiver thread (it only hands the
  // result to the connection's executor).
  Poster post = r.post;
  auto finish = [this, done,
                 protocol = r.protocol](lqs::StatusOr<lqs::ReceiveMessageResult> result) {
    ActionResult out;
    if (result.ok()) {
      SetOutput(protocol, *result, &out);
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

void Actions::DeleteMessage(const ActionRequest& r, ActionResult* out) {
  const std::string handle = ReqString(In(r), "ReceiptHandle");
  auto queue = ResolveQueue(r);
  Check(queue->DeleteMessage(handle));
}

void Actions::DeleteMessageBatch(const ActionRequest& r, ActionResult* out) {
  const auto entries = Entries<lqs::DeleteMessageBatchEntry>(In(r), [](dom::object e) {
    lqs::DeleteMessageBatchEntry entry;
    entry.id = OptString(e, "Id").value_or("");
    entry.receipt_handle = OptString(e, "ReceiptHandle").value_or("");
    return entry;
  });
  auto queue = ResolveQueue(r);
  const lqs::BatchResult result = Take(queue->DeleteMessageBatch(entries));
  SetOutput(r.protocol, result, out);
}

void Actions::ChangeMessageVisibility(const ActionRequest& r, ActionResult* out) {
  const std::string handle = ReqString(In(r), "ReceiptHandle");
  const int timeout = OptInt(In(r), "VisibilityTimeout").value_or(0);  // required
  auto queue = ResolveQueue(r);
  Check(queue->ChangeMessageVisibility(handle, timeout));
}

void Actions::ChangeMessageVisibilityBatch(const ActionRequest& r, ActionResult* out) {
  const auto entries = Entries<lqs::ChangeMessageVisibilityBatchEntry>(In(r), [](dom::object e) {
    lqs::ChangeMessageVisibilityBatchEntry entry;
    entry.id = OptString(e, "Id").value_or("");
    entry.receipt_handle = OptString(e, "ReceiptHandle").value_or("");
    entry.visibility_timeout = OptInt(e, "VisibilityTimeout");
    return entry;
  });
  auto queue = ResolveQueue(r);
  const lqs::BatchResult result = Take(queue->ChangeMessageVisibilityBatch(entries));
  SetOutput(r.protocol, result, out);
}

// ---- Tags and permissions -------------------------------------------------------------

Json Actions::TagQueue(const ActionRequest& r) {
  const lqs::TagMap tags = StringMap(In(r), "Tags");
  if (tags.empty()) Fail(MissingParameter("Tags"));  // an empty map counts as absent
  auto queue = ResolveQueue(r);
  Check(queue->TagQueue(tags));
  return Json::object();
}

Json Actions::UntagQueue(const ActionRequest& r) {
  const std::vector<std::string> keys = StringList(In(r), "TagKeys");  // required
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
  const std::string label = ReqString(In(r), "Label");
  const std::vector<std::string> accounts = StringList(In(r), "AWSAccountIds");  // required
  const std::vector<std::string> actions = StringList(In(r), "Actions");         // required
  auto queue = ResolveQueue(r);
  Check(queue->AddPermission(label, accounts, actions));
  return Json::object();
}

Json Actions::RemovePermission(const ActionRequest& r) {
  const std::string label = ReqString(In(r), "Label");
  auto queue = ResolveQueue(r);
  Check(queue->RemovePermission(label));
  return Json::object();
}

// ---- Dead-letter queues and move tasks -------------------------------------------------

Json Actions::ListDeadLetterSourceQueues(const ActionRequest& r) {
  lqs::ListQueuesRequest req;
  SetPage(In(r), &req);
  auto queue = ResolveQueue(r);
  const lqs::ListQueuesResult result =
      Take(r.broker->ListDeadLetterSourceQueues(queue->name(), req));
  Json out = Json::object();
  // Lower-case q (§6.2). Present when empty here (the legacy JSON rendering
  // of query responses keeps it); the JSON protocol leaves it out then.
  out["queueUrls"] = QueueUrls(r, result.queue_names);
  if (!result.next_token.empty()) out["NextToken"] = result.next_token;
  return out;
}

Json Actions::StartMessageMoveTask(const ActionRequest& r) {
  lqs::StartMessageMoveTaskRequest req;
  req.source_arn = ReqString(In(r), "SourceArn");
  req.destination_arn = OptString(In(r), "DestinationArn");
  req.max_number_of_messages_per_second = OptInt(In(r), "MaxNumberOfMessagesPerSecond");
  const std::string handle = Take(r.broker->StartMessageMoveTask(req));
  return Json{{"TaskHandle", handle}};
}

Json Actions::CancelMessageMoveTask(const ActionRequest& r) {
  const std::string handle = ReqString(In(r), "TaskHandle");
  const int64_t moved = Take(r.broker->CancelMessageMoveTask(handle));
  return Json{{"ApproximateNumberOfMessagesMoved", moved}};
}

Json Actions::ListMessageMoveTasks(const ActionRequest& r) {
  const std::string source = ReqString(In(r), "SourceArn");
  const int max_results = OptInt(In(r), "MaxResults").value_or(1);
  const std::vector<lqs::MessageMoveTask> tasks =
      Take(r.broker->ListMessageMoveTasks(source, max_results));
  // Present when empty here; the JSON protocol leaves it out then.
  Json results = Json::array();
  for (const auto& t : tasks) results.push_back(lqs::wire::MoveTaskJson(t));
  return Json{{"Results", std::move(results)}};
}

}  // namespace lqsd
