// AWS query protocol codec (see sqs_query.h).

#include "server/sqs_query.h"

#include <algorithm>
#include <map>
#include <optional>

#include "server/sqs_json.h"
#include "server/text_util.h"

namespace lqsd::sqs_query {
namespace {

// ---- Decoding -------------------------------------------------------------------------

// The flat names, split on '.', as a tree: "Attribute.1.Name" ->
// Attribute -> 1 -> Name = value.
struct Node {
  std::optional<std::string> value;
  std::map<std::string, Node, std::less<>> children;
};

void Insert(Node& root, std::string_view key, const std::string& value) {
  Node* node = &root;
  size_t pos = 0;
  while (true) {
    const size_t dot = key.find('.', pos);
    const std::string_view part =
        key.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    node = &node->children[std::string(part)];
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  if (!node->value.has_value()) node->value = value;  // the first of repeated names wins
}

const Node* Child(const Node& node, std::string_view name) {
  const auto it = node.children.find(name);
  return it == node.children.end() ? nullptr : &it->second;
}

std::optional<std::string> ChildValue(const Node& node, std::string_view name) {
  const Node* c = Child(node, name);
  if (c == nullptr) return std::nullopt;
  return c->value;
}

// The children with positive decimal indexes, in index order.
std::vector<const Node*> Indexed(const Node& node) {
  std::vector<std::pair<long long, const Node*>> items;
  for (const auto& [key, child] : node.children) {
    const std::optional<long long> index = ParseInt64(key);
    if (index.has_value() && *index >= 0) items.emplace_back(*index, &child);
  }
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Node*> out;
  out.reserve(items.size());
  for (const auto& item : items) out.push_back(item.second);
  return out;
}

Json StringList(const Node& node) {
  Json out = Json::array();
  for (const Node* item : Indexed(node)) {
    if (item->value.has_value()) out.push_back(*item->value);
  }
  return out;
}

// Attribute.N.Name/Value, Tag.N.Key/Value -> {"name": "value"}.
Json KeyValueMap(const Node& node, std::string_view key_name, std::string_view value_name) {
  Json out = Json::object();
  for (const Node* item : Indexed(node)) {
    std::optional<std::string> key = ChildValue(*item, key_name);
    if (!key.has_value() || out.contains(*key)) continue;
    out[*key] = ChildValue(*item, value_name).value_or("");
  }
  return out;
}

// MessageAttribute.N.Name / .Value.{DataType,StringValue,BinaryValue,
// StringListValue.M,BinaryListValue.M} -> {"name": {"DataType": ...}}.
Json MessageAttributeMap(const Node& node) {
  Json out = Json::object();
  for (const Node* item : Indexed(node)) {
    std::optional<std::string> name = ChildValue(*item, "Name");
    if (!name.has_value() || out.contains(*name)) continue;
    Json value = Json::object();
    if (const Node* v = Child(*item, "Value")) {
      if (auto s = ChildValue(*v, "DataType")) value["DataType"] = *s;
      if (auto s = ChildValue(*v, "StringValue")) value["StringValue"] = *s;
      if (auto s = ChildValue(*v, "BinaryValue")) value["BinaryValue"] = *s;
      if (const Node* l = Child(*v, "StringListValue")) value["StringListValues"] = StringList(*l);
      if (const Node* l = Child(*v, "BinaryListValue")) value["BinaryListValues"] = StringList(*l);
    }
    out[*name] = std::move(value);
  }
  return out;
}

bool IsIntegerMember(std::string_view name) {
  return name == "DelaySeconds" || name == "MaxNumberOfMessages" || name == "VisibilityTimeout" ||
         name == "WaitTimeSeconds" || name == "MaxResults" ||
         name == "MaxNumberOfMessagesPerSecond";
}

bool IsMapMember(std::string_view name) {
  return name == "Attributes" || name == "Tags" || name == "tags" || name == "MessageAttributes" ||
         name == "MessageSystemAttributes";
}

bool IsEmptyableMember(std::string_view name) {
  return IsMapMember(name) || name == "Entries" || name == "AttributeNames" ||
         name == "MessageAttributeNames" || name == "MessageSystemAttributeNames" ||
         name == "TagKeys" || name == "AWSAccountIds" || name == "Actions";
}

// Query list names -> JSON member names (docs/sqs-reference.md §11.2).
std::optional<std::string_view> ListMemberName(std::string_view name) {
  if (name == "AttributeName") return "AttributeNames";
  if (name == "MessageAttributeName") return "MessageAttributeNames";
  if (name == "MessageSystemAttributeName") return "MessageSystemAttributeNames";
  if (name == "TagKey") return "TagKeys";
  if (name == "AWSAccountId") return "AWSAccountIds";
  if (name == "ActionName") return "Actions";
  return std::nullopt;
}

bool IsBatchEntryName(std::string_view name) {
  return name == "SendMessageBatchRequestEntry" || name == "DeleteMessageBatchRequestEntry" ||
         name == "ChangeMessageVisibilityBatchRequestEntry";
}

Json Members(const Node& node, std::string_view action) {
  Json out = Json::object();
  for (const auto& [key, child] : node.children) {
    if (key == "Attribute") {
      out["Attributes"] = KeyValueMap(child, "Name", "Value");
    } else if (key == "Tag") {
      // CreateQueue's member is lower-case "tags" (docs/sqs-reference.md §6.1).
      out[action == "CreateQueue" ? "tags" : "Tags"] = KeyValueMap(child, "Key", "Value");
    } else if (key == "MessageAttribute") {
      out["MessageAttributes"] = MessageAttributeMap(child);
    } else if (key == "MessageSystemAttribute") {
      out["MessageSystemAttributes"] = MessageAttributeMap(child);
    } else if (const auto list = ListMemberName(key)) {
      Json& target = out[std::string(*list)];
      if (!target.is_array()) target = Json::array();
      for (auto& v : StringList(child)) target.push_back(std::move(v));
    } else if (IsBatchEntryName(key)) {
      Json entries = Json::array();
      for (const Node* item : Indexed(child)) entries.push_back(Members(*item, action));
      out["Entries"] = std::move(entries);
    } else if (child.value.has_value() && child.value->empty() && IsEmptyableMember(key)) {
      // botocore serializes an empty list or map as "Entries=" (its JSON name).
      out[key] = IsMapMember(key) ? Json::object() : Json::array();
    } else if (child.value.has_value()) {
      if (IsIntegerMember(key)) {
        if (const std::optional<long long> n = ParseInt64(*child.value)) {
          out[key] = *n;
          continue;
        }
      }
      out[key] = *child.value;
    }
  }
  return out;
}

// ---- Encoding -------------------------------------------------------------------------

// The map members of SQS outputs, which both renderings flatten into a list
// of entries (§11.4): <Attribute><Name/><Value/></Attribute> in XML,
// [{"Name", "Value"}] in the JSON rendering (§11.7).
struct FlattenedMap {
  std::string_view member;
  std::string_view element;  // one entry's element (XML)
  std::string_view key;      // the entry's key member
};

constexpr FlattenedMap kFlattenedMaps[] = {
    {"Attributes", "Attribute", "Name"},
    {"MessageAttributes", "MessageAttribute", "Name"},
    {"Tags", "Tag", "Key"},
};

const FlattenedMap* FlattenedMapFor(std::string_view member) {
  for (const FlattenedMap& map : kFlattenedMaps) {
    if (map.member == member) return &map;
  }
  return nullptr;
}

// Appends `before`, `name`, `after`: one tag, e.g. ("</", name, ">").
void AppendTag(std::string& out, std::string_view before, std::string_view name,
               std::string_view after) {
  out += before;
  out += name;
  out += after;
}

void AppendText(std::string& out, std::string_view name, std::string_view text) {
  AppendTag(out, "<", name, ">");
  AppendXmlEscaped(out, text);
  AppendTag(out, "</", name, ">");
}

void AppendScalar(std::string& out, std::string_view name, const Json& value) {
  if (value.is_string()) {
    AppendText(out, name, value.get_ref<const std::string&>());
  } else if (value.is_boolean()) {
    AppendText(out, name, value.get<bool>() ? "true" : "false");
  } else {
    AppendText(out, name, value.dump());
  }
}

void AppendMember(std::string& out, std::string_view name, const Json& value,
                  std::string_view action);

void AppendMembers(std::string& out, const Json& object, std::string_view action) {
  for (const auto& [key, value] : object.items()) AppendMember(out, key, value, action);
}

void AppendWrapped(std::string& out, std::string_view element, const Json& object,
                   std::string_view action) {
  AppendTag(out, "<", element, ">");
  AppendMembers(out, object, action);
  AppendTag(out, "</", element, ">");
}

// Lists and maps are flattened (no wrapper element), §11.4.
void AppendMember(std::string& out, std::string_view name, const Json& value,
                  std::string_view action) {
  if (name == "QueueUrls" || name == "queueUrls") {
    for (const Json& url : value) AppendScalar(out, "QueueUrl", url);
  } else if (const FlattenedMap* map = value.is_object() ? FlattenedMapFor(name) : nullptr) {
    for (const auto& [k, v] : value.items()) {
      out += '<';
      out += map->element;
      out += '>';
      AppendText(out, map->key, k);
      if (v.is_object()) {
        AppendWrapped(out, "Value", v, action);  // a MessageAttributeValue
      } else {
        AppendScalar(out, "Value", v);
      }
      out += "</";
      out += map->element;
      out += '>';
    }
  } else if (name == "Messages" && value.is_array()) {
    for (const Json& m : value) AppendWrapped(out, "Message", m, action);
  } else if (name == "Successful" && value.is_array()) {
    const std::string element = std::string(action) + "ResultEntry";
    for (const Json& e : value) AppendWrapped(out, element, e, action);
  } else if (name == "Failed" && value.is_array()) {
    for (const Json& e : value) AppendWrapped(out, "BatchResultErrorEntry", e, action);
  } else if (name == "Results" && value.is_array()) {
    for (const Json& e : value) AppendWrapped(out, "ListMessageMoveTasksResultEntry", e, action);
  } else if (value.is_array()) {
    for (const Json& e : value) {
      if (e.is_object()) {
        AppendWrapped(out, name, e, action);
      } else {
        AppendScalar(out, name, e);
      }
    }
  } else if (value.is_object()) {
    AppendWrapped(out, name, value, action);
  } else if (!value.is_null()) {
    AppendScalar(out, name, value);
  }
}

// The legacy JSON rendering of an output (§11.7): the flattened maps become
// lists of {"Name"|"Key", "Value"} entries, as in the XML.
Json LegacyJson(const Json& value);

Json NamedEntries(const Json& map, std::string_view key_name) {
  Json list = Json::array();
  for (const auto& [k, v] : map.items()) {
    Json entry = Json::object();
    entry[std::string(key_name)] = k;
    entry["Value"] = LegacyJson(v);
    list.push_back(std::move(entry));
  }
  return list;
}

Json LegacyJson(const Json& value) {
  if (value.is_array()) {
    Json list = Json::array();
    for (const Json& e : value) list.push_back(LegacyJson(e));
    return list;
  }
  if (!value.is_object()) return value;
  Json out = Json::object();
  for (const auto& [key, member] : value.items()) {
    if (member.is_null()) continue;
    if (const FlattenedMap* map = member.is_object() ? FlattenedMapFor(key) : nullptr) {
      out[key] = NamedEntries(member, map->key);
    } else {
      out[key] = LegacyJson(member);
    }
  }
  return out;
}

HttpResponse Base(int status, const std::string& request_id,
                  Rendering rendering = Rendering::kXml) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Content-Type",
                         rendering == Rendering::kJson ? "application/json" : "text/xml");
  r.headers.emplace_back("x-amzn-RequestId", request_id);
  return r;
}

bool ListsJsonMediaType(std::string_view accept) {
  // Media ranges are separated by ',' and may carry ";q=..." parameters.
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    std::string_view range = accept.substr(0, comma);
    range = range.substr(0, range.find(';'));
    const size_t first = range.find_first_not_of(" \t");
    const size_t last = range.find_last_not_of(" \t");
    range = first == std::string_view::npos ? std::string_view()
                                            : range.substr(first, last - first + 1);
    if (range.size() == 16 && StartsWithLower(range, "application/json")) return true;
    if (comma == std::string_view::npos) break;
    accept.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

const std::string* Find(const Params& params, std::string_view name) {
  for (const auto& [k, v] : params) {
    if (k == name) return &v;
  }
  return nullptr;
}

Json DecodeParams(std::string_view action, const Params& params) {
  Node root;
  for (const auto& [key, value] : params) {
    if (!key.empty()) Insert(root, key, value);
  }
  return Members(root, action);
}

Rendering RenderingFor(const HttpRequest& request) {
  const std::string* accept = request.Header("accept");
  return accept != nullptr && ListsJsonMediaType(*accept) ? Rendering::kJson : Rendering::kXml;
}

HttpResponse EncodeResult(std::string_view action, const Json& output,
                          const std::string& request_id, Rendering rendering) {
  if (rendering == Rendering::kJson) {
    HttpResponse r = Base(200, request_id, rendering);
    Json response = Json::object();
    if (Actions::HasOutput(action)) {
      Json result = output.is_object() ? LegacyJson(output) : Json::object();
      // AWS names ReceiveMessage's list "messages" in this rendering (an
      // AWS-validated recording, docs/sqs_compat.md); the XML's other member
      // names stand, for want of evidence.
      if (action == "ReceiveMessage" && result.contains("Messages")) {
        result["messages"] = std::move(result["Messages"]);
        result.erase("Messages");
      }
      response[std::string(action) + "Result"] = std::move(result);
    }
    response["ResponseMetadata"] = Json{{"RequestId", request_id}};
    Json document = Json::object();
    document[std::string(action) + "Response"] = std::move(response);
    r.body = sqs_json::Dump(document);
    return r;
  }
  HttpResponse r = Base(200, request_id);
  std::string& b = r.body;
  b.reserve(256);
  AppendTag(b, "<?xml version=\"1.0\"?><", action, "Response xmlns=\"");
  b += kNamespace;
  b += "\">";
  if (Actions::HasOutput(action)) {
    std::string members;
    if (output.is_object()) AppendMembers(members, output, action);
    if (members.empty()) {
      AppendTag(b, "<", action, "Result/>");
    } else {
      AppendTag(b, "<", action, "Result>");
      b += members;
      AppendTag(b, "</", action, "Result>");
    }
  }
  AppendTag(b, "<ResponseMetadata><RequestId>", request_id, "</RequestId></ResponseMetadata>");
  AppendTag(b, "</", action, "Response>");
  return r;
}

HttpResponse EncodeError(const SqsError& error, const std::string& request_id,
                         Rendering rendering) {
  if (rendering == Rendering::kJson) {
    HttpResponse r = Base(error.http_status, request_id, rendering);
    Json detail = Json::object();
    detail["Type"] = error.sender_fault ? "Sender" : "Receiver";
    detail["Code"] = error.query_code;
    detail["Message"] = MessageFor(error, Protocol::kQuery);
    Json document = Json::object();
    document["Error"] = std::move(detail);
    document["RequestId"] = request_id;
    r.body = sqs_json::Dump(document);
    return r;
  }
  HttpResponse r = Base(error.http_status, request_id);
  std::string& b = r.body;
  b += "<?xml version=\"1.0\"?><ErrorResponse xmlns=\"";
  b += kNamespace;
  b += "\"><Error>";
  AppendText(b, "Type", error.sender_fault ? "Sender" : "Receiver");
  AppendText(b, "Code", error.query_code);
  AppendText(b, "Message", MessageFor(error, Protocol::kQuery));
  b += "<Detail/></Error>";
  AppendText(b, "RequestId", request_id);
  b += "</ErrorResponse>";
  return r;
}

HttpResponse EncodeUnknownOperation(const std::string& request_id) {
  HttpResponse r = Base(404, request_id);
  r.body = "<?xml version=\"1.0\"?><UnknownOperationException/>";
  return r;
}

}  // namespace lqsd::sqs_query
