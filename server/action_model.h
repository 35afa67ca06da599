// server/action_model.h — the SQS actions as data: the one description of
// each action's wire shape that both protocols are driven from.
//
// One row per action of docs/sqs-reference.md §2.1 says whether it addresses
// a queue, which input members it takes (their JSON-protocol names and types,
// which are required, and the names the query protocol flattens them to,
// §11.2), and which of its output members are lists or maps (the element
// names the query protocol's XML and its legacy JSON rendering write them
// with, §11.4, §11.7). Scalar output members need no row: both protocols
// write them under their own names.
//
// Users: the router (which actions exist, which address a queue), the query
// codec (sqs_query.cc: decoding into the JSON-protocol shape, encoding the
// output), the handlers' table (actions.cc), which must have one handler
// per row (Actions' constructor checks it) and checks the required members,
// and the Python client (lqs._lqs.action_model(): its parameter checks).
//
// Adding an action: one row in action_model.cc, and its handler
// (CONTRIBUTING.md, "How to add an SQS action").
//
// Thread safety: immutable data; every function is pure.

#ifndef LQS_SERVER_ACTION_MODEL_H_
#define LQS_SERVER_ACTION_MODEL_H_

#include <span>
#include <string_view>

namespace lqsd::action_model {

// An input member's type.
enum class Kind {
  kString,               // also blobs (base64 text on both protocols)
  kInteger,              // a JSON number; a decimal text on the query protocol
  kStringList,           // query: Name.1, Name.2, ...
  kStringMap,            // query: Name.N.<key_name>, Name.N.<value_name>
  kMessageAttributeMap,  // query: Name.N.Name, Name.N.Value.{DataType,StringValue,...}
  kEntryList,            // query: Name.N.<member> for each of `entry`
};

struct Member {
  std::string_view json_name;  // "AttributeNames"
  Kind kind = Kind::kString;
  std::string_view query_name = {};    // "AttributeName"; empty: json_name
  std::string_view key_name = {};      // kStringMap: "Name" or "Key"
  std::string_view value_name = {};    // kStringMap: "Value"
  std::span<const Member> entry = {};  // kEntryList: one entry's members
  // SQS's API marks the member required (docs/sqs-reference.md §6): the
  // Python client rejects a call without it before sending, as botocore
  // does, and lqsd answers MissingParameter (Actions checks these before
  // the handler runs; a queue's URL and a batch's Entries are checked by
  // the handlers: routing, and EmptyBatchRequest).
  bool required = false;

  std::string_view QueryName() const { return query_name.empty() ? json_name : query_name; }
};

// How an output member that is not a scalar is flattened.
enum class OutputKind {
  kList,          // each item as <element>...</element>
  kFlattenedMap,  // each pair as <element><key_name>k</key_name><Value>v</Value></element>
};

struct OutputMember {
  std::string_view json_name;  // "Messages"
  OutputKind kind;
  std::string_view element;        // "Message"
  std::string_view key_name = {};  // kFlattenedMap: "Name" or "Key"
  // The member's name in the query protocol's JSON rendering, where AWS
  // spells it otherwise (ReceiveMessage's "messages"); empty: json_name.
  std::string_view legacy_json_name = {};
  std::span<const OutputMember> item = {};  // kList of structures: their own such members
};

struct Action {
  std::string_view name;  // "SendMessage"
  bool targets_queue;     // addressed by QueueUrl, or the request path
  bool has_output;        // the query protocol writes an <{Action}Result> element
  std::span<const Member> input;
  std::span<const OutputMember> output;
};

// The 23 actions, in the order of docs/sqs-reference.md §2.1.
std::span<const Action> All();

// The row of `name` (case-sensitive, as SQS), or nullptr.
const Action* Find(std::string_view name);

// The member called `name` (its QueryName() when `by_query_name`, else its
// json_name) among `members`, or nullptr.
const Member* FindMember(std::span<const Member> members, std::string_view name,
                         bool by_query_name);
const OutputMember* FindOutput(std::span<const OutputMember> members, std::string_view name);

}  // namespace lqsd::action_model

#endif  // LQS_SERVER_ACTION_MODEL_H_
