// Message records: every field survives a round trip, the split encoder
// (EncodeMessageAround, PutMessage) writes the stock bytes around the
// caller's body, empty fields are left out of the record and read back as
// empty, and the per-thread builder keeps no state from one record to the
// next. Queue records: a pending DeduplicationScope change, absent in
// records of earlier builds.

#include "lib/storage/records.h"

#include <string>
#include <tuple>

#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include "lib/storage/records_generated.h"

namespace lqs::storage {
namespace {

Message FullMessage() {
  Message m;
  m.message_id = "5fea7756-0ea4-451a-a703-a558b933e274";
  m.body = std::string("body with \0 a zero byte", 23);
  m.md5_of_body = "0123456789abcdef0123456789abcdef";
  m.attributes["colour"] = MessageAttributeValue{"String", "blue", ""};
  m.attributes["count"] = MessageAttributeValue{"Number.int", "42", ""};
  m.attributes["raw"] = MessageAttributeValue{"Binary", "", std::string("\x00\xff\x10", 3)};
  m.md5_of_attributes = "fedcba9876543210fedcba9876543210";
  m.aws_trace_header = "Root=1-5759e988-bd862e3fe1be46a994272793";
  m.message_group_id = "group";
  m.message_deduplication_id = "dedup";
  m.sequence_number = "18849496460467696128";
  m.sent_timestamp_ms = 1700000000123;
  m.sender_id = "AIDAIENQZJOLO23YVJ4VO";
  m.dead_letter_source_arn = "arn:aws:sqs:us-east-1:123456789012:source";
  return m;
}

// The fields a message record keeps, compared as one tuple (a failure
// prints both).
auto StoredFields(const Message& m) {
  return std::tie(m.message_id, m.body, m.md5_of_body, m.attributes, m.md5_of_attributes,
                  m.aws_trace_header, m.message_group_id, m.message_deduplication_id,
                  m.sequence_number, m.sent_timestamp_ms, m.sender_id, m.dead_letter_source_arn);
}

void ExpectSame(const Message& a, const Message& b) { EXPECT_EQ(StoredFields(a), StoredFields(b)); }

TEST(MessageRecordTest, EveryFieldRoundTrips) {
  const Message m = FullMessage();
  Message out;
  ASSERT_TRUE(DecodeMessage(EncodeMessage(m), "q/1", &out).ok());
  ExpectSame(m, out);
}

TEST(MessageRecordTest, EmptyFieldsAreLeftOutAndReadBackEmpty) {
  Message m;
  m.message_id = "id";
  m.body = "b";
  m.sent_timestamp_ms = 5;
  const std::string minimal = EncodeMessage(m);
  Message out = FullMessage();  // decoding must overwrite every field
  ASSERT_TRUE(DecodeMessage(minimal, "q/2", &out).ok());
  ExpectSame(m, out);
  // Eight empty strings and an empty attribute vector would take at least
  // 8 + 4 bytes each, and their vtable slots; the minimal record has none.
  Message with_one = m;
  with_one.sender_id = "s";
  EXPECT_LT(minimal.size() + 8, EncodeMessage(with_one).size());
}

TEST(MessageRecordTest, TheReusedBuilderCarriesNothingOver) {
  const Message small = FullMessage();
  const std::string first = EncodeMessage(small);
  Message big = FullMessage();
  big.body.assign(300 << 10, 'x');  // larger than the builder keeps
  Message out;
  ASSERT_TRUE(DecodeMessage(EncodeMessage(big), "q/3", &out).ok());
  EXPECT_EQ(out.body.size(), big.body.size());
  EXPECT_EQ(EncodeMessage(small), first);
  Message minimal;
  minimal.message_id = "id";
  minimal.body = "b";
  ASSERT_TRUE(DecodeMessage(EncodeMessage(minimal), "q/4", &out).ok());
  ExpectSame(minimal, out);
}

// The record as flatbuffers' own CreateString lays it out (every build
// before the split encoder wrote these bytes): id, body and md5 only.
std::string StockRecord(const Message& m) {
  flatbuffers::FlatBufferBuilder fbb(64);
  // Made in the encoder's order (a braced list evaluates left to right).
  const flatbuffers::Offset<flatbuffers::String> id_body_md5[] = {
      fbb.CreateString(m.message_id), fbb.CreateString(m.body), fbb.CreateString(m.md5_of_body)};
  fb::MessageRecordBuilder b(fbb);
  b.add_message_id(id_body_md5[0]);
  b.add_body(id_body_md5[1]);
  b.add_md5_of_body(id_body_md5[2]);
  b.add_sent_timestamp_ms(m.sent_timestamp_ms);
  fbb.Finish(b.Finish());
  return {reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize()};
}

TEST(MessageRecordTest, TheSplitRecordIsTheStockRecordAroundTheCallersBody) {
  for (const size_t size : {size_t{0}, size_t{1}, size_t{3}, size_t{4096}, size_t{300} << 10}) {
    SCOPED_TRACE(size);
    Message m;
    m.message_id = "5fea7756-0ea4-451a-a703-a558b933e274";
    m.md5_of_body = "0123456789abcdef0123456789abcdef";
    m.sent_timestamp_ms = 1700000000123;
    std::string body(size, 'b');
    if (size > 2) body[size / 2] = '\0';
    const MessageRecordParts parts = EncodeMessageAround(m, body);
    EXPECT_EQ(parts.body.data(), body.data());  // not copied
    const std::string joined = std::string(parts.head).append(parts.body).append(parts.tail);
    EXPECT_EQ(joined.size(), parts.size());
    m.body = body;
    EXPECT_EQ(joined, StockRecord(m));
    EXPECT_EQ(EncodeMessage(m), joined);
    Message out;
    ASSERT_TRUE(DecodeMessage(joined, "q/7", &out).ok());
    ExpectSame(m, out);
  }
}

TEST(MessageRecordTest, PutMessageWritesWhatPutOfTheEncodedRecordWrites) {
  Message m = FullMessage();
  const std::string body(70 << 10, 'z');
  rocksdb::WriteBatch split;
  PutMessage(&split, nullptr, "key", m, body);
  m.body = body;
  rocksdb::WriteBatch whole;
  ASSERT_TRUE(whole.Put("key", EncodeMessage(m)).ok());
  EXPECT_EQ(split.Data(), whole.Data());
}

TEST(MessageRecordTest, GarbageIsCorruptionAndTheIdAndBodyAreAlwaysWritten) {
  Message out;
  EXPECT_EQ(DecodeMessage("not a flatbuffer", "q/5", &out).code(), ErrorCode::kCorruption);
  Message no_id;
  no_id.body = "b";
  EXPECT_EQ(DecodeMessage(EncodeMessage(no_id), "q/6", &out).code(), ErrorCode::kOk);
}

TEST(QueueRecordTest, PendingDeduplicationScopeRoundTripsAndIsLeftOutWhenEmpty) {
  QueueRecord q;
  q.id = 7;
  q.name = "q.fifo";
  q.fifo = true;
  q.created_ms = 1;
  q.modified_ms = 2;
  q.attributes = {{"DeduplicationScope", "queue"}};
  q.tags = {{"team", "a"}};
  q.deduplication_scope_before = "messageGroup";
  q.deduplication_scope_changed_ms = 1234;
  const std::string with_scope = EncodeQueueRecord(q);
  QueueRecord out;
  ASSERT_TRUE(DecodeQueueRecord(with_scope, &out).ok());
  EXPECT_EQ(out.name, "q.fifo");
  EXPECT_EQ(out.attributes, q.attributes);
  EXPECT_EQ(out.tags, q.tags);
  EXPECT_EQ(out.deduplication_scope_before, "messageGroup");
  EXPECT_EQ(out.deduplication_scope_changed_ms, 1234);
  // Absent (as in records of earlier builds): read back as "" and 0.
  q.deduplication_scope_before.clear();
  q.deduplication_scope_changed_ms = 0;
  const std::string without = EncodeQueueRecord(q);
  EXPECT_LT(without.size(), with_scope.size());
  out.deduplication_scope_before = "stale";
  out.deduplication_scope_changed_ms = 9;
  ASSERT_TRUE(DecodeQueueRecord(without, &out).ok());
  EXPECT_EQ(out.deduplication_scope_before, "");
  EXPECT_EQ(out.deduplication_scope_changed_ms, 0);
}

}  // namespace
}  // namespace lqs::storage
