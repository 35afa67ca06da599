// The hot actions' output members, one encoder each (see action_outputs.h).

#include "server/action_outputs.h"

#include "server/output_writer.h"
#include "server/text_util.h"

namespace lqsd {
namespace {

// ---- Writing output members (one encoder per output, output_writer.h) ----------------

template <typename W>
void WriteMember(W& w, std::string_view key, std::string_view value) {
  w.Key(key);
  w.String(value);
}

template <typename W>
void WriteOptMember(W& w, std::string_view key, const std::optional<std::string>& value) {
  if (value) WriteMember(w, key, *value);
}

// `key`: a list with an object per item, whose members `write_members(item)`
// writes.
template <typename W, typename Item, typename WriteMembers>
void WriteObjectList(W& w, std::string_view key, const std::vector<Item>& items,
                     WriteMembers&& write_members) {
  w.Key(key);
  w.BeginList();
  for (const Item& item : items) {
    w.BeginObject();
    write_members(item);
    w.EndObject();
  }
  w.EndList();
}

// `key`: a map, each value as `write_value(value)` writes it; left out
// when the map is empty.
template <typename W, typename Map, typename WriteValue>
void WriteMapMember(W& w, std::string_view key, const Map& map, WriteValue&& write_value) {
  if (map.empty()) return;
  w.Key(key);
  w.BeginObject();
  for (const auto& [k, v] : map) {
    w.MapKey(k);
    write_value(v);
  }
  w.EndObject();
}

// wire::MessageAttributeValueJson's members: the value, then DataType.
template <typename W>
void WriteAttributeValue(W& w, const lqs::MessageAttributeValue& v) {
  w.BeginObject();
  if (v.IsBinary()) {
    WriteMember(w, "BinaryValue", Base64Encode(v.binary_value));
  } else {
    WriteMember(w, "StringValue", v.string_value);
  }
  WriteMember(w, "DataType", v.data_type);
  w.EndObject();
}

// The optional digests of a send, in the order both send actions give them.
template <typename W>
void WriteSendDigests(W& w, const lqs::SendMessageResult& r) {
  WriteOptMember(w, "MD5OfMessageAttributes", r.md5_of_message_attributes);
  WriteOptMember(w, "MD5OfMessageSystemAttributes", r.md5_of_message_system_attributes);
}

// A batch's output: "Successful", an object per entry whose members
// `write_members(entry)` writes, then "Failed" (TextOutput leaves either out
// when empty).
template <typename W, typename Entry, typename WriteMembers>
void WriteBatch(W& w, const std::vector<Entry>& successful,
                const std::vector<lqs::BatchResultError>& failed, WriteMembers&& write_members) {
  w.BeginObject();
  WriteObjectList(w, "Successful", successful, write_members);
  WriteObjectList(w, "Failed", failed, [&w](const lqs::BatchResultError& f) {
    WriteMember(w, "Id", f.id);
    w.Key("SenderFault");
    w.Bool(f.sender_fault);
    WriteMember(w, "Code", f.code);
    WriteMember(w, "Message", f.message);
  });
  w.EndObject();
}

// ---- Each output's encoder and the text size it reserves ---------------------------

template <typename W>
void WriteOutput(W& w, const lqs::SendMessageResult& r) {
  w.BeginObject();
  WriteMember(w, "MD5OfMessageBody", r.md5_of_message_body);
  WriteSendDigests(w, r);
  WriteMember(w, "MessageId", r.message_id);
  WriteOptMember(w, "SequenceNumber", r.sequence_number);
  w.EndObject();
}

template <typename W>
void WriteOutput(W& w, const lqs::SendMessageBatchResult& result) {
  WriteBatch(w, result.successful, result.failed, [&w](const lqs::SendMessageBatchResultEntry& ok) {
    WriteMember(w, "Id", ok.id);
    WriteMember(w, "MessageId", ok.result.message_id);
    WriteMember(w, "MD5OfMessageBody", ok.result.md5_of_message_body);
    WriteSendDigests(w, ok.result);
    WriteOptMember(w, "SequenceNumber", ok.result.sequence_number);
  });
}

template <typename W>
void WriteOutput(W& w, const lqs::BatchResult& result) {
  WriteBatch(w, result.successful, result.failed,
             [&w](const std::string& id) { WriteMember(w, "Id", id); });
}

// wire::ReceivedMessageJson's members, for each message; "Messages" absent
// when there are none (docs/sqs-reference.md §6.5).
template <typename W>
void WriteOutput(W& w, const lqs::ReceiveMessageResult& result) {
  w.BeginObject();
  if (!result.messages.empty()) {
    WriteObjectList(w, "Messages", result.messages, [&w](const lqs::ReceivedMessage& m) {
      WriteMember(w, "MessageId", m.message_id);
      WriteMember(w, "ReceiptHandle", m.receipt_handle);
      WriteMember(w, "MD5OfBody", m.md5_of_body);
      WriteMember(w, "Body", m.body);
      WriteMapMember(w, "Attributes", m.attributes, [&w](const std::string& v) { w.String(v); });
      WriteOptMember(w, "MD5OfMessageAttributes", m.md5_of_message_attributes);
      WriteMapMember(w, "MessageAttributes", m.message_attributes,
                     [&w](const lqs::MessageAttributeValue& v) { WriteAttributeValue(w, v); });
    });
  }
  w.EndObject();
}

// The size to reserve for an output's text: ReceiveMessage's when nothing
// needs escaping, a typical size for the others (one allocation for the
// whole answer).
size_t TextSize(const lqs::SendMessageResult&) { return 160; }

size_t TextSize(const lqs::SendMessageBatchResult& result) {
  return 64 + 160 * result.successful.size();
}

size_t TextSize(const lqs::BatchResult& result) { return 64 + 24 * result.successful.size(); }

size_t TextSize(const lqs::ReceiveMessageResult& result) {
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
  return size;
}

// ---- The two forms of an output -----------------------------------------------------

// The query protocol's form: a tree for its encoder.
template <typename Result>
Json Tree(const Result& result) {
  TreeOutput w;
  WriteOutput(w, result);
  return w.Take();
}

// The JSON protocol's form: the text itself.
template <typename Result>
std::string Text(const Result& result) {
  TextOutput w(TextSize(result));
  WriteOutput(w, result);
  return w.Take();
}

template <typename Result>
void Set(Protocol protocol, const Result& result, ActionResult* out) {
  if (protocol == Protocol::kJson) {
    out->json_body = Text(result);
  } else {
    out->output = Tree(result);
  }
}

}  // namespace

void SetOutput(Protocol protocol, const lqs::SendMessageResult& result, ActionResult* out) {
  Set(protocol, result, out);
}

void SetOutput(Protocol protocol, const lqs::SendMessageBatchResult& result, ActionResult* out) {
  Set(protocol, result, out);
}

void SetOutput(Protocol protocol, const lqs::BatchResult& result, ActionResult* out) {
  Set(protocol, result, out);
}

void SetOutput(Protocol protocol, const lqs::ReceiveMessageResult& result, ActionResult* out) {
  Set(protocol, result, out);
}

Json ReceiveMessageOutput(const lqs::ReceiveMessageResult& result) { return Tree(result); }

std::string ReceiveMessageOutputJson(const lqs::ReceiveMessageResult& result) {
  return Text(result);
}

Json SendMessageBatchOutput(const lqs::SendMessageBatchResult& result) { return Tree(result); }

std::string SendMessageBatchOutputJson(const lqs::SendMessageBatchResult& result) {
  return Text(result);
}

Json BatchResultOutput(const lqs::BatchResult& result) { return Tree(result); }

std::string BatchResultOutputJson(const lqs::BatchResult& result) { return Text(result); }

}  // namespace lqsd
