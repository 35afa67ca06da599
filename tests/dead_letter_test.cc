// Dead-letter queues: maxReceiveCount moves, RedriveAllowPolicy, and
// ListDeadLetterSourceQueues.

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class DeadLetterTest : public BrokerTest {
 protected:
  std::string Redrive(const std::string& dlq, int max) {
    return "{\"deadLetterTargetArn\":\"" + broker_->ArnFor(dlq) +
           "\",\"maxReceiveCount\":" + std::to_string(max) + "}";
  }
};

TEST_F(DeadLetterTest, MovedAfterMaxReceiveCount) {
  auto dlq = MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 2)}, {"VisibilityTimeout", "10"}});
  ASSERT_TRUE(q);
  SendMessageRequest s;
  s.body = "poison";
  s.message_attributes["k"] = {"Number", "42", ""};
  auto sent = q->SendMessage(s);
  ASSERT_OK(sent);
  const int64_t sent_at = clock_->NowMillis();
  ASSERT_EQ(Receive(*q).size(), 1u);
  clock_->AdvanceSeconds(10);
  ASSERT_EQ(Receive(*q).size(), 1u);
  clock_->AdvanceSeconds(10);
  // The third receive moves it instead of delivering it.
  EXPECT_TRUE(Receive(*q).empty());
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{1, 0, 0}));
  auto got = Receive(*dlq);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message_id, sent->message_id);
  EXPECT_EQ(got[0].body, "poison");
  EXPECT_EQ(got[0].attributes["ApproximateReceiveCount"], "3");
  EXPECT_EQ(got[0].attributes["SentTimestamp"], std::to_string(sent_at));
  EXPECT_EQ(got[0].attributes["DeadLetterQueueSourceArn"], q->arn());
  EXPECT_EQ(got[0].message_attributes.at("k").string_value, "42");
  // The source keeps working.
  Send(*q, "fine");
  EXPECT_EQ(Receive(*q).size(), 1u);
}

TEST_F(DeadLetterTest, MaxReceiveCountOneDeliversOnce) {
  MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 1)}});
  Send(*q, "x");
  auto got = Receive(*q, 1, 0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(Receive(*q).empty());
  auto dlq = *broker_->GetQueue("dlq");
  EXPECT_EQ(Receive(*dlq).size(), 1u);
  // The old handle no longer does anything, and does not fail.
  EXPECT_OK(q->DeleteMessage(got[0].receipt_handle));
}

TEST_F(DeadLetterTest, DlqKeepsOriginalSendTimeForRetention) {
  auto dlq = MakeQueue("dlq", {{"MessageRetentionPeriod", "120"}});
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 1)}});
  Send(*q, "x");
  ASSERT_EQ(Receive(*q, 1, 100).size(), 1u);
  clock_->AdvanceSeconds(100);
  EXPECT_TRUE(Receive(*q).empty());  // moved at t=100 s
  EXPECT_EQ(Counts(*dlq)[0], 1);
  clock_->AdvanceSeconds(20);  // 120 s since the original send
  EXPECT_EQ(Counts(*dlq)[0], 0);
  EXPECT_TRUE(Receive(*dlq).empty());
}

TEST_F(DeadLetterTest, RedrivePolicyValidation) {
  MakeQueue("dlq");
  auto q = MakeQueue("q");
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", Redrive("missing", 3)}}), kInvalidParameterValue);
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", "{\"maxReceiveCount\":3}"}}), kInvalidParameterValue);
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", Redrive("dlq", 0)}}), kInvalidParameterValue);
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", Redrive("dlq", 1001)}}), kInvalidParameterValue);
  ASSERT_OK(q->SetAttributes({{"RedrivePolicy",
                               "{\"deadLetterTargetArn\":\"" + broker_->ArnFor("dlq") +
                                   "\",\"maxReceiveCount\":\"7\"}"}}));
  EXPECT_EQ(q->GetAttributes({"RedrivePolicy"})->at("RedrivePolicy"), Redrive("dlq", 7));
  ASSERT_OK(q->SetAttributes({{"RedrivePolicy", ""}}));
  EXPECT_EQ(q->GetAttributes({"All"})->count("RedrivePolicy"), 0u);
}

TEST_F(DeadLetterTest, RedriveAllowPolicy) {
  auto dlq = MakeQueue("dlq", {{"RedriveAllowPolicy", "{\"redrivePermission\":\"denyAll\"}"}});
  EXPECT_CODE(broker_->CreateQueue("q", {{"RedrivePolicy", Redrive("dlq", 3)}}, {}),
              kInvalidParameterValue);
  ASSERT_OK(dlq->SetAttributes(
      {{"RedriveAllowPolicy", "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"" +
                                  broker_->ArnFor("ok") + "\"]}"}}));
  EXPECT_CODE(broker_->CreateQueue("q", {{"RedrivePolicy", Redrive("dlq", 3)}}, {}),
              kInvalidParameterValue);
  EXPECT_OK(broker_->CreateQueue("ok", {{"RedrivePolicy", Redrive("dlq", 3)}}, {}));
}

TEST_F(DeadLetterTest, ListDeadLetterSourceQueues) {
  MakeQueue("dlq");
  MakeQueue("a", {{"RedrivePolicy", Redrive("dlq", 3)}});
  MakeQueue("b", {{"RedrivePolicy", Redrive("dlq", 3)}});
  MakeQueue("c");
  auto list = broker_->ListDeadLetterSourceQueues("dlq", {});
  ASSERT_OK(list);
  EXPECT_EQ(list->queue_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_CODE(broker_->ListDeadLetterSourceQueues("nope", {}), kQueueDoesNotExist);
}

TEST_F(DeadLetterTest, MovesSurviveReopenAndStayConsistent) {
  MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 1)}});
  for (int i = 0; i < 50; ++i) Send(*q, "m" + std::to_string(i));
  for (int i = 0; i < 5; ++i) Receive(*q, 10, 0);
  EXPECT_TRUE(Receive(*q, 10).empty());
  Reopen();
  auto dlq = *broker_->GetQueue("dlq");
  EXPECT_EQ(Counts(*dlq)[0], 50);
}

}  // namespace
}  // namespace lqs::testing
