// The hot actions' output members, one encoder each (see action_outputs.h).

#include "server/action_outputs.h"

#include "server/output_writer.h"
#include "server/text_util.h"

namespace lqsd {
namespace {

// ---- Writing output members (one encoder per output, output_writer.h) ----------------

// wire::MessageAttributeValueJson's members: the value, then DataType.
template <typename W>
void WriteAttributeValue(W& w, const lqs::MessageAttributeValue& v) {
  w.BeginObject();
  if (v.IsBinary()) {
    w.Key("BinaryValue");
    w.String(Base64Encode(v.binary_value));
  } else {
    w.Key("StringValue");
    w.String(v.string_value);
  }
  w.Key("DataType");
  w.String(v.data_type);
  w.EndObject();
}

template <typename W>
void WriteOptMember(W& w, std::string_view key, const std::optional<std::string>& value) {
  if (!value) return;
  w.Key(key);
  w.String(*value);
}

// The optional digests of a send, in the order both send actions give them.
template <typename W>
void WriteSendDigests(W& w, const lqs::SendMessageResult& r) {
  WriteOptMember(w, "MD5OfMessageAttributes", r.md5_of_message_attributes);
  WriteOptMember(w, "MD5OfMessageSystemAttributes", r.md5_of_message_system_attributes);
}

template <typename W>
void WriteSendMessage(W& w, const lqs::SendMessageResult& r) {
  w.BeginObject();
  w.Key("MD5OfMessageBody");
  w.String(r.md5_of_message_body);
  WriteSendDigests(w, r);
  w.Key("MessageId");
  w.String(r.message_id);
  WriteOptMember(w, "SequenceNumber", r.sequence_number);
  w.EndObject();
}

// A batch's "Failed" (TextOutput leaves it out when empty).
template <typename W>
void WriteFailed(W& w, const std::vector<lqs::BatchResultError>& failed) {
  w.Key("Failed");
  w.BeginList();
  for (const lqs::BatchResultError& f : failed) {
    w.BeginObject();
    w.Key("Id");
    w.String(f.id);
    w.Key("SenderFault");
    w.Bool(f.sender_fault);
    w.Key("Code");
    w.String(f.code);
    w.Key("Message");
    w.String(f.message);
    w.EndObject();
  }
  w.EndList();
}

template <typename W>
void WriteSendMessageBatch(W& w, const lqs::SendMessageBatchResult& result) {
  w.BeginObject();
  w.Key("Successful");
  w.BeginList();
  for (const lqs::SendMessageBatchResultEntry& ok : result.successful) {
    w.BeginObject();
    w.Key("Id");
    w.String(ok.id);
    w.Key("MessageId");
    w.String(ok.result.message_id);
    w.Key("MD5OfMessageBody");
    w.String(ok.result.md5_of_message_body);
    WriteSendDigests(w, ok.result);
    WriteOptMember(w, "SequenceNumber", ok.result.sequence_number);
    w.EndObject();
  }
  w.EndList();
  WriteFailed(w, result.failed);
  w.EndObject();
}

template <typename W>
void WriteBatchResult(W& w, const lqs::BatchResult& result) {
  w.BeginObject();
  w.Key("Successful");
  w.BeginList();
  for (const std::string& id : result.successful) {
    w.BeginObject();
    w.Key("Id");
    w.String(id);
    w.EndObject();
  }
  w.EndList();
  WriteFailed(w, result.failed);
  w.EndObject();
}

// wire::ReceivedMessageJson's members, for each message; "Messages" absent
// when there are none (docs/sqs-reference.md §6.5).
template <typename W>
void WriteReceiveMessage(W& w, const lqs::ReceiveMessageResult& result) {
  w.BeginObject();
  if (!result.messages.empty()) {
    w.Key("Messages");
    w.BeginList();
    for (const lqs::ReceivedMessage& m : result.messages) {
      w.BeginObject();
      w.Key("MessageId");
      w.String(m.message_id);
      w.Key("ReceiptHandle");
      w.String(m.receipt_handle);
      w.Key("MD5OfBody");
      w.String(m.md5_of_body);
      w.Key("Body");
      w.String(m.body);
      if (!m.attributes.empty()) {
        w.Key("Attributes");
        w.BeginObject();
        for (const auto& [k, v] : m.attributes) {
          w.MapKey(k);
          w.String(v);
        }
        w.EndObject();
      }
      WriteOptMember(w, "MD5OfMessageAttributes", m.md5_of_message_attributes);
      if (!m.message_attributes.empty()) {
        w.Key("MessageAttributes");
        w.BeginObject();
        for (const auto& [k, v] : m.message_attributes) {
          w.MapKey(k);
          WriteAttributeValue(w, v);
        }
        w.EndObject();
      }
      w.EndObject();
    }
    w.EndList();
  }
  w.EndObject();
}

// The size of ReceiveMessage's text when nothing needs escaping (one
// allocation for the whole answer).
size_t ReceiveTextSize(const lqs::ReceiveMessageResult& result) {
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

// `write(writer)` into `out` in the protocol's form: text for the JSON
// protocol, a tree for the query protocol's encoder.
template <typename Write>
void Set(Protocol protocol, size_t reserve, ActionResult* out, Write&& write) {
  if (protocol == Protocol::kJson) {
    TextOutput w(reserve);
    write(w);
    out->json_body = w.Take();
  } else {
    TreeOutput w;
    write(w);
    out->output = w.Take();
  }
}

}  // namespace

Json ReceiveMessageOutput(const lqs::ReceiveMessageResult& result) {
  TreeOutput w;
  WriteReceiveMessage(w, result);
  return w.Take();
}

std::string ReceiveMessageOutputJson(const lqs::ReceiveMessageResult& result) {
  TextOutput w(ReceiveTextSize(result));
  WriteReceiveMessage(w, result);
  return w.Take();
}

Json SendMessageBatchOutput(const lqs::SendMessageBatchResult& result) {
  TreeOutput w;
  WriteSendMessageBatch(w, result);
  return w.Take();
}

std::string SendMessageBatchOutputJson(const lqs::SendMessageBatchResult& result) {
  TextOutput w(64 + 160 * result.successful.size());
  WriteSendMessageBatch(w, result);
  return w.Take();
}

Json BatchResultOutput(const lqs::BatchResult& result) {
  TreeOutput w;
  WriteBatchResult(w, result);
  return w.Take();
}

std::string BatchResultOutputJson(const lqs::BatchResult& result) {
  TextOutput w(64 + 24 * result.successful.size());
  WriteBatchResult(w, result);
  return w.Take();
}
void SetOutput(Protocol protocol, const lqs::SendMessageResult& result, ActionResult* out) {
  Set(protocol, 160, out, [&result](auto& w) { WriteSendMessage(w, result); });
}

void SetOutput(Protocol protocol, const lqs::SendMessageBatchResult& result, ActionResult* out) {
  Set(protocol, 64 + 160 * result.successful.size(), out,
      [&result](auto& w) { WriteSendMessageBatch(w, result); });
}

void SetOutput(Protocol protocol, const lqs::BatchResult& result, ActionResult* out) {
  Set(protocol, 64 + 24 * result.successful.size(), out,
      [&result](auto& w) { WriteBatchResult(w, result); });
}

void SetOutput(Protocol protocol, const lqs::ReceiveMessageResult& result, ActionResult* out) {
  Set(protocol, ReceiveTextSize(result), out,
      [&result](auto& w) { WriteReceiveMessage(w, result); });
}

}  // namespace lqsd
