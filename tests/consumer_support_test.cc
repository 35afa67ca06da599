// Consumer-support extensions: the idempotency inbox and the immediate
// dead-letter move (Queue::DeleteMessageAndRecord, SendMessageAndRecord,
// InboxContains, MoveToDeadLetterQueue).

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "lib/api/message_rules.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class ConsumerSupportTest : public BrokerTest {
 protected:
  struct LockedFifo {
    std::shared_ptr<Queue> q;
    std::shared_ptr<Queue> dlq;
    ReceivedMessage first;
  };

  // q.fifo (content-based deduplication; dead letters to dlq.fifo after 5
  // receives) holding "first" and "second" in group "g", "first" received
  // with a 30-second lease, so that the group is locked. A null q (the test
  // failed) if that cannot be made.
  LockedFifo FifoWithFirstLeased() {
    LockedFifo f;
    f.dlq = MakeQueue("dlq.fifo", {{"FifoQueue", "true"}});
    auto q = MakeQueue("q.fifo", {{"FifoQueue", "true"},
                                  {"ContentBasedDeduplication", "true"},
                                  {"RedrivePolicy", Redrive("dlq.fifo", 5)}});
    if (!q || !f.dlq) return f;
    for (const char* body : {"first", "second"}) {
      SendMessageRequest s;
      s.body = body;
      s.message_group_id = "g";
      const auto sent = q->SendMessage(s);
      if (!sent.ok()) {
        ADD_FAILURE() << sent.status().ToString();
        return f;
      }
    }
    auto got = Receive(*q, 1, 30);
    if (got.size() != 1 || got[0].body != "first") {
      ADD_FAILURE() << "received " << got.size() << " message(s), not \"first\"";
      return f;
    }
    f.q = std::move(q);
    f.first = std::move(got[0]);
    return f;
  }

  // Sends `body` and receives it; returns its receipt handle.
  std::string SendAndReceive(Queue& q, const std::string& body, int visibility_timeout = 30) {
    Send(q, body);
    auto got = Receive(q, 1, visibility_timeout);
    EXPECT_EQ(got.size(), 1u);
    return got.empty() ? "" : got[0].receipt_handle;
  }

  int64_t RawInboxKeys() {
    int64_t n = -1;
    WithRawDb(
        /*read_only=*/true, "inbox", [&n](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* inbox) {
          if (inbox == nullptr) return;
          n = 0;
          std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), inbox));
          for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
        });
    return n;
  }

  std::shared_ptr<Queue> Get(const std::string& name) {
    auto q = broker_->GetQueue(name);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return q.ok() ? *q : nullptr;
  }

  // Runs maintenance (its sweep of ended records), then expects `keys` raw
  // keys in the inbox.
  void ExpectInboxKeysAfterMaintenance(int64_t keys) {
    ASSERT_OK(broker_->RunMaintenance());
    EXPECT_EQ(RawInboxKeys(), keys);
  }

  static bool Contains(Queue& q, const std::string& key) {
    auto r = q.InboxContains(key);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }
};

// ---- Idempotency inbox -----------------------------------------------------------

TEST(InboxKeysTest, RoundTripAndOrder) {
  storage::DecodedInboxKey k;
  ASSERT_TRUE(storage::DecodeInboxKey(storage::InboxRecordKey(7, std::string("a\0b", 3)), &k));
  EXPECT_EQ(k.qid, 7u);
  EXPECT_FALSE(k.index);
  EXPECT_EQ(k.key, std::string("a\0b", 3));
  ASSERT_TRUE(storage::DecodeInboxKey(storage::InboxIndexKey(7, 1234, "key"), &k));
  EXPECT_TRUE(k.index);
  EXPECT_EQ(k.expiry_ms, 1234);
  EXPECT_EQ(k.key, "key");
  EXPECT_FALSE(storage::DecodeInboxKey(storage::QueuePrefix(7), &k));
  // The index is in expiry order whatever the keys, inside the queue's range.
  EXPECT_LT(storage::InboxIndexKey(7, 999, "zzz"), storage::InboxIndexKey(7, 1000, "a"));
  EXPECT_LT(storage::InboxIndexKey(7, 1000, "a"), storage::InboxIndexFrom(7, 1001));
  EXPECT_LE(storage::InboxIndexFrom(7, 0), storage::InboxIndexKey(7, 0, "a"));
  EXPECT_LT(storage::QueuePrefix(7), storage::InboxRecordKey(7, "k"));
  EXPECT_LT(storage::InboxIndexKey(7, INT64_MAX, "k"), storage::QueueEnd(7));
  int64_t expiry = 0;
  ASSERT_TRUE(storage::DecodeInboxValue(storage::EncodeInboxValue(42), &expiry));
  EXPECT_EQ(expiry, 42);
  EXPECT_FALSE(storage::DecodeInboxValue("bad", &expiry));
}

TEST_F(ConsumerSupportTest, DeleteAndRecordDeletesAndRecords) {
  auto q = MakeQueue("q");
  const std::string handle = SendAndReceive(*q, "job");
  EXPECT_FALSE(Contains(*q, "job-1"));
  ASSERT_OK(q->DeleteMessageAndRecord(handle, "job-1", 3600));
  EXPECT_TRUE(Contains(*q, "job-1"));
  EXPECT_FALSE(Contains(*q, "job-2"));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  clock_->AdvanceSeconds(60);  // past the lease: the message is gone for good
  EXPECT_TRUE(Receive(*q).empty());
  auto stats = q->GetStats();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->deleted_total, 1);
  // The inbox is per queue.
  auto other = MakeQueue("other");
  EXPECT_FALSE(Contains(*other, "job-1"));
}

TEST_F(ConsumerSupportTest, FailureRecordsNothing) {
  auto q = MakeQueue("q");
  auto other = MakeQueue("other");
  const std::string handle = SendAndReceive(*q, "job");
  const std::string foreign = SendAndReceive(*other, "job");
  EXPECT_CODE(q->DeleteMessageAndRecord("not-a-handle", "k", 60), kReceiptHandleIsInvalid);
  EXPECT_CODE(q->DeleteMessageAndRecord(foreign, "k", 60), kReceiptHandleIsInvalid);
  EXPECT_FALSE(Contains(*q, "k"));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));  // still in flight
  EXPECT_EQ(Counts(*other), (std::array<int64_t, 3>{0, 1, 0}));
  ASSERT_OK(q->DeleteMessageAndRecord(handle, "k", 60));
  EXPECT_TRUE(Contains(*q, "k"));
}

TEST_F(ConsumerSupportTest, FifoExpiredLeaseRecordsNothing) {
  auto q = MakeQueue("q.fifo", {{"FifoQueue", "true"}, {"ContentBasedDeduplication", "true"}});
  SendMessageRequest s;
  s.body = "job";
  s.message_group_id = "g";
  ASSERT_OK(q->SendMessage(s));
  auto got = Receive(*q, 1, 10);
  ASSERT_EQ(got.size(), 1u);
  clock_->AdvanceSeconds(11);
  EXPECT_CODE(q->DeleteMessageAndRecord(got[0].receipt_handle, "k", 60), kInvalidParameterValue);
  EXPECT_FALSE(Contains(*q, "k"));
  // The message was not deleted: it comes back, and its new handle works.
  auto again = Receive(*q, 1, 10);
  ASSERT_EQ(again.size(), 1u);
  ASSERT_OK(q->DeleteMessageAndRecord(again[0].receipt_handle, "k", 60));
  EXPECT_TRUE(Contains(*q, "k"));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
}

TEST_F(ConsumerSupportTest, StandardStaleHandleStillDeletesAndRecords) {
  // Standard queues: any handle ever issued deletes (as DeleteMessage does),
  // also after the message is gone; the record is written either way.
  auto q = MakeQueue("q");
  const std::string handle = SendAndReceive(*q, "job");
  ASSERT_OK(q->DeleteMessage(handle));
  ASSERT_OK(q->DeleteMessageAndRecord(handle, "k", 60));
  EXPECT_TRUE(Contains(*q, "k"));
}

TEST_F(ConsumerSupportTest, RecordExpiresAndIsSwept) {
  auto q = MakeQueue("q");
  ASSERT_OK(q->DeleteMessageAndRecord(SendAndReceive(*q, "a"), "short", 60));
  ASSERT_OK(q->DeleteMessageAndRecord(SendAndReceive(*q, "b"), "long", 600));
  EXPECT_EQ(RawInboxKeys(), 4);  // two records, two index entries
  q = Get("q");
  clock_->AdvanceSeconds(59);
  EXPECT_TRUE(Contains(*q, "short"));
  clock_->AdvanceSeconds(1);
  // Absent as soon as it expires, before any sweep.
  EXPECT_FALSE(Contains(*q, "short"));
  EXPECT_TRUE(Contains(*q, "long"));
  EXPECT_EQ(RawInboxKeys(), 4);
  ExpectInboxKeysAfterMaintenance(2);  // only "long" is left
  q = Get("q");
  EXPECT_TRUE(Contains(*q, "long"));
  clock_->AdvanceSeconds(600);
  EXPECT_FALSE(Contains(*q, "long"));
  ExpectInboxKeysAfterMaintenance(0);
}

TEST_F(ConsumerSupportTest, RecordSurvivesReopen) {
  auto q = MakeQueue("q");
  ASSERT_OK(q->DeleteMessageAndRecord(SendAndReceive(*q, "a"), "k", 3600));
  Reopen();
  q = Get("q");
  ASSERT_TRUE(q);
  EXPECT_TRUE(Contains(*q, "k"));
  // The sweep after a reopen finds expired records too.
  clock_->AdvanceSeconds(3600);
  ExpectInboxKeysAfterMaintenance(0);
}

TEST_F(ConsumerSupportTest, ReRecordRenews) {
  auto q = MakeQueue("q");
  ASSERT_OK(q->DeleteMessageAndRecord(SendAndReceive(*q, "a"), "k", 60));
  clock_->AdvanceSeconds(50);
  ASSERT_OK(q->DeleteMessageAndRecord(SendAndReceive(*q, "b"), "k", 60));
  EXPECT_EQ(RawInboxKeys(), 2);  // one record, one index entry: the old one went
  q = Get("q");
  clock_->AdvanceSeconds(20);  // 70 s after the first record
  EXPECT_TRUE(Contains(*q, "k"));
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_TRUE(Contains(*q, "k"));
  EXPECT_EQ(RawInboxKeys(), 2);
  q = Get("q");
  clock_->AdvanceSeconds(40);  // 110 s: the renewed record ended
  EXPECT_FALSE(Contains(*q, "k"));
  ExpectInboxKeysAfterMaintenance(0);
}

TEST_F(ConsumerSupportTest, SendAndRecordSendsOnceAndRecords) {
  auto q = MakeQueue("q");
  SendMessageRequest s;
  s.body = "pulled";
  auto first = q->SendMessageAndRecord(s, "pull:m1", 600);
  ASSERT_OK(first);
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->md5_of_message_body, api::Md5Hex("pulled"));
  EXPECT_TRUE(Contains(*q, "pull:m1"));
  // The same key again: nothing is sent.
  auto again = q->SendMessageAndRecord(s, "pull:m1", 600);
  ASSERT_OK(again);
  EXPECT_FALSE(again->has_value());
  EXPECT_EQ(Counts(*q)[0], 1);
  // Once the record expired, the key sends again.
  clock_->AdvanceSeconds(600);
  auto later = q->SendMessageAndRecord(s, "pull:m1", 600);
  ASSERT_OK(later);
  EXPECT_TRUE(later->has_value());
  EXPECT_EQ(Counts(*q)[0], 2);
  ExpectConsistent();
}

TEST_F(ConsumerSupportTest, SweepKeepsARecordASendRenewsDuringIt) {
  // A send renews an expired record (read, then write) while a sweep that
  // read the old record is about to delete it. The sweep holds mu_ from its
  // read to its write, and so does the send's record step: the renewal
  // waits for the sweep and writes after it. Were the send's step unlocked,
  // it would finish inside the grace below and the sweep's write would then
  // delete the new record. The grace only decides how surely that bug is
  // seen; a correct build passes whatever it is.
  constexpr auto kRenewalGrace = std::chrono::milliseconds(200);
  auto q = MakeQueue("q");
  SendMessageRequest s;
  s.body = "pulled";
  ASSERT_OK(q->SendMessageAndRecord(s, "k", 60));
  clock_->AdvanceSeconds(60);  // expired, not swept
  std::future<StatusOr<std::optional<SendMessageResult>>> renewal;
  int sweeps = 0;
  static_cast<engine::QueueImpl&>(*q).SetInboxSweepHookForTest([&] {
    if (++sweeps > 1) return;
    renewal =
        std::async(std::launch::async, [&q, &s] { return q->SendMessageAndRecord(s, "k", 600); });
    renewal.wait_for(kRenewalGrace);
  });
  ASSERT_OK(broker_->RunMaintenance());
  static_cast<engine::QueueImpl&>(*q).SetInboxSweepHookForTest(nullptr);
  ASSERT_EQ(sweeps, 1);
  auto renewed = renewal.get();
  ASSERT_OK(renewed);
  EXPECT_TRUE(renewed->has_value());  // the expired record did not hold it back
  EXPECT_TRUE(Contains(*q, "k"));
  clock_->AdvanceSeconds(599);
  ExpectInboxKeysAfterMaintenance(2);  // its record and its sweep-index entry
  q = Get("q");
  EXPECT_TRUE(Contains(*q, "k"));
  EXPECT_EQ(Counts(*q)[0], 2);
}

TEST_F(ConsumerSupportTest, SendAndRecordSurvivesReopenAndFifo) {
  auto q = MakeQueue("q.fifo", {{"FifoQueue", "true"}});
  SendMessageRequest s;
  s.body = "x";
  s.message_group_id = "g";
  s.message_deduplication_id = "d1";
  auto sent = q->SendMessageAndRecord(s, "k", 3600);
  ASSERT_OK(sent);
  ASSERT_TRUE(sent->has_value());
  EXPECT_TRUE((*sent)->sequence_number.has_value());
  Reopen();
  q = Get("q.fifo");
  ASSERT_TRUE(q);
  // Past FIFO's five-minute deduplication window, the record still holds.
  clock_->AdvanceSeconds(1800);
  s.message_deduplication_id = "d2";
  auto again = q->SendMessageAndRecord(s, "k", 3600);
  ASSERT_OK(again);
  EXPECT_FALSE(again->has_value());
  EXPECT_EQ(Receive(*q).size(), 1u);
}

TEST_F(ConsumerSupportTest, SendAndRecordRefusesBadInputWithNothingWritten) {
  auto q = MakeQueue("q");
  SendMessageRequest s;
  s.body = "x";
  EXPECT_CODE(q->SendMessageAndRecord(s, "", 60), kInvalidParameterValue);
  EXPECT_CODE(q->SendMessageAndRecord(s, "k", 0), kInvalidParameterValue);
  s.body = "";
  EXPECT_CODE(q->SendMessageAndRecord(s, "k", 60), kMissingParameter);
  EXPECT_FALSE(Contains(*q, "k"));
  EXPECT_EQ(Counts(*q)[0], 0);
  EXPECT_EQ(RawInboxKeys(), 0);
}

TEST_F(ConsumerSupportTest, SendsAndRecordsInOneCallSendEachNewKeyOnce) {
  auto q = MakeQueue("q");
  SendMessageRequest s;
  s.body = "before";
  ASSERT_OK(q->SendMessageAndRecord(s, "k1", 600));
  auto req = [](const std::string& body) {
    SendMessageRequest r;
    r.body = body;
    return r;
  };
  auto got = q->SendMessagesAndRecord({req("a"), req("b"), req("c"), req(""), req("e"), req("f")},
                                      {"k1", "k2", "", "k3", "k2", "k4"}, 600);
  ASSERT_OK(got);
  ASSERT_EQ(got->size(), 6u);
  EXPECT_OK((*got)[0].status);  // recorded before: a duplicate
  EXPECT_FALSE((*got)[0].sent.has_value());
  EXPECT_OK((*got)[1].status);
  ASSERT_TRUE((*got)[1].sent.has_value());
  EXPECT_EQ((*got)[1].sent->md5_of_message_body, api::Md5Hex("b"));
  EXPECT_CODE((*got)[2].status, kInvalidParameterValue);  // the key
  EXPECT_CODE((*got)[3].status, kMissingParameter);       // the body
  EXPECT_OK((*got)[4].status);                            // repeats entry 1's key
  EXPECT_FALSE((*got)[4].sent.has_value());
  ASSERT_TRUE((*got)[5].sent.has_value());
  EXPECT_EQ((*got)[5].sent->md5_of_message_body, api::Md5Hex("f"));
  EXPECT_TRUE(Contains(*q, "k2"));
  EXPECT_TRUE(Contains(*q, "k4"));
  EXPECT_FALSE(Contains(*q, "k3"));
  EXPECT_EQ(Counts(*q)[0], 3);
  std::multiset<std::string> bodies;
  for (const ReceivedMessage& m : Receive(*q)) bodies.insert(m.body);
  EXPECT_EQ(bodies, (std::multiset<std::string>{"before", "b", "f"}));
  ExpectConsistent();
}

TEST_F(ConsumerSupportTest, SendsAndRecordsRefuseTheCallWithNothingWritten) {
  auto q = MakeQueue("q");
  SendMessageRequest s;
  s.body = "x";
  EXPECT_CODE(q->SendMessagesAndRecord({s, s}, {"k"}, 60), kInvalidParameterValue);
  EXPECT_CODE(q->SendMessagesAndRecord({s}, {"k"}, 0), kInvalidParameterValue);
  std::vector<SendMessageRequest> eleven(11, s);
  std::vector<std::string> keys;
  for (int i = 0; i < 11; ++i) keys.push_back("k" + std::to_string(i));
  EXPECT_CODE(q->SendMessagesAndRecord(eleven, keys, 60), kInvalidParameterValue);
  EXPECT_EQ(Counts(*q)[0], 0);
  EXPECT_EQ(RawInboxKeys(), 0);
}

TEST_F(ConsumerSupportTest, SendsAndRecordsKeepFifoOrder) {
  auto q = MakeQueue("q.fifo", {{"FifoQueue", "true"}});
  std::vector<SendMessageRequest> sends;
  std::vector<std::string> keys;
  for (int i = 0; i < 3; ++i) {
    SendMessageRequest r;
    r.body = "m" + std::to_string(i);
    r.message_group_id = "g";
    r.message_deduplication_id = "d" + std::to_string(i);
    sends.push_back(r);
    keys.push_back("pull:" + std::to_string(i));
  }
  auto got = q->SendMessagesAndRecord(sends, keys, 600);
  ASSERT_OK(got);
  for (const RecordedSend& r : *got) {
    EXPECT_OK(r.status);
    ASSERT_TRUE(r.sent.has_value());
    EXPECT_TRUE(r.sent->sequence_number.has_value());
  }
  auto received = Receive(*q);
  ASSERT_EQ(received.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(received[i].body, "m" + std::to_string(i));
}

TEST_F(ConsumerSupportTest, ConcurrentSendsAndRecordsOfOneKeySendOnce) {
  auto q = MakeQueue("q");
  std::vector<std::future<bool>> sent;
  for (int i = 0; i < 8; ++i) {
    sent.push_back(std::async(std::launch::async, [&q] {
      SendMessageRequest s;
      s.body = "once";
      auto r = q->SendMessageAndRecord(s, "k", 60);
      return r.ok() && r->has_value();
    }));
  }
  int sends = 0;
  for (auto& f : sent) sends += f.get() ? 1 : 0;
  EXPECT_EQ(sends, 1);
  EXPECT_EQ(Counts(*q)[0], 1);
}

TEST_F(ConsumerSupportTest, PurgeKeepsInboxDeleteQueueDropsIt) {
  auto q = MakeQueue("q");
  ASSERT_OK(q->DeleteMessageAndRecord(SendAndReceive(*q, "a"), "k", 3600));
  Send(*q, "b");
  ASSERT_OK(q->PurgeQueue());
  EXPECT_TRUE(Contains(*q, "k"));
  ASSERT_OK(broker_->DeleteQueue("q"));
  EXPECT_CODE(q->InboxContains("k"), kQueueDoesNotExist);
  EXPECT_EQ(RawInboxKeys(), 0);
  clock_->AdvanceSeconds(61);  // SQS's name-reuse rule
  auto again = MakeQueue("q");
  ASSERT_TRUE(again);
  EXPECT_FALSE(Contains(*again, "k"));
}

TEST_F(ConsumerSupportTest, BadKeyOrTtlNamesTheParameter) {
  auto q = MakeQueue("q");
  const std::string handle = SendAndReceive(*q, "a");
  auto expect_invalid = [](const Status& st, const std::string& parameter) {
    EXPECT_EQ(st.code(), ErrorCode::kInvalidParameterValue) << st.ToString();
    EXPECT_NE(st.message().find(parameter), std::string::npos) << st.ToString();
  };
  expect_invalid(q->DeleteMessageAndRecord(handle, "", 60), "IdempotencyKey");
  expect_invalid(q->DeleteMessageAndRecord(handle, std::string(513, 'k'), 60), "IdempotencyKey");
  expect_invalid(q->DeleteMessageAndRecord(handle, "k", 0), "TtlSeconds");
  expect_invalid(q->DeleteMessageAndRecord(handle, "k", 1209601), "TtlSeconds");
  expect_invalid(q->InboxContains("").status(), "IdempotencyKey");
  expect_invalid(q->InboxContains(std::string(513, 'k')).status(), "IdempotencyKey");
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));  // nothing was deleted
  // The limits themselves are fine, and keys are arbitrary bytes.
  const std::string longest(512, '\0');
  ASSERT_OK(q->DeleteMessageAndRecord(handle, longest, 1209600));
  EXPECT_TRUE(Contains(*q, longest));
  EXPECT_FALSE(Contains(*q, std::string(511, '\0')));
}

TEST_F(ConsumerSupportTest, DatabaseWithoutInboxColumnFamilyOpens) {
  auto q = MakeQueue("q");
  Send(*q, "kept");
  // Make it look like a database from before the inbox existed; the Broker
  // opens it again, creating the column family.
  DropRawColumnFamily("inbox");
  EXPECT_EQ(RawInboxKeys(), 0);  // it exists again, empty
  q = Get("q");
  ASSERT_TRUE(q);
  auto got = Receive(*q, 1);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_OK(q->DeleteMessageAndRecord(got[0].receipt_handle, "k", 60));
  EXPECT_TRUE(Contains(*q, "k"));
}

TEST_F(ConsumerSupportTest, VerifyChecksInboxRecords) {
  auto q = MakeQueue("q");
  ASSERT_OK(q->DeleteMessageAndRecord(SendAndReceive(*q, "a"), "k", 60));
  // Break the record (a value that is not an 8-byte expiry), and add a
  // record without an index entry.
  std::string record_key, record_value;
  WithRawDb(/*read_only=*/false, "inbox", [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* inbox) {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), inbox));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().size() > 8 && it->key()[8] == 'R') {
        record_key = it->key().ToString();
        record_value = it->value().ToString();
      }
    }
    ASSERT_FALSE(record_key.empty());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), inbox, record_key, "bad").ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), inbox, record_key + "2", record_value).ok());
  });
  auto problems = broker_->Verify();
  ASSERT_OK(problems);
  std::string all;
  for (const auto& p : *problems) all += p + "\n";
  EXPECT_NE(all.find("undecodable inbox record"), std::string::npos) << all;
  EXPECT_NE(all.find("inbox index disagrees"), std::string::npos) << all;
  // Repair, so that the teardown's check passes.
  WithRawDb(/*read_only=*/false, "inbox", [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* inbox) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), inbox, record_key, record_value).ok());
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), inbox, record_key + "2").ok());
  });
  problems = broker_->Verify();
  ASSERT_OK(problems);
  EXPECT_TRUE(problems->empty());
}

// ---- Immediate dead-letter move -------------------------------------------------------

TEST_F(ConsumerSupportTest, MoveToDeadLetterQueueStandard) {
  auto dlq = MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 5)}});
  auto sent = SendWithAttributes(
      *q, "poison", {{"k", {"Number", "42", ""}}, {"lqs.Error", {"String", "old", ""}}});
  ASSERT_OK(sent);
  Send(*q, "fine");
  auto got = Receive(*q, 1, 30);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].body, "poison");
  MessageAttributeMap extra;
  extra["lqs.Error"] = {"String", "bad input", ""};
  extra["lqs.Attempts"] = {"Number", "1", ""};
  ASSERT_OK(q->MoveToDeadLetterQueue(got[0].receipt_handle, extra));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 0, 0}));
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{1, 0, 0}));
  auto stats = q->GetStats();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->moved_to_dlq_total, 1);
  // The handle is spent.
  EXPECT_CODE(q->MoveToDeadLetterQueue(got[0].receipt_handle, {}), kInvalidParameterValue);
  EXPECT_OK(q->DeleteMessage(got[0].receipt_handle));  // a no-op, as in SQS

  auto moved = Receive(*dlq);
  ASSERT_EQ(moved.size(), 1u);
  const ReceivedMessage& m = moved[0];
  EXPECT_EQ(m.message_id, sent->message_id);
  EXPECT_EQ(m.body, "poison");
  EXPECT_EQ(m.attributes.at("DeadLetterQueueSourceArn"), q->arn());
  EXPECT_EQ(m.attributes.at("ApproximateReceiveCount"), "2");  // one here, one there
  ASSERT_EQ(m.message_attributes.size(), 3u);
  EXPECT_EQ(m.message_attributes.at("k").string_value, "42");
  EXPECT_EQ(m.message_attributes.at("lqs.Error").string_value, "bad input");
  EXPECT_EQ(m.message_attributes.at("lqs.Attempts").data_type, "Number");
  ASSERT_TRUE(m.md5_of_message_attributes.has_value());
  EXPECT_EQ(*m.md5_of_message_attributes, api::Md5OfMessageAttributes(m.message_attributes));
  EXPECT_NE(*m.md5_of_message_attributes, *sent->md5_of_message_attributes);
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{0, 1, 0}));
  // The source keeps working.
  EXPECT_EQ(Receive(*q).size(), 1u);
}

TEST_F(ConsumerSupportTest, MoveToDeadLetterQueueFifoUnlocksTheGroup) {
  auto [q, dlq, first] = FifoWithFirstLeased();
  ASSERT_TRUE(q);
  EXPECT_TRUE(Receive(*q).empty());  // the group is locked past its leased message
  MessageAttributeMap extra;
  extra["lqs.Error"] = {"String", "bad input", ""};
  ASSERT_OK(q->MoveToDeadLetterQueue(first.receipt_handle, extra));
  // The group moves on at once.
  auto next = Receive(*q, 10, 30);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].body, "second");
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));

  auto moved = Receive(*dlq);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].body, "first");
  EXPECT_EQ(moved[0].message_id, first.message_id);
  EXPECT_EQ(moved[0].attributes.at("MessageGroupId"), "g");
  EXPECT_EQ(moved[0].attributes.at("DeadLetterQueueSourceArn"), q->arn());
  EXPECT_EQ(moved[0].attributes.at("ApproximateReceiveCount"), "2");
  EXPECT_EQ(moved[0].message_attributes.at("lqs.Error").string_value, "bad input");
  ASSERT_TRUE(moved[0].md5_of_message_attributes.has_value());
  EXPECT_EQ(*moved[0].md5_of_message_attributes,
            api::Md5OfMessageAttributes(moved[0].message_attributes));
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{0, 1, 0}));
  ASSERT_OK(q->DeleteMessage(next[0].receipt_handle));
  ASSERT_OK(dlq->DeleteMessage(moved[0].receipt_handle));
  Reopen();  // the state on disk agrees (Verify runs at teardown too)
  EXPECT_EQ(Counts(*Get("q.fifo")), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(Counts(*Get("dlq.fifo")), (std::array<int64_t, 3>{0, 0, 0}));
}

TEST_F(ConsumerSupportTest, MoveToDeadLetterQueueWakesLongPolls) {
  auto [q, dlq, first] = FifoWithFirstLeased();
  ASSERT_TRUE(q);
  // A blocked long poll on the source (its only group is locked) and a
  // parked asynchronous one on the DLQ.
  auto source_wait = std::async(std::launch::async, [source = q] {
    ReceiveMessageRequest r;
    r.wait_time_seconds = 20;
    return source->ReceiveMessage(r);
  });
  std::promise<StatusOr<ReceiveMessageResult>> dlq_promise;
  auto dlq_wait = dlq_promise.get_future();
  ReceiveMessageRequest r;
  r.wait_time_seconds = 20;
  dlq->ReceiveMessageAsync(r, [&dlq_promise](StatusOr<ReceiveMessageResult> result) {
    dlq_promise.set_value(std::move(result));
  });
  EXPECT_EQ(source_wait.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_EQ(dlq_wait.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  ASSERT_OK(q->MoveToDeadLetterQueue(first.receipt_handle, {}));
  ASSERT_EQ(source_wait.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(dlq_wait.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto from_source = source_wait.get();
  ASSERT_OK(from_source);
  ASSERT_EQ(from_source->messages.size(), 1u);
  EXPECT_EQ(from_source->messages[0].body, "second");
  auto from_dlq = dlq_wait.get();
  ASSERT_OK(from_dlq);
  ASSERT_EQ(from_dlq->messages.size(), 1u);
  EXPECT_EQ(from_dlq->messages[0].body, "first");
}

TEST_F(ConsumerSupportTest, MoveToDeadLetterQueueNeedsTheCurrentLease) {
  auto dlq = MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 5)}});
  const std::string first = SendAndReceive(*q, "job", 10);
  clock_->AdvanceSeconds(10);  // the lease ended
  EXPECT_CODE(q->MoveToDeadLetterQueue(first, {}), kInvalidParameterValue);
  auto again = Receive(*q, 1, 10);  // someone else holds it now
  ASSERT_EQ(again.size(), 1u);
  EXPECT_CODE(q->MoveToDeadLetterQueue(first, {}), kInvalidParameterValue);
  EXPECT_CODE(q->MoveToDeadLetterQueue("garbage", {}), kReceiptHandleIsInvalid);
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
  ASSERT_OK(q->MoveToDeadLetterQueue(again[0].receipt_handle, {}));
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{1, 0, 0}));
}

TEST_F(ConsumerSupportTest, MoveToDeadLetterQueueWithoutRedrivePolicy) {
  auto q = MakeQueue("q");
  const std::string handle = SendAndReceive(*q, "job");
  Status st = q->MoveToDeadLetterQueue(handle, {});
  EXPECT_EQ(st.code(), ErrorCode::kInvalidParameterValue) << st.ToString();
  EXPECT_NE(st.message().find("RedrivePolicy"), std::string::npos) << st.ToString();
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
}

TEST_F(ConsumerSupportTest, MoveToDeadLetterQueueBadAttribute) {
  auto dlq = MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 5)}});
  const std::string handle = SendAndReceive(*q, "job");
  MessageAttributeMap bad_name;
  bad_name["bad name"] = {"String", "x", ""};
  EXPECT_CODE(q->MoveToDeadLetterQueue(handle, bad_name), kInvalidParameterValue);
  MessageAttributeMap reserved;
  reserved["AWS.Error"] = {"String", "x", ""};
  EXPECT_CODE(q->MoveToDeadLetterQueue(handle, reserved), kInvalidParameterValue);
  MessageAttributeMap empty_value;
  empty_value["lqs.Error"] = {"String", "", ""};
  EXPECT_CODE(q->MoveToDeadLetterQueue(handle, empty_value), kInvalidParameterValue);
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
  // More than SendMessage's 10 attributes is fine here.
  MessageAttributeMap many;
  for (int i = 0; i < 12; ++i) many["a" + std::to_string(i)] = {"String", "v", ""};
  ASSERT_OK(q->MoveToDeadLetterQueue(handle, many));
  auto moved = Receive(*dlq);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].message_attributes.size(), 12u);
}

}  // namespace
}  // namespace lqs::testing
