// FIFO queues: group order, group locking, deduplication, sequence numbers,
// ReceiveRequestAttemptId, dead-letter moves, and concurrency.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class FifoTest : public BrokerTest {
 protected:
  std::shared_ptr<Queue> Fifo(const std::string& name, AttributeMap attrs = {}) {
    attrs["FifoQueue"] = "true";
    return MakeQueue(name, attrs);
  }
  StatusOr<SendMessageResult> SendTo(Queue& q, const std::string& group, const std::string& body,
                                     std::optional<std::string> dedup = std::nullopt) {
    SendMessageRequest r;
    r.body = body;
    r.message_group_id = group;
    r.message_deduplication_id = dedup ? *dedup : body;
    return q.SendMessage(r);
  }
  std::vector<std::string> Bodies(const std::vector<ReceivedMessage>& ms) {
    std::vector<std::string> out;
    for (const auto& m : ms) out.push_back(m.body);
    return out;
  }
  // The records of the `dedup` column family, read with the Broker closed;
  // `while_closed` runs then too.
  int64_t RawDedupKeys(const std::function<void()>& while_closed = [] {}) {
    int64_t n = -1;
    WithRawDb(/*read_only=*/true, "dedup", [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
      if (cf == nullptr) return;
      n = 0;
      std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf));
      for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
      while_closed();
    });
    return n;
  }
  // Receives one message, expects it to be `body`, and deletes it.
  void ReceiveAndDelete(Queue& q, const std::string& body) {
    auto got = Receive(q, 1);
    ASSERT_EQ(Bodies(got), std::vector<std::string>{body});
    ASSERT_OK(q.DeleteMessage(got[0].receipt_handle));
  }
};

TEST_F(FifoTest, CreationRules) {
  EXPECT_CODE(broker_->CreateQueue("q", {{"FifoQueue", "true"}}, {}), kInvalidParameterValue);
  EXPECT_CODE(broker_->CreateQueue("q.fifo", {}, {}), kInvalidParameterValue);
  EXPECT_CODE(broker_->CreateQueue("s", {{"ContentBasedDeduplication", "true"}}, {}),
              kInvalidAttributeName);
  auto q = Fifo("q.fifo");
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->is_fifo());
  auto attrs = q->GetAttributes({"All"});
  EXPECT_EQ(attrs->at("FifoQueue"), "true");
  EXPECT_EQ(attrs->at("ContentBasedDeduplication"), "false");
  EXPECT_EQ(attrs->at("DeduplicationScope"), "queue");
  EXPECT_EQ(attrs->at("FifoThroughputLimit"), "perQueue");
  EXPECT_CODE(q->SetAttributes({{"FifoQueue", "false"}}), kInvalidAttributeValue);
  // A FIFO queue's DLQ must be FIFO, and a standard queue's standard.
  MakeQueue("std-dlq");
  Fifo("dlq.fifo");
  const std::string to_std =
      "{\"deadLetterTargetArn\":\"" + broker_->ArnFor("std-dlq") + "\",\"maxReceiveCount\":3}";
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", to_std}}), kInvalidParameterValue);
  const std::string to_fifo =
      "{\"deadLetterTargetArn\":\"" + broker_->ArnFor("dlq.fifo") + "\",\"maxReceiveCount\":3}";
  EXPECT_OK(q->SetAttributes({{"RedrivePolicy", to_fifo}}));
  EXPECT_CODE(broker_->CreateQueue("s2", {{"RedrivePolicy", to_fifo}}, {}), kInvalidParameterValue);
}

TEST_F(FifoTest, SendRules) {
  auto q = Fifo("q.fifo");
  SendMessageRequest r;
  r.body = "x";
  auto st = q->SendMessage(r);
  EXPECT_CODE(st, kMissingParameter);
  EXPECT_EQ(st.status().message(), "The request must contain the parameter MessageGroupId.");
  r.message_group_id = "g";
  EXPECT_CODE(q->SendMessage(r), kInvalidParameterValue);  // no dedup id, no CBD
  r.message_deduplication_id = "d";
  r.delay_seconds = 5;
  EXPECT_CODE(q->SendMessage(r), kInvalidParameterValue);
  r.delay_seconds = 0;
  auto ok = q->SendMessage(r);
  ASSERT_OK(ok);
  ASSERT_TRUE(ok->sequence_number.has_value());
  EXPECT_EQ(ok->sequence_number->size(), 20u);
  auto next = SendTo(*q, "g", "y");
  ASSERT_OK(next);
  EXPECT_LT(*ok->sequence_number, *next->sequence_number);
  // A batch entry without a group fails the whole batch.
  std::vector<SendMessageBatchEntry> batch(2);
  batch[0].id = "a";
  batch[0].request.body = "1";
  batch[0].request.message_group_id = "g";
  batch[0].request.message_deduplication_id = "1";
  batch[1].id = "b";
  batch[1].request.body = "2";
  batch[1].request.message_deduplication_id = "2";
  EXPECT_CODE(q->SendMessageBatch(batch), kInvalidParameterValue);
  EXPECT_EQ(Counts(*q)[0], 2);
}

TEST_F(FifoTest, OrderWithinGroupsAndGroupLocking) {
  auto q = Fifo("q.fifo");
  for (const char* b : {"a1", "a2", "a3"}) ASSERT_OK(SendTo(*q, "a", b));
  for (const char* b : {"b1", "b2"}) ASSERT_OK(SendTo(*q, "b", b));
  auto first = Receive(*q, 2);
  EXPECT_EQ(Bodies(first), (std::vector<std::string>{"a1", "a2"}));
  auto second = Receive(*q, 10);
  // Group a is locked past a2; group b flows.
  EXPECT_EQ(Bodies(second), (std::vector<std::string>{"b1", "b2"}));
  EXPECT_TRUE(Receive(*q, 10).empty());
  // New sends do not unlock a locked group.
  ASSERT_OK(SendTo(*q, "a", "a4"));
  EXPECT_TRUE(Receive(*q, 10).empty());
  // Deleting only some in-flight messages keeps it locked; all unlocks.
  ASSERT_OK(q->DeleteMessage(first[0].receipt_handle));
  EXPECT_TRUE(Receive(*q, 10).empty());
  ASSERT_OK(q->DeleteMessage(first[1].receipt_handle));
  EXPECT_EQ(Bodies(Receive(*q, 10)), (std::vector<std::string>{"a3", "a4"}));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 4, 0}));
}

TEST_F(FifoTest, ReceivableUpToFirstInFlightMessage) {
  // docs/sqs-reference.md §9.2: m1 m2 m3 leased 1 s, one extended to 4 s, receive at 2.5 s.
  const std::map<int, std::vector<std::string>> expect = {
      {-1, {"m1", "m2", "m3"}}, {0, {}}, {1, {"m1"}}, {2, {"m1", "m2"}}};
  for (const auto& [extended, bodies] : expect) {
    const std::string name = "q" + std::to_string(extended + 1) + ".fifo";
    auto q = Fifo(name);
    for (const char* b : {"m1", "m2", "m3"}) ASSERT_OK(SendTo(*q, "g", b));
    auto got = Receive(*q, 10, 1);
    ASSERT_EQ(got.size(), 3u);
    if (extended >= 0) {
      ASSERT_OK(q->ChangeMessageVisibility(got[extended].receipt_handle, 4));
    }
    clock_->AdvanceMillis(2500);
    EXPECT_EQ(Bodies(Receive(*q, 10)), bodies) << "extended " << extended;
  }
}

TEST_F(FifoTest, ExpiredLeaseReturnsAtHeadAndOldHandlesExpire) {
  auto q = Fifo("q.fifo", {{"VisibilityTimeout", "10"}});
  for (const char* b : {"m1", "m2"}) ASSERT_OK(SendTo(*q, "g", b));
  auto first = Receive(*q, 1);
  ASSERT_EQ(Bodies(first), (std::vector<std::string>{"m1"}));
  clock_->AdvanceSeconds(10);
  auto again = Receive(*q, 1);
  ASSERT_EQ(Bodies(again), (std::vector<std::string>{"m1"}));
  EXPECT_EQ(again[0].attributes["ApproximateReceiveCount"], "2");
  auto st = q->DeleteMessage(first[0].receipt_handle);
  EXPECT_CODE(st, kInvalidParameterValue);
  EXPECT_NE(st.message().find("The receipt handle has expired."), std::string::npos);
  EXPECT_CODE(q->ChangeMessageVisibility(first[0].receipt_handle, 5), kInvalidParameterValue);
  ASSERT_OK(q->DeleteMessage(again[0].receipt_handle));
  EXPECT_EQ(Bodies(Receive(*q, 10)), (std::vector<std::string>{"m2"}));
}

TEST_F(FifoTest, VisibilityZeroDoesNotLock) {
  auto q = Fifo("q.fifo");
  for (const char* b : {"m1", "m2"}) ASSERT_OK(SendTo(*q, "g", b));
  EXPECT_EQ(Bodies(Receive(*q, 1, 0)), (std::vector<std::string>{"m1"}));
  EXPECT_EQ(Bodies(Receive(*q, 1)), (std::vector<std::string>{"m1"}));
}

TEST_F(FifoTest, ChangeVisibilityZeroUnlocks) {
  auto q = Fifo("q.fifo");
  for (const char* b : {"m1", "m2"}) ASSERT_OK(SendTo(*q, "g", b));
  auto got = Receive(*q, 1);
  EXPECT_TRUE(Receive(*q, 1).empty());
  ASSERT_OK(q->ChangeMessageVisibility(got[0].receipt_handle, 0));
  EXPECT_EQ(Bodies(Receive(*q, 10)), (std::vector<std::string>{"m1", "m2"}));
}

TEST_F(FifoTest, Deduplication) {
  auto q = Fifo("q.fifo");
  auto a = SendTo(*q, "g1", "body", "id-1");
  auto dup = SendTo(*q, "g2", "other body", "id-1");  // scope queue: across groups
  ASSERT_OK(a);
  ASSERT_OK(dup);
  EXPECT_EQ(dup->message_id, a->message_id);
  EXPECT_EQ(dup->sequence_number, a->sequence_number);
  EXPECT_EQ(Counts(*q)[0], 1);
  // Survives receive and delete of the original.
  auto got = Receive(*q);
  ASSERT_OK(q->DeleteMessage(got[0].receipt_handle));
  ASSERT_OK(SendTo(*q, "g1", "body", "id-1"));
  EXPECT_EQ(Counts(*q)[0], 0);
  EXPECT_EQ(got[0].attributes["MessageDeduplicationId"], "id-1");
  // Survives a restart; ends after five minutes.
  Reopen();
  q = *broker_->GetQueue("q.fifo");
  ASSERT_OK(SendTo(*q, "g1", "body", "id-1"));
  EXPECT_EQ(Counts(*q)[0], 0);
  clock_->AdvanceSeconds(300);
  ASSERT_OK(broker_->RunMaintenance());
  auto fresh = SendTo(*q, "g1", "body", "id-1");
  ASSERT_OK(fresh);
  EXPECT_NE(fresh->message_id, a->message_id);
  EXPECT_EQ(Counts(*q)[0], 1);
  // Purge forgets the history.
  ASSERT_OK(q->PurgeQueue());
  ASSERT_OK(SendTo(*q, "g1", "body", "id-1"));
  EXPECT_EQ(Counts(*q)[0], 1);
}

// A record whose window ended while the database was closed is deleted by
// the first sweep after the open, as the others are (the window in memory
// used to skip it at the open, and nothing deleted it later).
TEST_F(FifoTest, DeduplicationRecordsThatEndedWhileClosedAreSweptAfterTheOpen) {
  auto q = Fifo("q.fifo");
  ASSERT_OK(SendTo(*q, "g1", "a", "id-1"));
  clock_->AdvanceSeconds(60);
  auto second = SendTo(*q, "g1", "b", "id-2");
  ASSERT_OK(second);
  // Closed past id-1's five minutes, not id-2's.
  EXPECT_EQ(RawDedupKeys([this] { clock_->AdvanceSeconds(250); }), 2);
  q = *broker_->GetQueue("q.fifo");
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_EQ(RawDedupKeys(), 1);
  q = *broker_->GetQueue("q.fifo");
  auto dup = SendTo(*q, "g2", "c", "id-2");
  ASSERT_OK(dup);
  EXPECT_EQ(dup->message_id, second->message_id);
  EXPECT_EQ(dup->sequence_number, second->sequence_number);
  auto fresh = SendTo(*q, "g2", "d", "id-1");
  ASSERT_OK(fresh);
  EXPECT_EQ(Counts(*q)[0], 3);
}

TEST_F(FifoTest, ContentBasedAndPerGroupDeduplication) {
  auto q = Fifo("cbd.fifo",
                {{"ContentBasedDeduplication", "true"}, {"DeduplicationScope", "messageGroup"}});
  SendMessageRequest r;
  r.body = "same";
  r.message_group_id = "g1";
  ASSERT_OK(q->SendMessage(r));
  ASSERT_OK(q->SendMessage(r));  // duplicate by content
  r.message_group_id = "g2";
  ASSERT_OK(q->SendMessage(r));  // another group: not a duplicate
  EXPECT_EQ(Counts(*q)[0], 2);
  auto got = Receive(*q, 10);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].attributes["MessageDeduplicationId"].size(), 64u);  // SHA-256 hex
  // Duplicates inside one batch.
  std::vector<SendMessageBatchEntry> batch(2);
  for (int i = 0; i < 2; ++i) {
    batch[i].id = "e" + std::to_string(i);
    batch[i].request.body = "twice";
    batch[i].request.message_group_id = "g3";
  }
  auto res = q->SendMessageBatch(batch);
  ASSERT_OK(res);
  ASSERT_EQ(res->successful.size(), 2u);
  EXPECT_EQ(res->successful[0].result.message_id, res->successful[1].result.message_id);
  EXPECT_EQ(Counts(*q)[0], 1);
}

// A changed DeduplicationScope is reported at once but reaches
// deduplication a minute later (SQS: attribute changes take up to 60 s to
// propagate). The steps are those of the AWS-validated LocalStack test
// test_fifo_change_to_high_throughput_after_creation (AWS's recording:
// Test2, Test3 and Test5 are dropped, all within seconds of the change),
// with a reopen before the last send; then the minute passes.
TEST_F(FifoTest, DeduplicationScopeChangedToMessageGroupTakesEffectAMinuteLater) {
  auto q =
      Fifo("high.fifo", {{"DeduplicationScope", "queue"}, {"ContentBasedDeduplication", "false"}});
  ASSERT_OK(SendTo(*q, "group1", "Test1", "same-dedup"));
  ReceiveAndDelete(*q, "Test1");
  ASSERT_OK(SendTo(*q, "group2", "Test2", "same-dedup"));
  EXPECT_TRUE(Receive(*q, 1).empty());

  ASSERT_OK(q->SetAttributes(
      {{"DeduplicationScope", "messageGroup"}, {"FifoThroughputLimit", "perMessageGroupId"}}));
  auto attrs = q->GetAttributes({"DeduplicationScope", "FifoThroughputLimit"});
  ASSERT_OK(attrs);
  EXPECT_EQ(*attrs, (AttributeMap{{"DeduplicationScope", "messageGroup"},
                                  {"FifoThroughputLimit", "perMessageGroupId"}}));
  EXPECT_TRUE(Receive(*q, 1).empty());
  clock_->AdvanceSeconds(1);
  ASSERT_OK(SendTo(*q, "group3", "Test3", "same-dedup"));  // an id seen before the change
  EXPECT_TRUE(Receive(*q, 1).empty());
  ASSERT_OK(SendTo(*q, "group4", "Test4", "dedup_2"));
  ReceiveAndDelete(*q, "Test4");

  // CreateQueue compares the reported attributes.
  ASSERT_OK(broker_->CreateQueue("high.fifo",
                                 {{"FifoQueue", "true"},
                                  {"DeduplicationScope", "messageGroup"},
                                  {"FifoThroughputLimit", "perMessageGroupId"}},
                                 {}));
  EXPECT_CODE(broker_->CreateQueue("high.fifo",
                                   {{"FifoQueue", "true"}, {"DeduplicationScope", "queue"}}, {}),
              kQueueNameExists);

  Reopen();  // the pending change is kept with the queue
  q = *broker_->GetQueue("high.fifo");
  EXPECT_EQ(q->GetAttributes({"DeduplicationScope"})->at("DeduplicationScope"), "messageGroup");
  clock_->AdvanceSeconds(57);                           // 58 s after the change
  ASSERT_OK(SendTo(*q, "group5", "Test5", "dedup_2"));  // an id first seen after the change
  EXPECT_TRUE(Receive(*q, 1).empty());

  // A minute after the change, ids are matched per group, and entries made
  // with the queue scope no longer match other groups.
  clock_->AdvanceSeconds(2);
  ASSERT_OK(SendTo(*q, "group6", "Test6", "dedup_2"));
  ReceiveAndDelete(*q, "Test6");
  ASSERT_OK(SendTo(*q, "group7", "Test7", "same-dedup"));
  ReceiveAndDelete(*q, "Test7");
  ASSERT_OK(SendTo(*q, "group7", "Again", "same-dedup"));  // within its group: a duplicate
  EXPECT_TRUE(Receive(*q, 1).empty());
}

// The converse, as in test_fifo_change_to_regular_throughput_after_creation
// (AWS delivers Test3 right after the change): a queue created with
// messageGroup scope goes on matching ids within a group, past a reopen,
// until a minute after the change; then ids are matched across the queue.
TEST_F(FifoTest, DeduplicationScopeChangedToQueueTakesEffectAMinuteLater) {
  auto q = Fifo("regular.fifo", {{"DeduplicationScope", "messageGroup"},
                                 {"FifoThroughputLimit", "perMessageGroupId"}});
  ASSERT_OK(SendTo(*q, "group1", "Test1", "same-dedup"));
  ReceiveAndDelete(*q, "Test1");
  ASSERT_OK(SendTo(*q, "group2", "Test2", "same-dedup"));
  ReceiveAndDelete(*q, "Test2");

  ASSERT_OK(
      q->SetAttributes({{"DeduplicationScope", "queue"}, {"FifoThroughputLimit", "perQueue"}}));
  auto attrs = q->GetAttributes({"DeduplicationScope", "FifoThroughputLimit"});
  ASSERT_OK(attrs);
  EXPECT_EQ(*attrs,
            (AttributeMap{{"DeduplicationScope", "queue"}, {"FifoThroughputLimit", "perQueue"}}));
  ASSERT_OK(SendTo(*q, "group3", "Test3", "same-dedup"));
  ReceiveAndDelete(*q, "Test3");
  ASSERT_OK(SendTo(*q, "group3", "Again", "same-dedup"));  // within its group: a duplicate
  EXPECT_TRUE(Receive(*q, 1).empty());

  Reopen();
  q = *broker_->GetQueue("regular.fifo");
  EXPECT_EQ(q->GetAttributes({"DeduplicationScope"})->at("DeduplicationScope"), "queue");
  ASSERT_OK(SendTo(*q, "group4", "Test4", "dedup_2"));
  ReceiveAndDelete(*q, "Test4");
  ASSERT_OK(SendTo(*q, "group5", "Test5", "dedup_2"));
  ReceiveAndDelete(*q, "Test5");

  clock_->AdvanceSeconds(60);
  ASSERT_OK(SendTo(*q, "group6", "Test6", "dedup_3"));
  ReceiveAndDelete(*q, "Test6");
  ASSERT_OK(SendTo(*q, "group7", "Test7", "dedup_3"));  // another group: now a duplicate
  EXPECT_TRUE(Receive(*q, 1).empty());
}

TEST_F(FifoTest, ReceiveRequestAttemptIdReturnsSameMessages) {
  auto q = Fifo("q.fifo");
  for (const char* b : {"m1", "m2", "m3"}) ASSERT_OK(SendTo(*q, "g", b));
  ReceiveMessageRequest r;
  r.max_number_of_messages = 2;
  r.receive_request_attempt_id = "attempt-1";
  auto first = q->ReceiveMessage(r);
  ASSERT_OK(first);
  ASSERT_EQ(first->messages.size(), 2u);
  clock_->AdvanceSeconds(20);
  auto retry = q->ReceiveMessage(r);  // the response was "lost"
  ASSERT_OK(retry);
  ASSERT_EQ(retry->messages.size(), 2u);
  EXPECT_EQ(retry->messages[0].receipt_handle, first->messages[0].receipt_handle);
  EXPECT_EQ(retry->messages[1].receipt_handle, first->messages[1].receipt_handle);
  // The retry restarted the leases: still locked 29 s later, free at 30 s.
  clock_->AdvanceSeconds(29);
  EXPECT_TRUE(Receive(*q, 10).empty());
  clock_->AdvanceSeconds(1);
  EXPECT_EQ(Receive(*q, 10).size(), 3u);
  // After a change the attempt id no longer replays.
  r.receive_request_attempt_id = "attempt-2";
  clock_->AdvanceSeconds(30);
  auto third = q->ReceiveMessage(r);
  ASSERT_OK(third);
  ASSERT_OK(q->DeleteMessage(third->messages[0].receipt_handle));
  auto fourth = q->ReceiveMessage(r);
  ASSERT_OK(fourth);
  EXPECT_TRUE(fourth->messages.empty());  // m2 still leased: group locked
}

TEST_F(FifoTest, DeadLetterKeepsTheRestOfTheGroupFlowing) {
  auto dlq = Fifo("dlq.fifo");
  auto q = Fifo("q.fifo",
                {{"RedrivePolicy", "{\"deadLetterTargetArn\":\"" + broker_->ArnFor("dlq.fifo") +
                                       "\",\"maxReceiveCount\":2}"}});
  for (const char* b : {"m1", "m2"}) ASSERT_OK(SendTo(*q, "g", b));
  EXPECT_EQ(Bodies(Receive(*q, 1, 0)), (std::vector<std::string>{"m1"}));
  EXPECT_EQ(Bodies(Receive(*q, 1, 0)), (std::vector<std::string>{"m1"}));
  // Third receive: m1 moves to the DLQ, m2 is delivered.
  auto got = Receive(*q, 1);
  EXPECT_EQ(Bodies(got), (std::vector<std::string>{"m2"}));
  auto dead = Receive(*dlq, 10);
  ASSERT_EQ(Bodies(dead), (std::vector<std::string>{"m1"}));
  EXPECT_EQ(dead[0].attributes["MessageGroupId"], "g");
  EXPECT_EQ(dead[0].attributes["MessageDeduplicationId"], dead[0].message_id);
  EXPECT_EQ(dead[0].attributes["DeadLetterQueueSourceArn"], q->arn());
}

TEST_F(FifoTest, QueueDelayIsRetroactive) {
  auto q = Fifo("q.fifo", {{"DelaySeconds", "10"}});
  ASSERT_OK(SendTo(*q, "g", "m1"));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 1}));
  EXPECT_TRUE(Receive(*q).empty());
  ASSERT_OK(q->SetAttributes({{"DelaySeconds", "0"}}));
  EXPECT_EQ(Bodies(Receive(*q)), (std::vector<std::string>{"m1"}));
}

TEST_F(FifoTest, RetentionAndReopen) {
  auto q = Fifo("q.fifo", {{"MessageRetentionPeriod", "60"}});
  ASSERT_OK(SendTo(*q, "a", "a1"));
  ASSERT_OK(SendTo(*q, "a", "a2"));
  ASSERT_OK(SendTo(*q, "b", "b1"));
  auto got = Receive(*q, 1);
  Reopen();
  q = *broker_->GetQueue("q.fifo");
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{2, 1, 0}));
  // Group a is still locked after the restart; b flows.
  EXPECT_EQ(Bodies(Receive(*q, 10)), (std::vector<std::string>{"b1"}));
  clock_->AdvanceSeconds(60);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_TRUE(Receive(*q, 10).empty());
}

TEST_F(FifoTest, ConcurrentConsumersKeepGroupOrderAndExclusivity) {
  auto q = Fifo("q.fifo", {{"VisibilityTimeout", "600"}});
  constexpr int kGroups = 100, kPerGroup = 20;
  for (int i = 0; i < kPerGroup; ++i) {
    std::vector<SendMessageBatchEntry> batch;
    for (int g = 0; g < kGroups; ++g) {
      SendMessageBatchEntry e;
      e.id = "e" + std::to_string(batch.size());
      e.request.body = std::to_string(g) + ":" + std::to_string(i);
      e.request.message_group_id = "g" + std::to_string(g);
      e.request.message_deduplication_id = e.request.body;
      batch.push_back(std::move(e));
      if (batch.size() == 10) {
        ASSERT_OK(q->SendMessageBatch(batch));
        batch.clear();
      }
    }
  }
  std::mutex mu;
  std::vector<int> in_flight(kGroups, 0), next(kGroups, 0), owner(kGroups, -1);
  std::atomic<int> done{0}, violations{0};
  auto consumer = [&](int me) {
    while (done.load() < kGroups * kPerGroup) {
      ReceiveMessageRequest r;
      r.max_number_of_messages = 10;
      auto got = q->ReceiveMessage(r);
      if (!got.ok()) {
        ++violations;
        return;
      }
      for (const auto& m : got->messages) {
        const int g = std::stoi(m.body.substr(0, m.body.find(':')));
        const int i = std::stoi(m.body.substr(m.body.find(':') + 1));
        std::lock_guard<std::mutex> lock(mu);
        if (i != next[g]) ++violations;                        // out of order
        if (in_flight[g] > 0 && owner[g] != me) ++violations;  // two consumers in one group
        next[g] = i + 1;
        owner[g] = me;
        ++in_flight[g];
      }
      for (const auto& m : got->messages) {
        const int g = std::stoi(m.body.substr(0, m.body.find(':')));
        {
          // Released before the delete: once deleted, another consumer may
          // rightfully receive the group's next message.
          std::lock_guard<std::mutex> lock(mu);
          --in_flight[g];
        }
        if (!q->DeleteMessage(m.receipt_handle).ok()) ++violations;
        ++done;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(consumer, t);
  for (auto& t : threads) t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(done.load(), kGroups * kPerGroup);
  for (int g = 0; g < kGroups; ++g) EXPECT_EQ(next[g], kPerGroup);
}

}  // namespace
}  // namespace lqs::testing
