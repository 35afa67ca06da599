// AWS query protocol codec (see sqs_query.h).

#include "server/sqs_query.h"

#include <algorithm>
#include <map>
#include <optional>
#include <span>

#include "server/action_model.h"
#include "server/sqs_json.h"
#include "server/text_util.h"

namespace lqsd::sqs_query {
namespace {

using action_model::Kind;
using action_model::Member;
using action_model::OutputKind;
using action_model::OutputMember;

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
  // The first of repeated names wins. The input is read as JSON
  // (request_input.h), so malformed UTF-8 becomes U+FFFF there too: a code
  // point SQS refuses wherever it checks characters, as it refuses the bytes.
  if (!node->value.has_value()) node->value = SanitizeUtf8(value, "\xEF\xBF\xBF");
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

Json EmptyContainer(Kind kind) {
  return kind == Kind::kStringMap || kind == Kind::kMessageAttributeMap ? Json::object()
                                                                        : Json::array();
}

Json Members(const Node& node, std::span<const Member> members);

// One member, from its node under the member's query name.
Json MemberValue(const Node& node, const Member& member) {
  switch (member.kind) {
    case Kind::kString:
      return *node.value;
    case Kind::kInteger:
      if (const std::optional<long long> n = ParseInt64(*node.value)) return *n;
      return *node.value;  // the handler rejects it as InvalidParameterValue
    case Kind::kStringList:
      return StringList(node);
    case Kind::kStringMap:
      return KeyValueMap(node, member.key_name, member.value_name);
    case Kind::kMessageAttributeMap:
      return MessageAttributeMap(node);
    case Kind::kEntryList: {
      Json entries = Json::array();
      for (const Node* item : Indexed(node)) entries.push_back(Members(*item, member.entry));
      return entries;
    }
  }
  return nullptr;
}

bool IsScalar(Kind kind) { return kind == Kind::kString || kind == Kind::kInteger; }

// The members of `members` present under `node`, in the model's order;
// parameters that are not members of the action are ignored, as SQS does.
Json Members(const Node& node, std::span<const Member> members) {
  Json out = Json::object();
  for (const Member& member : members) {
    const std::string key(member.json_name);
    if (const Node* child = Child(node, member.QueryName())) {
      if (!IsScalar(member.kind)) {
        out[key] = MemberValue(*child, member);
        continue;
      }
      if (child->value.has_value()) out[key] = MemberValue(*child, member);
    } else if (!IsScalar(member.kind)) {
      // botocore serializes an empty list or map as "Entries=" (its JSON name).
      const Node* empty = Child(node, member.json_name);
      if (empty != nullptr && empty->value.has_value()) {
        out[key] = empty->value->empty() ? EmptyContainer(member.kind) : Json(*empty->value);
      }
    }
  }
  return out;
}

// ---- Encoding -------------------------------------------------------------------------

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
                  std::span<const OutputMember> model);

// `object`'s members; `model` says which of them are lists or maps.
void AppendMembers(std::string& out, const Json& object, std::span<const OutputMember> model) {
  for (const auto& [key, value] : object.items()) AppendMember(out, key, value, model);
}

void AppendWrapped(std::string& out, std::string_view element, const Json& object,
                   std::span<const OutputMember> model) {
  AppendTag(out, "<", element, ">");
  AppendMembers(out, object, model);
  AppendTag(out, "</", element, ">");
}

// Lists and maps are flattened (no wrapper element), §11.4.
void AppendMember(std::string& out, std::string_view name, const Json& value,
                  std::span<const OutputMember> model) {
  const OutputMember* member = action_model::FindOutput(model, name);
  if (member != nullptr && member->kind == OutputKind::kFlattenedMap && value.is_object()) {
    for (const auto& [k, v] : value.items()) {
      AppendTag(out, "<", member->element, ">");
      AppendText(out, member->key_name, k);
      if (v.is_object()) {
        AppendWrapped(out, "Value", v, {});  // a MessageAttributeValue
      } else {
        AppendScalar(out, "Value", v);
      }
      AppendTag(out, "</", member->element, ">");
    }
  } else if (value.is_array()) {
    // A modelled list's items are named by its element; others repeat `name`.
    const std::string_view element = member != nullptr ? member->element : name;
    const std::span<const OutputMember> item =
        member != nullptr ? member->item : std::span<const OutputMember>();
    for (const Json& e : value) {
      if (e.is_object()) {
        AppendWrapped(out, element, e, item);
      } else {
        AppendScalar(out, element, e);
      }
    }
  } else if (value.is_object()) {
    AppendWrapped(out, name, value, {});
  } else if (!value.is_null()) {
    AppendScalar(out, name, value);
  }
}

// The legacy JSON rendering of an output (§11.7): the flattened maps become
// lists of {"Name"|"Key", "Value"} entries, as in the XML.
Json LegacyJson(const Json& value, std::span<const OutputMember> model);

Json NamedEntries(const Json& map, std::string_view key_name) {
  Json list = Json::array();
  for (const auto& [k, v] : map.items()) {
    Json entry = Json::object();
    entry[std::string(key_name)] = k;
    entry["Value"] = LegacyJson(v, {});
    list.push_back(std::move(entry));
  }
  return list;
}

Json LegacyJson(const Json& value, std::span<const OutputMember> model) {
  if (value.is_array()) {
    Json list = Json::array();
    for (const Json& e : value) list.push_back(LegacyJson(e, model));
    return list;
  }
  if (!value.is_object()) return value;
  Json out = Json::object();
  for (const auto& [key, member_value] : value.items()) {
    if (member_value.is_null()) continue;
    const OutputMember* member = action_model::FindOutput(model, key);
    if (member == nullptr) {
      out[key] = LegacyJson(member_value, {});
      continue;
    }
    const std::string name(member->legacy_json_name.empty() ? member->json_name
                                                            : member->legacy_json_name);
    if (member->kind == OutputKind::kFlattenedMap && member_value.is_object()) {
      out[name] = NamedEntries(member_value, member->key_name);
    } else {
      out[name] = LegacyJson(member_value, member->item);
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
    range = Trim(range.substr(0, range.find(';')));
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
  const action_model::Action* model = action_model::Find(action);
  return Members(root, model != nullptr ? model->input : std::span<const Member>());
}

Rendering RenderingFor(const HttpRequest& request) {
  const std::string* accept = request.Header("accept");
  return accept != nullptr && ListsJsonMediaType(*accept) ? Rendering::kJson : Rendering::kXml;
}

HttpResponse EncodeResult(std::string_view action, const Json& output,
                          const std::string& request_id, Rendering rendering) {
  const action_model::Action* model = action_model::Find(action);
  if (rendering == Rendering::kJson) {
    HttpResponse r = Base(200, request_id, rendering);
    Json response = Json::object();
    if (model != nullptr && model->has_output) {
      Json result = output.is_object() ? LegacyJson(output, model->output) : Json::object();
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
  if (model != nullptr && model->has_output) {
    std::string members;
    if (output.is_object()) AppendMembers(members, output, model->output);
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
