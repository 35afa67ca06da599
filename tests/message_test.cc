// Send, receive, delete: the basic message lifecycle through the public API.

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "lib/storage/counters.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class MessageTest : public BrokerTest {};

TEST_F(MessageTest, SendReceiveDelete) {
  auto q = MakeQueue("jobs");
  ASSERT_TRUE(q);
  auto sent = SendWithAttributes(*q, "test", {{"Foo", {"String", "Bar", ""}}});
  ASSERT_OK(sent);
  EXPECT_EQ(sent->md5_of_message_body, "098f6bcd4621d373cade4e832627b4f6");
  EXPECT_EQ(sent->md5_of_message_attributes.value_or(""), "ae7155c6026991b6d54b11589678bf9c");
  EXPECT_FALSE(sent->md5_of_message_system_attributes.has_value());
  EXPECT_EQ(sent->message_id.size(), 36u);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 0, 0}));

  auto got = Receive(*q);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "test");
  EXPECT_EQ(got[0].message_id, sent->message_id);
  EXPECT_EQ(got[0].md5_of_body, "098f6bcd4621d373cade4e832627b4f6");
  EXPECT_EQ(got[0].attributes["ApproximateReceiveCount"], "1");
  EXPECT_EQ(got[0].attributes["SentTimestamp"], std::to_string(clock_->NowMillis()));
  EXPECT_EQ(got[0].attributes["ApproximateFirstReceiveTimestamp"],
            std::to_string(clock_->NowMillis()));
  EXPECT_TRUE(got[0].attributes.count("SenderId"));
  EXPECT_EQ(got[0].message_attributes.at("Foo").string_value, "Bar");
  EXPECT_EQ(got[0].md5_of_message_attributes.value_or(""), "ae7155c6026991b6d54b11589678bf9c");
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
  EXPECT_TRUE(Receive(*q).empty());

  ASSERT_OK(q->DeleteMessage(got[0].receipt_handle));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  // Deleting again succeeds, as in SQS.
  EXPECT_OK(q->DeleteMessage(got[0].receipt_handle));
}

TEST_F(MessageTest, ReceivesInSendOrderAndAtMostMax) {
  auto q = MakeQueue("jobs");
  for (int i = 0; i < 25; ++i) Send(*q, "m" + std::to_string(i));
  auto a = Receive(*q, 10);
  auto b = Receive(*q, 10);
  auto c = Receive(*q, 10);
  ASSERT_EQ(a.size(), 10u);
  ASSERT_EQ(b.size(), 10u);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(a[0].body, "m0");
  EXPECT_EQ(c[4].body, "m24");
}

TEST_F(MessageTest, SurvivesReopen) {
  auto q = MakeQueue("jobs");
  for (int i = 0; i < 5; ++i) Send(*q, "m" + std::to_string(i));
  auto got = Receive(*q, 2);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_OK(q->DeleteMessage(got[0].receipt_handle));
  Reopen();
  auto q2 = broker_->GetQueue("jobs");
  ASSERT_OK(q2);
  EXPECT_EQ(Counts(**q2), (std::array<int64_t, 3>{3, 1, 0}));
  // The handle issued before the restart still works.
  EXPECT_OK((*q2)->DeleteMessage(got[1].receipt_handle));
  auto rest = Receive(**q2, 10);
  ASSERT_EQ(rest.size(), 3u);
  EXPECT_EQ(rest[0].body, "m2");
}

TEST_F(MessageTest, StatsAndScanChangeNothing) {
  auto q = MakeQueue("jobs");
  Send(*q, "a");
  clock_->AdvanceSeconds(10);
  Send(*q, "b");
  SendMessageRequest d;
  d.body = "later";
  d.delay_seconds = 60;
  ASSERT_OK(q->SendMessage(d));
  auto got = Receive(*q, 1);
  ASSERT_EQ(got.size(), 1u);
  clock_->AdvanceSeconds(5);
  auto stats = q->GetStats();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->visible, 1);
  EXPECT_EQ(stats->in_flight, 1);
  EXPECT_EQ(stats->delayed, 1);
  EXPECT_EQ(stats->oldest_message_age_seconds, 15);
  EXPECT_EQ(stats->sent_total, 3);
  EXPECT_EQ(stats->received_total, 1);
  std::vector<std::pair<std::string, std::string>> seen;
  ASSERT_OK(q->ScanMessages([&](const StoredMessage& m) {
    seen.emplace_back(m.body, m.state);
    return true;
  }));
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {"a", "in_flight"}, {"b", "visible"}, {"later", "delayed"}}));
  // Nothing changed: the visible message is still there to receive.
  auto again = Receive(*q, 10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].body, "b");
  ASSERT_OK(q->DeleteMessage(got[0].receipt_handle));
  EXPECT_EQ(q->GetStats()->deleted_total, 1);
}

// A message sent without delay or group is queued by its seq alone; a
// delayed one by its visible index entry. Receives merge the two by time.
TEST_F(MessageTest, DelayedAndUndelayedMessagesComeInTimeOrder) {
  auto q = MakeQueue("jobs");
  Send(*q, "b0");
  SendMessageRequest d;
  d.body = "a";
  d.delay_seconds = 1;
  ASSERT_OK(q->SendMessage(d));
  clock_->AdvanceMillis(500);
  Send(*q, "b1");
  clock_->AdvanceMillis(1000);
  Send(*q, "b2");
  auto got = Receive(*q, 10);
  std::vector<std::string> bodies;
  for (const auto& m : got) bodies.push_back(m.body);
  EXPECT_EQ(bodies, (std::vector<std::string>{"b0", "b1", "a", "b2"}));
}

// The seq cursor is persisted with the receive that moves it: after a
// reopen, leased messages stay leased and the rest are received once.
TEST_F(MessageTest, LeasedMessagesQueuedBySeqStayLeasedOverReopen) {
  auto q = MakeQueue("jobs");
  for (int i = 0; i < 6; ++i) Send(*q, "m" + std::to_string(i));
  auto first = Receive(*q, 2, /*visibility_timeout=*/30);
  ASSERT_EQ(first.size(), 2u);
  Reopen();
  q = *broker_->GetQueue("jobs");
  auto rest = Receive(*q, 10, /*visibility_timeout=*/30);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest[0].body, "m2");
  EXPECT_EQ(Receive(*q, 10).size(), 0u);
  clock_->AdvanceSeconds(31);
  auto again = Receive(*q, 10);
  ASSERT_EQ(again.size(), 6u);
  for (const auto& m : again) EXPECT_EQ(m.attributes.at("ApproximateReceiveCount"), "2");
}

// Verify proves that no message queued by seq was left behind the cursor:
// one whose lease is lost (here: deleted on disk) is reported.
TEST_F(MessageTest, VerifyFindsAMessageLeftBelowTheSeqCursor) {
  auto q = MakeQueue("jobs");
  Send(*q, "a");
  ASSERT_EQ(Receive(*q, 1).size(), 1u);
  std::string lease_key, lease_value;
  WithRawDb(/*read_only=*/false, "inflight", [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
    ASSERT_NE(cf, nullptr);
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    lease_key = it->key().ToString();
    lease_value = it->value().ToString();
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), cf, lease_key).ok());
  });
  auto problems = broker_->Verify();
  ASSERT_OK(problems);
  std::string all;
  for (const auto& p : *problems) all += p + "\n";
  EXPECT_NE(all.find("is below the seq cursor and not leased"), std::string::npos) << all;
  // Repair, so that the teardown's check passes.
  WithRawDb(/*read_only=*/false, "inflight", [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf, lease_key, lease_value).ok());
  });
  problems = broker_->Verify();
  ASSERT_OK(problems);
  EXPECT_TRUE(problems->empty());
}

// Builds before the seq cursor reject its counter slot as corrupt: the
// first send writes it, so that such a build refuses the database instead
// of missing the messages that have no index entry.
TEST_F(MessageTest, FirstSendWritesTheSeqCursorSlot) {
  auto q = MakeQueue("jobs");
  Send(*q, "a");
  bool has_slot = false;
  WithRawDb(/*read_only=*/true, "counters", [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
    ASSERT_NE(cf, nullptr);
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {  // one queue: one 'Q' record
      if (it->key().empty() || it->key()[0] != 'Q') continue;
      storage::CounterDelta counters;
      ASSERT_TRUE(storage::CounterDelta::Decode(it->value().ToString(), &counters));
      has_slot = counters.Has(storage::kSeqCursor);
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  });
  EXPECT_TRUE(has_slot);
}

// The oldest message's age looks at most 1,024 records past the seq cursor
// for one queued by seq: the delayed ones it passes are older, and counted
// through their expiry entries.
TEST_F(MessageTest, OldestAgeWithMoreDelayedMessagesThanOneScanLooksAt) {
  auto q = MakeQueue("jobs");
  SendMessageRequest d;
  d.body = "later";
  d.delay_seconds = 900;
  for (int i = 0; i < 1500; ++i) ASSERT_OK(q->SendMessage(d));
  clock_->AdvanceSeconds(100);
  Send(*q, "now");
  auto stats = q->GetStats();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->oldest_message_age_seconds, 100);
  EXPECT_EQ(stats->delayed, 1500);
  EXPECT_EQ(stats->visible, 1);
  auto got = Receive(*q, 10);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "now");
}

}  // namespace
}  // namespace lqs::testing
