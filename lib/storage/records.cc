#include "lib/storage/records.h"

#include <cstdint>
#include <vector>

#include <flatbuffers/flatbuffers.h>
#include <rocksdb/write_batch.h>

#include "lib/storage/keys.h"
#include "lib/storage/records_generated.h"

namespace lqs::storage {
namespace {

constexpr char kVisibleVersion = 1;
constexpr char kLeaseVersion = 1;

std::string Str(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

std::string Finish(flatbuffers::FlatBufferBuilder& fbb) {
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

// Flatbuffers read scalars in place, so a buffer must be 8-byte aligned;
// RocksDB's value buffers need not be. Misaligned input is copied into
// `*aligned` (std::string storage is at least 8-byte aligned) first.
template <typename T>
const T* VerifiedRoot(std::string_view data, std::string* aligned) {
  if (reinterpret_cast<uintptr_t>(data.data()) % 8 != 0) {
    aligned->assign(data.data(), data.size());
    data = *aligned;
  }
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  if (!verifier.VerifyBuffer<T>(nullptr)) return nullptr;
  return flatbuffers::GetRoot<T>(data.data());
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> KeyValues(
    flatbuffers::FlatBufferBuilder& fbb,
    const std::vector<std::pair<std::string, std::string>>& kvs) {
  std::vector<flatbuffers::Offset<fb::KeyValue>> out;
  out.reserve(kvs.size());
  for (const auto& [k, v] : kvs) {
    out.push_back(fb::CreateKeyValue(fbb, fbb.CreateString(k), fbb.CreateString(v)));
  }
  return fbb.CreateVector(out);
}

void ReadKeyValues(const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* kvs,
                   std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  if (kvs == nullptr) return;
  for (const fb::KeyValue* kv : *kvs) out->emplace_back(Str(kv->key()), Str(kv->value()));
}

}  // namespace

namespace {

// A FlatBufferBuilder that can leave a string's bytes unwritten: the record
// is then passed on in three parts, the body in the middle copied by its
// reader (a WriteBatch) straight from the caller's buffer.
class HoleBuilder : public flatbuffers::FlatBufferBuilder {
 public:
  using FlatBufferBuilder::FlatBufferBuilder;

  // CreateString(len bytes) with the bytes left uninitialised; *hole_end is
  // GetSize() right after the bytes' space was made, which places them in
  // the finished buffer (EncodeMessageAround).
  flatbuffers::Offset<flatbuffers::String> CreateStringHole(size_t len, size_t* hole_end) {
    NotNested();
    PreAlign<flatbuffers::uoffset_t>(len + 1);  // as CreateString: 0-terminated
    buf_.fill(1);
    buf_.make_space(len);
    *hole_end = GetSize();
    PushElement(static_cast<flatbuffers::uoffset_t>(len));
    return flatbuffers::Offset<flatbuffers::String>(GetSize());
  }
};

// One builder per thread, reused: a send encodes one record per message.
// Its buffer is released at the next call after an unusually large record,
// so that a thread does not keep a megabyte for one big message (the body's
// part of it is never written, so never resident).
HoleBuilder& ThreadBuilder() {
  thread_local HoleBuilder fbb(1024);
  constexpr size_t kKeptBufferBytes = 64 << 10;
  if (fbb.GetSize() > kKeptBufferBytes) {
    fbb.Reset();
  } else {
    fbb.Clear();
  }
  return fbb;
}

}  // namespace

MessageRecordParts EncodeMessageAround(const Message& m, std::string_view body) {
  HoleBuilder& fbb = ThreadBuilder();
  // Empty strings are left out of the record (a missing field reads as "",
  // DecodeMessage's Str()); the id and the body are always written.
  auto optional_string = [&fbb](const std::string& s) {
    return s.empty() ? flatbuffers::Offset<flatbuffers::String>() : fbb.CreateString(s);
  };
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Attribute>>> attrs_off;
  if (!m.attributes.empty()) {
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
    attrs.reserve(m.attributes.size());
    for (const auto& [name, value] : m.attributes) {
      flatbuffers::Offset<flatbuffers::Vector<uint8_t>> bin;
      if (!value.binary_value.empty()) {
        bin = fbb.CreateVector(reinterpret_cast<const uint8_t*>(value.binary_value.data()),
                               value.binary_value.size());
      }
      attrs.push_back(fb::CreateAttribute(fbb, fbb.CreateString(name),
                                          fbb.CreateString(value.data_type),
                                          optional_string(value.string_value), bin));
    }
    attrs_off = fbb.CreateVector(attrs);
  }
  auto id = fbb.CreateString(m.message_id);
  size_t hole_end = 0;
  auto body_off = fbb.CreateStringHole(body.size(), &hole_end);
  auto md5 = optional_string(m.md5_of_body);
  auto md5a = optional_string(m.md5_of_attributes);
  auto trace = optional_string(m.aws_trace_header);
  auto group = optional_string(m.message_group_id);
  auto dedup = optional_string(m.message_deduplication_id);
  auto seqnum = optional_string(m.sequence_number);
  auto sender = optional_string(m.sender_id);
  auto dlq = optional_string(m.dead_letter_source_arn);
  fb::MessageRecordBuilder b(fbb);
  b.add_message_id(id);
  b.add_body(body_off);
  b.add_md5_of_body(md5);
  b.add_attributes(attrs_off);
  b.add_md5_of_attributes(md5a);
  b.add_aws_trace_header(trace);
  b.add_message_group_id(group);
  b.add_message_deduplication_id(dedup);
  b.add_sequence_number(seqnum);
  b.add_sent_timestamp_ms(m.sent_timestamp_ms);
  b.add_sender_id(sender);
  b.add_dead_letter_source_arn(dlq);
  if (m.queued_by_seq) b.add_queued_by_seq(true);
  fbb.Finish(b.Finish());
  // The buffer grows downwards: what was made at size S starts GetSize() - S
  // bytes into the finished buffer.
  const std::string_view all(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  const size_t hole = all.size() - hole_end;
  return MessageRecordParts{all.substr(0, hole), body, all.substr(hole + body.size())};
}

std::string EncodeMessage(const Message& m) {
  const MessageRecordParts parts = EncodeMessageAround(m, m.body);
  std::string record;
  record.reserve(parts.size());
  record.append(parts.head).append(parts.body).append(parts.tail);
  return record;
}

void PutMessage(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* cf, std::string_view key,
                const Message& m, std::string_view body) {
  const MessageRecordParts parts = EncodeMessageAround(m, body);
  const rocksdb::Slice key_slice(key.data(), key.size());
  const rocksdb::Slice value[3] = {{parts.head.data(), parts.head.size()},
                                   {parts.body.data(), parts.body.size()},
                                   {parts.tail.data(), parts.tail.size()}};
  batch->Put(cf, rocksdb::SliceParts(&key_slice, 1), rocksdb::SliceParts(value, 3));
}

namespace {

const fb::MessageRecord* VerifiedMessage(std::string_view data, std::string_view where,
                                         std::string* aligned, Status* st) {
  const fb::MessageRecord* r = VerifiedRoot<fb::MessageRecord>(data, aligned);
  if (r == nullptr || r->message_id() == nullptr || r->body() == nullptr) {
    *st = Status(ErrorCode::kCorruption,
                 "stored message " + std::string(where) + " failed verification");
    return nullptr;
  }
  return r;
}

void CopyMessage(const fb::MessageRecord* r, Message* out) {
  out->message_id = Str(r->message_id());
  out->body = Str(r->body());
  out->md5_of_body = Str(r->md5_of_body());
  out->attributes.clear();
  if (r->attributes() != nullptr) {
    for (const fb::Attribute* a : *r->attributes()) {
      MessageAttributeValue v;
      v.data_type = Str(a->data_type());
      v.string_value = Str(a->string_value());
      if (a->binary_value() != nullptr) {
        v.binary_value.assign(reinterpret_cast<const char*>(a->binary_value()->data()),
                              a->binary_value()->size());
      }
      out->attributes.emplace(Str(a->name()), std::move(v));
    }
  }
  out->md5_of_attributes = Str(r->md5_of_attributes());
  out->aws_trace_header = Str(r->aws_trace_header());
  out->message_group_id = Str(r->message_group_id());
  out->message_deduplication_id = Str(r->message_deduplication_id());
  out->sequence_number = Str(r->sequence_number());
  out->sent_timestamp_ms = r->sent_timestamp_ms();
  out->sender_id = Str(r->sender_id());
  out->dead_letter_source_arn = Str(r->dead_letter_source_arn());
  out->queued_by_seq = r->queued_by_seq();
}

}  // namespace

Status DecodeMessage(std::string_view data, std::string_view where, Message* out) {
  std::string aligned;
  Status st;
  const fb::MessageRecord* r = VerifiedMessage(data, where, &aligned, &st);
  if (r == nullptr) return st;
  CopyMessage(r, out);
  return Status::OK();
}

Status DecodeMessageIfQueuedBySeq(std::string_view data, std::string_view where, Message* out,
                                  bool* queued_by_seq) {
  std::string aligned;
  Status st;
  const fb::MessageRecord* r = VerifiedMessage(data, where, &aligned, &st);
  if (r == nullptr) return st;
  *queued_by_seq = r->queued_by_seq();
  if (*queued_by_seq) CopyMessage(r, out);
  return Status::OK();
}

std::string EncodeQueueRecord(const QueueRecord& q) {
  flatbuffers::FlatBufferBuilder fbb(512);
  auto name = fbb.CreateString(q.name);
  auto attrs = KeyValues(fbb, q.attributes);
  auto tags = KeyValues(fbb, q.tags);
  auto scope_before = q.deduplication_scope_before.empty()
                          ? flatbuffers::Offset<flatbuffers::String>()
                          : fbb.CreateString(q.deduplication_scope_before);
  fb::QueueRecordBuilder b(fbb);
  b.add_id(q.id);
  b.add_name(name);
  b.add_fifo(q.fifo);
  b.add_created_ms(q.created_ms);
  b.add_modified_ms(q.modified_ms);
  b.add_last_purge_ms(q.last_purge_ms);
  b.add_attributes(attrs);
  b.add_tags(tags);
  b.add_deduplication_scope_before(scope_before);
  b.add_deduplication_scope_changed_ms(q.deduplication_scope_changed_ms);
  fbb.Finish(b.Finish());
  return Finish(fbb);
}

Status DecodeQueueRecord(std::string_view data, QueueRecord* out) {
  std::string aligned;
  const fb::QueueRecord* r = VerifiedRoot<fb::QueueRecord>(data, &aligned);
  if (r == nullptr || r->name() == nullptr) {
    return Status(ErrorCode::kCorruption, "stored queue record failed verification");
  }
  out->id = r->id();
  out->name = Str(r->name());
  out->fifo = r->fifo();
  out->created_ms = r->created_ms();
  out->modified_ms = r->modified_ms();
  out->last_purge_ms = r->last_purge_ms();
  ReadKeyValues(r->attributes(), &out->attributes);
  ReadKeyValues(r->tags(), &out->tags);
  out->deduplication_scope_before = Str(r->deduplication_scope_before());
  out->deduplication_scope_changed_ms = r->deduplication_scope_changed_ms();
  return Status::OK();
}

std::string EncodeMoveTask(const MoveTaskRecord& t) {
  flatbuffers::FlatBufferBuilder fbb(256);
  auto id = fbb.CreateString(t.task_id);
  auto src = fbb.CreateString(t.source_arn);
  auto dst = fbb.CreateString(t.destination_arn);
  auto status = fbb.CreateString(t.status);
  auto reason = fbb.CreateString(t.failure_reason);
  fb::MoveTaskRecordBuilder b(fbb);
  b.add_task_id(id);
  b.add_source_arn(src);
  b.add_destination_arn(dst);
  b.add_rate(t.rate);
  b.add_status(status);
  b.add_moved(t.moved);
  b.add_to_move(t.to_move);
  b.add_failure_reason(reason);
  b.add_started_ms(t.started_ms);
  fbb.Finish(b.Finish());
  return Finish(fbb);
}

Status DecodeMoveTask(std::string_view data, MoveTaskRecord* out) {
  std::string aligned;
  const fb::MoveTaskRecord* r = VerifiedRoot<fb::MoveTaskRecord>(data, &aligned);
  if (r == nullptr || r->task_id() == nullptr) {
    return Status(ErrorCode::kCorruption, "stored move task failed verification");
  }
  out->task_id = Str(r->task_id());
  out->source_arn = Str(r->source_arn());
  out->destination_arn = Str(r->destination_arn());
  out->rate = r->rate();
  out->status = Str(r->status());
  out->moved = r->moved();
  out->to_move = r->to_move();
  out->failure_reason = Str(r->failure_reason());
  out->started_ms = r->started_ms();
  return Status::OK();
}

std::string EncodeVisible(const VisibleEntry& e) {
  std::string out;
  out.reserve(22);
  out.push_back(kVisibleVersion);
  PutLE32(&out, e.receive_count);
  PutLE64(&out, static_cast<uint64_t>(e.first_receive_ms));
  PutLE64(&out, static_cast<uint64_t>(e.sent_ms));
  out.push_back(e.has_expiry_entry ? 1 : 0);
  return out;
}

bool DecodeVisible(std::string_view data, VisibleEntry* out) {
  if (data.size() != 22 || data[0] != kVisibleVersion) return false;
  out->receive_count = GetLE32(data.data() + 1);
  out->first_receive_ms = static_cast<int64_t>(GetLE64(data.data() + 5));
  out->sent_ms = static_cast<int64_t>(GetLE64(data.data() + 13));
  out->has_expiry_entry = data[21] != 0;
  return true;
}

std::string EncodeLease(const LeaseEntry& e) {
  std::string out;
  out.reserve(37);
  out.push_back(kLeaseVersion);
  PutLE64(&out, static_cast<uint64_t>(e.visible_at_ms));
  PutLE32(&out, e.receive_count);
  PutLE64(&out, static_cast<uint64_t>(e.first_receive_ms));
  PutLE64(&out, static_cast<uint64_t>(e.sent_ms));
  PutLE64(&out, static_cast<uint64_t>(e.lease_start_ms));
  out.append(e.group);
  return out;
}

bool DecodeLease(std::string_view data, LeaseEntry* out) {
  if (data.size() < 37 || data[0] != kLeaseVersion) return false;
  out->visible_at_ms = static_cast<int64_t>(GetLE64(data.data() + 1));
  out->receive_count = GetLE32(data.data() + 9);
  out->first_receive_ms = static_cast<int64_t>(GetLE64(data.data() + 13));
  out->sent_ms = static_cast<int64_t>(GetLE64(data.data() + 21));
  out->lease_start_ms = static_cast<int64_t>(GetLE64(data.data() + 29));
  out->group.assign(data.data() + 37, data.size() - 37);
  return true;
}

std::string EncodeDedup(const DedupEntry& e) {
  std::string out;
  PutLE64(&out, static_cast<uint64_t>(e.first_ms));
  PutLE32(&out, static_cast<uint32_t>(e.message_id.size()));
  out.append(e.message_id);
  out.append(e.sequence_number);
  return out;
}

bool DecodeDedup(std::string_view data, DedupEntry* out) {
  if (data.size() < 12) return false;
  out->first_ms = static_cast<int64_t>(GetLE64(data.data()));
  const uint32_t id_len = GetLE32(data.data() + 8);
  if (data.size() < 12 + static_cast<size_t>(id_len)) return false;
  out->message_id.assign(data.data() + 12, id_len);
  out->sequence_number.assign(data.data() + 12 + id_len, data.size() - 12 - id_len);
  return true;
}

}  // namespace lqs::storage
